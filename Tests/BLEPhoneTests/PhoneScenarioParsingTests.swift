import BLESimulation
import Foundation
import Testing

@testable import BLEPhone

/// The repository's docs/examples/phone folder.
private var examples: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/examples/phone")
}

private func parse(_ json: String) throws(PhoneScenarioError) -> PhoneScenario {
    try PhoneScenario(parsing: Array(json.utf8))
}

/// The error `json` gets, or nil when it parses.
private func error(_ json: String) -> PhoneScenarioError? {
    do {
        _ = try parse(json)
        return nil
    } catch {
        return error
    }
}

/// A valid scenario with `extra` spliced into the top-level object.
private func minimal(_ extra: String = "") -> String {
    #"{"profile": "ios17", "app": {"bundle_id": "com.example.app"}, "duration_s": 60"#
        + (extra.isEmpty ? "" : ", " + extra) + "}"
}

@Suite("Scenario files")
struct PhoneScenarioParsingTests {
    @Test("Every example in docs/examples/phone parses, and round-trips: parse → encode → parse is equal")
    func examplesRoundTrip() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: examples.path).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 3)
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: examples.appendingPathComponent(file)))
            let scenario = try PhoneScenario(parsing: bytes)
            let again = try PhoneScenario(parsing: Array(scenario.json.utf8))
            #expect(again == scenario, "\(file)")
        }
    }

    @Test("Every field survives the round trip: overrides, modes, reactions, steps, device actions, expectations")
    func fullRoundTrip() throws {
        let scenario = PhoneScenario(
            profile: .init(
                name: "ios12", wakeWindow: .seconds(0.5), backgroundTaskBudget: .seconds(100),
                expirationLead: .seconds(3),
                suspensionDelay: .seconds(2), autoLock: .never, coalescing: .bounded(3)),
            app: .init(
                bundleIdentifier: "com.example.app", backgroundModes: [.bluetoothCentral, .bluetoothPeripheral],
                restoreIdentifiers: ["a", "b"], usesAccessorySetupKit: true,
                reactions: [
                    .init(on: .launch, do: [.scan(device: "hs"), .note("hello \u{1B} \"quoted\"")]),
                    .init(on: .enterBackground, do: [.beginTask("t"), .work(.seconds(2.25)), .endTask("t")]),
                    .init(on: .bluetooth(.connected, device: "hs"), do: [.subscribe(device: "hs")]),
                    .init(on: .bluetooth(.notification, device: nil), do: [.write(device: "hs", value: [0x88, 0x05])]),
                    .init(
                        on: .timer(every: .seconds(30)),
                        do: [
                            .disconnect(device: "hs"), .connect(device: "hs"),
                            .connect(device: "hs", alerts: [.disconnection, .notification]),
                        ]),
                    .init(on: .becomeActive, do: [.work(.seconds(1))], inCallback: true),
                    .init(on: .enterForeground, do: []),
                ]),
            devices: [.init(name: "hs", notifyPeriod: nil, distance: 2.5)],
            timeline: [
                .init(at: .seconds(1), .open), .init(at: .seconds(2), .reboot(passcode: true)),
                .init(at: .seconds(3), .bluetoothInControlCenter(on: false)),
                .init(at: .seconds(4), .airplaneMode(on: true)),
                .init(at: .seconds(5), .device("hs", .startNotifying(every: .seconds(2)))),
                .init(at: .seconds(5), .device("hs", .walkAway)), .init(at: .seconds(6), .firstUnlock),
            ],
            duration: .seconds(86_400),
            expectations: [
                .state(.suspended, at: .seconds(100)), .state(.active, at: nil), .killed(.backgroundTaskOverrun),
                .neverKilled, .launches(2), .relaunches(1), .deliveredAtLeast(5, kind: .valueUpdate),
                .deliveredAtMost(0, kind: nil), .noEventDropped, .alertsAtLeast(1), .noted("x"),
            ])
        let text = scenario.json
        #expect(try parse(text) == scenario)
        // The profile's overrides apply to the built-in profile.
        let profile = try #require(scenario.profile.resolved)
        #expect(profile.wakeWindow == .milliseconds(500))
        #expect(profile.backgroundTaskBudget == .seconds(100))
        #expect(profile.autoLock == nil)
        #expect(profile.relaunch == PhoneProfile.ios12.relaunch)
    }

    @Test("An unknown action names its path, the choices, and its line and column")
    func unknownAction() throws {
        let json = """
            {
              "profile": "ios17",
              "app": {"bundle_id": "com.example.app"},
              "duration_s": 60,
              "timeline": [
                {"at_s": 1, "action": "open"},
                {"at_s": 2, "action": "home"},
                {"at_s": 3, "action": "lock"},
                {"at_s": 4, "action": "opne"}
              ]
            }
            """
        let failure = try #require(error(json))
        #expect(failure.path == "timeline[3].action")
        #expect(failure.problem.hasPrefix(#"unknown action "opne"; expected one of: open, home, lock"#))
        #expect(failure.line == 9)
        #expect(failure.column == 27)
        #expect(failure.description.hasSuffix("(line 9, column 27)"))
    }

    @Test("Schema violations are errors at their paths")
    func schemaViolations() {
        let cases: [(String, String)] = [
            (#"{"profile": "ios17", "app": {"bundle_id": "x"}}"#, #"missing key "duration_s""#),
            (minimal(#""extra": 1"#), #"unknown key "extra""#),
            (
                #"{"profile": "ios99", "app": {"bundle_id": "x"}, "duration_s": 1}"#,
                #"profile: unknown profile "ios99""#
            ),
            (
                #"{"profile": {"name": "ios17", "wake_window_s": 31}, "app": {"bundle_id": "x"}, "duration_s": 1}"#,
                "profile.wake_window_s: expected seconds from 0 to 30"
            ),
            (
                #"{"profile": "ios17", "app": {"bundle_id": "x", "background_modes": ["bluetooth-centrl"]}, "duration_s": 1}"#,
                #"app.background_modes[0]: unknown background mode "bluetooth-centrl""#
            ),
            (
                #"{"profile": "ios17", "app": {"bundle_id": "x", "reactions": [{"on": "lunch", "do": []}]}, "duration_s": 1}"#,
                #"app.reactions[0].on: unknown event "lunch""#
            ),
            (
                #"{"profile": "ios17", "app": {"bundle_id": "x", "reactions": [{"on": "launch", "do": [{"connect": "hs"}]}]}, "duration_s": 1}"#,
                #"app.reactions[0].do[0].connect: no device named "hs" (the scenario has no devices)"#
            ),
            (
                #"{"profile": "ios17", "app": {"bundle_id": "x", "reactions": [{"on": "launch", "do": [{"note": "a", "work_s": 1}]}]}, "duration_s": 1}"#,
                "app.reactions[0].do[0]: expected exactly one of: begin_task"
            ),
            (
                #"{"profile": "ios17", "app": {"bundle_id": "x", "reactions": [{"on": "timer", "do": []}]}, "duration_s": 1}"#,
                #"app.reactions[0]: missing key "every_s""#
            ),
            (
                minimal(#""timeline": [{"at_s": 90, "action": "open"}]"#),
                "timeline[0].at_s: expected seconds from 0 to 60"
            ),
            (
                minimal(#""timeline": [{"at_s": 5, "action": "open"}, {"at_s": 4, "action": "home"}]"#),
                "timeline[1].at_s: at 4 s, before the previous step (5 s)"
            ),
            (minimal(#""timeline": [{"at_s": 5, "action": "walk_away"}]"#), "(a device action needs \"device\")"),
            (
                minimal(
                    #""devices": [{"name": "hs", "kind": "headset"}], "timeline": [{"at_s": 5, "device": "hs", "action": "open"}]"#
                ),
                #"timeline[0].action: unknown device action "open""#
            ),
            (
                minimal(#""devices": [{"name": "hs", "kind": "watch"}]"#),
                #"devices[0].kind: unknown device kind "watch""#
            ),
            (
                minimal(#""devices": [{"name": "hs", "kind": "headset"}, {"name": "hs", "kind": "headset"}]"#),
                #"devices[1].name: a second device named "hs""#
            ),
            (minimal(#""expect": [{"killed": "oom"}]"#), #"expect[0].killed: unknown termination reason "oom""#),
            (minimal(#""expect": [{"state": "asleep"}]"#), #"expect[0].state: unknown state "asleep""#),
            (minimal(#""expect": [{"launches": 1, "at_s": 3}]"#), #"expect[0].at_s: "at_s" applies only to "state""#),
            (minimal(#""expect": [{"no_dropped_events": false}]"#), "expect[0].no_dropped_events: expected true"),
            (minimal(#""expect": [{}]"#), "expect[0]: expected exactly one of: state, killed"),
        ]
        for (json, message) in cases {
            let failure = error(json)
            #expect(failure != nil, "\(json) parsed")
            #expect(failure?.description.contains(message) == true, "\(json) → \(failure?.description ?? "")")
        }
    }

    @Test("Not JSON, a duplicate key and a wrong kind are located by line and column")
    func syntaxErrors() throws {
        let syntax = try #require(error("{\n  \"profile\": \"ios17\",\n  \"app\": {\"bundle_id\" \"x\"}\n}"))
        #expect(syntax.path == "")
        #expect(syntax.problem.hasPrefix("not JSON: expected ':'"))
        #expect((syntax.line, syntax.column) == (3, 23))
        let duplicate = try #require(error("{\"duration_s\": 1,\n \"duration_s\": 2}"))
        #expect(duplicate.problem == #"key "duration_s" appears more than once"#)
        #expect((duplicate.line, duplicate.column) == (2, 2))
        let kind = try #require(
            error(minimal().replacingOccurrences(of: "\"duration_s\": 60", with: "\"duration_s\": \"60\"")))
        #expect(kind.path == "duration_s")
        #expect(kind.problem == "expected a number, found a string")
        #expect(kind.line == 1)
    }

    @Test("Damaged files get a located error, never a trap: every truncation and byte substitution of an example")
    func damagedFiles() throws {
        let bytes = try [UInt8](
            Data(contentsOf: examples.appendingPathComponent("restoration-memory-vs-force-quit.json")))
        expectDamageIsLocated(bytes, every: 11)
    }

    @Test("Expectations read the trace: state at an instant, kills, launches, deliveries, drops, alerts, notes")
    func expectationsEvaluate() {
        let app = SampleTrace.app
        let end = VirtualInstant(nanoseconds: 60_000_000_000)
        func check(_ expectation: PhoneScenario.Expectation) -> Bool {
            expectation.evaluate(SampleTrace.entries, app: app, end: end).passed
        }
        #expect(check(.state(.active, at: .seconds(5))))
        #expect(check(.state(.suspended, at: .seconds(18))))
        #expect(!check(.state(.active, at: .seconds(18))))
        #expect(check(.state(.notRunning, at: nil)))
        #expect(check(.killed(.memoryPressure)))
        #expect(!check(.killed(.forceQuit)))
        #expect(!check(.neverKilled))
        #expect(check(.launches(1)))
        #expect(check(.relaunches(0)))
        #expect(check(.deliveredAtLeast(1, kind: .valueUpdate)))
        #expect(!check(.deliveredAtLeast(2, kind: nil)))
        #expect(check(.deliveredAtMost(0, kind: .connection)))
        #expect(!check(.noEventDropped))
        #expect(check(.alertsAtLeast(1)))
        #expect(check(.noted("done")))
        #expect(!check(.noted("other")))
        let failed = PhoneScenario.Expectation.state(.active, at: .seconds(18)).evaluate(
            SampleTrace.entries, app: app, end: end)
        #expect(failed.description == "FAIL  state active at 18 s: suspended at +00:00:18.000")
    }
}
