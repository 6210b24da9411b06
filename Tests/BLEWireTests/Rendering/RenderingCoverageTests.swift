import BLEWire
import Foundation
import Testing

/// One layer the renderer shows: a code space (opcode, event code, AD type …) and how to frame
/// a code and its parameter octets as the bytes of that layer.
struct RenderedLayer: Sendable, CustomStringConvertible {
    var description: String
    /// Every code the layer's first octet can hold.
    var codes: [UInt8] = Array(0...255)
    /// The bytes of a PDU with `code` and `body`.
    var frame: @Sendable (UInt8, [UInt8]) -> [UInt8]
    /// Decodes the bytes and returns what `ble decode` and the logs render.
    var decode: @Sendable ([UInt8]) throws -> RenderedValue

    /// Parameter blocks tried under every code: every length up to 70 octets (Read Local
    /// Supported Commands returns 65), filled with values that make counts, lengths and flags
    /// zero or small (0x06: a Read By Group Type Response's entry length; 0x07: an SMP key size).
    static let bodies: [[UInt8]] = (0...70).flatMap { length in
        [0x00, 0x01, 0x02, 0x03, 0x06, 0x07, 0x10, 0xFF].map { [UInt8](repeating: $0, count: length) }
    }
    /// Renderings checked per code: enough for each shape a code decodes to, few enough that
    /// raw (unknown) codes, which decode from every block, do not dominate the run.
    static let renderingsPerCode = 40

    static let all: [RenderedLayer] = [
        RenderedLayer(
            description: "HCI events (Core 5.4 Vol 4 Part E §7.7)",
            frame: { [0x04, $0, UInt8($1.count)] + $1 },
            decode: { try HCIPacket(h4: $0).rendered }),
        RenderedLayer(
            description: "LE Meta subevents (Vol 4 Part E §7.7.65)",
            frame: { [0x04, 0x3E, UInt8($1.count + 1), $0] + $1 },
            decode: { try HCIPacket(h4: $0).rendered }),
        RenderedLayer(
            description: "Command Complete of every table command (Vol 4 Part E §7.7.14)",
            codes: Array(0..<UInt8(HCICommandTable.entries.count)),
            frame: { index, body in
                let opcode = HCICommandTable.entries[Int(index)].opcode.rawValue
                return [0x04, 0x0E, UInt8(body.count + 3), 1, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + body
            },
            decode: { try HCIPacket(h4: $0).rendered }),
        RenderedLayer(
            description: "HCI commands of the table (Vol 4 Part E §7)",
            codes: Array(0..<UInt8(HCICommandTable.entries.count)),
            frame: { index, body in
                let opcode = HCICommandTable.entries[Int(index)].opcode.rawValue
                return [0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(body.count)] + body
            },
            decode: { try HCIPacket(h4: $0).rendered }),
        RenderedLayer(
            description: "ATT PDUs (Vol 3 Part F §3.4)",
            frame: { [$0] + $1 },
            decode: { Rendering.render(try ATTPDU(decoding: $0)) }),
        RenderedLayer(
            description: "L2CAP LE signalling commands (Vol 3 Part A §4)",
            frame: { [$0, 0x01, UInt8($1.count & 0xFF), UInt8($1.count >> 8)] + $1 },
            decode: { Rendering.render(try L2CAPSignal(decoding: $0)) }),
        RenderedLayer(
            description: "SMP commands (Vol 3 Part H §3.3)",
            frame: { [$0] + $1 },
            decode: { Rendering.render(try SMPCommand(decoding: $0)) }),
        RenderedLayer(
            description: "AD structures (CSS Part A §1)",
            frame: { [UInt8(min($1.count, 29) + 1), $0] + $1.prefix(29) },
            decode: { Rendering.render(try AdvertisingData(decoding: $0)) }),
        RenderedLayer(
            description: "ACL data carrying ATT, signalling and SMP (Vol 3 Part A §2.1)",
            codes: [0x04, 0x05, 0x06, 0x07, 0x3F, 0x40],
            frame: { channel, body in
                let frame = [UInt8(body.count & 0xFF), UInt8(body.count >> 8), channel, 0x00] + body
                return [0x02, 0x40, 0x20, UInt8(frame.count & 0xFF), UInt8(frame.count >> 8)] + frame
            },
            decode: { try HCIPacket(h4: $0).rendered }),
    ]
}

/// Every unsafe scalar must be gone from the text, and the JSON must parse.
func expectSafeRendering(_ rendered: RenderedValue, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let text = Rendering.text(of: rendered)
    #expect(!text.isEmpty, "\(what)", sourceLocation: sourceLocation)
    #expect(TerminalText.isSafe(text), "\(what): \(text.debugDescription)", sourceLocation: sourceLocation)
    let json = Rendering.json(of: rendered)
    #expect(TerminalText.isSafe(json), "\(what): \(json.debugDescription)", sourceLocation: sourceLocation)
    #expect(
        (try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])) != nil,
        "\(what): \(json)", sourceLocation: sourceLocation)
}

@Suite("Every case of every rendered type renders without trapping (one renderer for logs, ble decode, tests)")
struct RenderingCoverageTests {
    @Test(
        "Every code of every layer reaches its case and renders: events, LE subevents, return parameters, commands, ATT, signalling, SMP, AD, ACL",
        arguments: RenderedLayer.all)
    func everyCodeRenders(layer: RenderedLayer) {
        var unreached: [UInt8] = []
        for code in layer.codes {
            var decoded = 0
            for body in RenderedLayer.bodies where decoded < RenderedLayer.renderingsPerCode {
                guard let rendered = try? layer.decode(layer.frame(code, body)) else { continue }
                decoded += 1
                expectSafeRendering(rendered, "\(layer) code \(code)")
            }
            if decoded == 0 { unreached.append(code) }
        }
        // Every code decodes from some block, so every case a code selects (and the raw case
        // of unknown codes) has been rendered.
        #expect(unreached.isEmpty, "\(layer): codes never decoded: \(unreached.map { Hex.prefixed($0, width: 2) })")
    }

    @Test("Every sample command and return parameter block renders with its name")
    func samplesRender() {
        for command in CommandSamples.commands {
            let packet = HCIPacket.command(command.packet)
            expectSafeRendering(packet.rendered, "\(type(of: command).name)")
            #expect(packet.description.hasPrefix("command.\(type(of: command).name)"), "\(packet)")
        }
        for sample in CommandSamples.returnParameters {
            let complete = HCIEvent.CommandComplete(opcode: sample.opcode, returnParameters: sample.value.encoded[...])
            expectSafeRendering(HCIPacket.event(.commandComplete(complete)).rendered, sample.name)
        }
    }

    @Test("§7.7.65.17: LE Scan Timeout, a subevent without parameters, renders by its case name")
    func scanTimeout() throws {
        let packet = try HCIPacket(h4: hex("04 3e 01 11"))
        #expect(packet.description == "event.le.scanTimeout")
        #expect(Rendering.json(packet) == #"{"type":"event.le.scanTimeout"}"#)
        #expect(LEMetaEvent.scanTimeout.description == "scanTimeout")
        #expect("\(HCIEvent.le(.scanTimeout))" == "le.scanTimeout")
    }

    /// An enum of the kind that recursed: its description is its rendering, and it has cases
    /// without fields.
    enum Probe: WireRenderable {
        case plain
        case another
        case carrying(UInt8)
        case record(Inner)
        struct Inner { var mode: Mode }
        enum Mode: WireRenderable { case fast, slow }
    }

    @Test("A case without fields of any WireRenderable enum is named by the type's metadata, not its description")
    func caseWithoutFieldsOfAnyRenderableEnum() {
        #expect(Probe.plain.description == "plain")
        #expect(Probe.another.json == #""another""#)
        #expect(Probe.carrying(7).description == "carrying { value: 7 }")
        #expect(Probe.record(.init(mode: .slow)).description == "record { mode: slow }")
        #expect(Rendering.text([Probe.plain, .another]) == "[plain, another]")
        #expect(Rendering.text(Optional(Probe.Mode.fast) as Any) == "fast")
    }
}

/// Every `String` inside a decoded value, found by reflection (enum payloads, struct fields,
/// arrays), so that a string field added to any type is covered without naming it here.
func stringFields(of value: Any, depth: Int = 0) -> [String] {
    if let text = value as? String { return [text] }
    guard depth < 12 else { return [] }
    var found: [String] = []
    for child in Mirror(reflecting: value).children {
        found += stringFields(of: child.value, depth: depth + 1)
    }
    return found
}

@Suite("Text from packets is escaped for terminals in every rendered string field")
struct RenderedStringSafetyTests {
    /// UTF-8 of every scalar a terminal acts on, between letters, and an ESC sequence.
    static let hostile: [UInt8] = {
        var text = "N\u{1B}]0;owned\u{07}\u{1B}[2J"
        for value in Array(0x00...0x1F) + Array(0x7F...0x9F) + [0x061C, 0x200E, 0x200F, 0x2028, 0x2029]
            + Array(0x202A...0x202E) + Array(0x2066...0x2069)
        {
            text.unicodeScalars.append(Unicode.Scalar(UInt32(value))!)
            text += "a"
        }
        return Array(text.utf8)
    }()

    @Test("Under every code of every layer, hostile text in any string field renders without a control; JSON keeps it")
    func everyStringFieldEscaped() throws {
        var strings = 0
        for layer in RenderedLayer.all {
            for code in layer.codes {
                for length in [1, 8, 29, 64] {
                    for lead: [UInt8] in [[], [0x01]] {
                        let body = lead + Self.hostile.prefix(length)
                        guard let rendered = try? layer.decode(layer.frame(code, body)) else { continue }
                        expectSafeRendering(rendered, "\(layer) code \(code)")
                        strings += stringFields(of: rendered).filter { !TerminalText.isSafe($0) }.count
                    }
                }
            }
        }
        // The hostile text reached string fields (names and URIs of advertising data).
        #expect(strings >= 20)
    }

    @Test("CSS Part A §1.2, §1.18: a local name and a URI keep their exact characters in JSON and are escaped in text")
    func namesAndURIs() throws {
        let text = String(decoding: Self.hostile.prefix(28), as: UTF8.self)
        for type: UInt8 in [0x08, 0x09, 0x24] {
            let octets = type == 0x24 ? [0x01] + Array(text.utf8) : Array(text.utf8)
            let data = try AdvertisingData(decoding: [UInt8(octets.count + 1), type] + octets)
            let found = stringFields(of: data.structures.map(\.value))
            #expect(found == [text], "\(type)")
            #expect(TerminalText.isSafe(data.description))
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(data.json.utf8)) as? [[String: Any]])
            let value = json.first?[type == 0x24 ? "uri" : "name"] as? String
            #expect(value == text, "\(type): \(data.json)")
        }
    }

    @Test("The escape forms: \\n, \\r, \\t, \\0, \\u{1B}; quoting escapes backslash and quote; both are idempotent")
    func escapeForms() {
        #expect(
            TerminalText.escaped("a\nb\rc\td\0e\u{1B}[1m\u{9B}\u{202E}") == #"a\nb\rc\td\0e\u{1B}[1m\u{9B}\u{202E}"#)
        #expect(TerminalText.escaped("A\nB", keepingNewlines: true) == "A\nB")
        #expect(TerminalText.quoted(#"a\n"b"# + "\u{7F}") == #""a\\n\"b\u{7F}""#)
        #expect(TerminalText.escapedJSON("{\"n\":\"\u{9B}\u{2066}é\"}") == #"{"n":"\u009b\u2066é"}"#)
        for scalar in (0...0x2100).compactMap(Unicode.Scalar.init) {
            let once = TerminalText.escaped(String(scalar))
            #expect(TerminalText.isSafe(once))
            #expect(TerminalText.escaped(once) == once)
            #expect(
                TerminalText.escapedJSON(TerminalText.escapedJSON(String(scalar)))
                    == TerminalText.escapedJSON(String(scalar)))
        }
    }
}
