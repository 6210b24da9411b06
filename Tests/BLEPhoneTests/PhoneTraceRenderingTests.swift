import BLE
import BLEWire
import BLESimulation
import Testing

@testable import BLEPhone

/// A short trace touching every kind of entry the renderers draw.
enum SampleTrace {
    static let app = AppIdentifier("com.example.headset")

    static func at(_ milliseconds: Int64, _ event: PhoneTraceEvent, app: AppIdentifier? = SampleTrace.app)
        -> PhoneTraceEntry
    {
        PhoneTraceEntry(time: VirtualInstant(nanoseconds: milliseconds * 1_000_000), app: app, event: event)
    }

    static let entries: [PhoneTraceEntry] = [
        at(0, .user(.open(app)), app: nil),
        at(0, .launched(.user)),
        at(0, .stateChanged(from: .notRunning, to: .inactive)),
        at(5, .stateChanged(from: .inactive, to: .active)),
        at(10_000, .user(.home), app: nil),
        at(10_000, .stateChanged(from: .active, to: .background)),
        at(10_001, .backgroundTaskBegan(identifier: 1, name: "upload")),
        at(15_000, .backgroundTaskEnded(identifier: 1, name: "upload")),
        at(16_000, .stateChanged(from: .background, to: .suspended)),
        at(20_000, .eventQueued(.valueUpdate, summary: "heartbeat 7")),
        at(21_000, .woken(.bluetooth(.valueUpdate), until: VirtualInstant(nanoseconds: 31_000_000_000))),
        at(21_000, .stateChanged(from: .suspended, to: .background)),
        at(21_000, .eventDelivered(.valueUpdate, summary: "heartbeat 8")),
        at(31_000, .stateChanged(from: .background, to: .suspended)),
        at(40_000, .system(.memoryPressure(app)), app: nil),
        at(40_000, .killed(.memoryPressure)),
        at(40_000, .stateChanged(from: .suspended, to: .notRunning)),
        at(45_000, .eventDropped(.valueUpdate, summary: "heartbeat 9", why: "force-quit")),
        at(46_000, .alert("HEADSET disconnected")),
        at(50_000, .note("done")),
    ]
}

@Suite("Trace rendering: lines and JSON")
struct PhoneTraceRenderingTests {
    @Test("Times read +HH:MM:SS.mmm, hours past a day included")
    func timeFormat() {
        #expect(PhoneTraceText.time(.zero) == "+00:00:00.000")
        #expect(PhoneTraceText.time(VirtualInstant(nanoseconds: 61_234_000_000)) == "+00:01:01.234")
        #expect(PhoneTraceText.time(VirtualInstant(nanoseconds: 90_000 * 1_000_000_000)) == "+25:00:00.000")
    }

    @Test("One line per entry: time, app (or phone), the event in words")
    func lines() {
        let text = PhoneTraceText.lines(SampleTrace.entries)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == SampleTrace.entries.count + 1)
        #expect(lines[0] == "+00:00:00.000  phone                user: open com.example.headset")
        #expect(lines[5] == "+00:00:10.000  com.example.headset  active → background")
        #expect(lines[6] == "+00:00:10.001  com.example.headset  background task #1 'upload' begins")
        #expect(lines[15] == "+00:00:40.000  com.example.headset  killed: memory pressure")
        #expect(lines[17].hasSuffix("dropped valueUpdate: heartbeat 9 (force-quit)"))
    }

    @Test("Over-the-air text cannot reach the terminal as controls: ESC, CR and newlines are escaped")
    func terminalSafeLines() {
        let hostile = SampleTrace.at(1, .eventDelivered(.valueUpdate, summary: "name \u{1B}[2J\r\nforged"))
        let line = PhoneTraceText.line(hostile)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 })
        #expect(line.hasSuffix(#"delivered valueUpdate: name \u{1B}[2J\r\nforged"#))
        let lines = PhoneTraceText.lines([hostile, SampleTrace.at(2, .note("bidi \u{202E}x"))])
        #expect(lines.split(separator: "\n").count == 2)
        #expect(lines.contains(#"note: bidi \u{202E}x"#))
    }

    @Test("JSON: one object per entry with time_ms, app and the event's type and fields (golden)")
    func jsonGolden() {
        let entries = [
            SampleTrace.entries[0], SampleTrace.entries[5], SampleTrace.entries[6], SampleTrace.entries[10],
            SampleTrace.entries[15],
            SampleTrace.at(50_000, .launched(.bluetoothRestoration(LaunchOptions(bluetoothCentrals: ["central"])))),
        ]
        let expected = """
            [
            {"time_ms":0,"app":null,"event":{"type":"user","action":"open","target":"com.example.headset"}},
            {"time_ms":10000,"app":"com.example.headset","event":{"type":"stateChanged","from":"active","to":"background"}},
            {"time_ms":10001,"app":"com.example.headset","event":{"type":"backgroundTaskBegan","identifier":1,"name":"upload"}},
            {"time_ms":21000,"app":"com.example.headset","event":{"type":"woken","reason":"bluetooth","kind":"valueUpdate","until_ms":31000}},
            {"time_ms":40000,"app":"com.example.headset","event":{"type":"killed","reason":"memory_pressure"}},
            {"time_ms":50000,"app":"com.example.headset","event":{"type":"launched","reason":"bluetooth_restoration","centrals":["central"],"peripherals":[]}}
            ]

            """
        #expect(PhoneTraceJSON.document(entries) == expected)
        #expect(PhoneTraceJSON.document([]) == "[]\n")
    }

    @Test("JSON is valid (read back by the strict parser) and carries no control characters")
    func jsonValid() throws {
        let hostile = SampleTrace.at(1, .eventDelivered(.valueUpdate, summary: "a\"b\\c\u{1B}d\u{9B}e\n"))
        let text = PhoneTraceJSON.document(SampleTrace.entries + [hostile])
        #expect(!text.unicodeScalars.contains { $0 != "\n" && TerminalTextCheck.unsafe($0) })
        let value = try JSONParser.parse(Array(text.utf8))
        guard case .array(let objects) = value else {
            Issue.record("not an array")
            return
        }
        #expect(objects.count == SampleTrace.entries.count + 1)
        guard case .object(let last) = objects.last, case .object(let event)? = last["event"] else {
            Issue.record("not an object")
            return
        }
        if case .string(let summary)? = event["summary"] {
            #expect(summary == "a\"b\\c\u{1B}d\u{9B}e\n")
        } else {
            Issue.record("no summary")
        }
    }

    @Test("Every event kind has a distinct type name and words")
    func everyTypeNamed() {
        let types = Set(SampleTrace.entries.map { $0.event.record.type })
        #expect(types.count == 13)
        for entry in SampleTrace.entries { #expect(!entry.event.record.words.isEmpty) }
    }
}

enum TerminalTextCheck {
    static func unsafe(_ scalar: Unicode.Scalar) -> Bool { TerminalText.isUnsafe(scalar) }
}
