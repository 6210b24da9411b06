import BLEDevices
import BLEPhone
import BLESimulation
import Testing

/// Runs a scenario given as JSON.
private func run(_ json: String) async throws -> PhoneScenarioResult {
    try await PhoneScenarioRunner.run(try PhoneScenario(parsing: Array(json.utf8)))
}

/// Keep-alive scenarios run by the scripted app: its location manager, push registry and call
/// provider through the scenario's steps and triggers.
@Suite("Keep-alive scenarios run by the scripted app")
struct KeepAliveScenarioRunTests {
    @Test(
        "Significant change: a relaunch for location after a memory kill, none after a force-quit",
        arguments: ["memory_pressure", "force_quit"])
    func locationRelaunch(kill: String) async throws {
        let relaunched = kill == "memory_pressure"
        let result = try await run(
            """
            {"profile": "ios17",
             "app": {"bundle_id": "com.example.run", "background_modes": ["location"],
                     "reactions": [{"on": "launch", "do": [{"monitor_significant_changes": true}]},
                                   {"on": "location", "do": [{"note": "location event"}]}]},
             "timeline": [{"at_s": 0, "action": "move_to", "latitude": 48.8566, "longitude": 2.3522},
                          {"at_s": 1, "action": "open"}, {"at_s": 10, "action": "home"},
                          {"at_s": 20, "action": "\(kill)"},
                          {"at_s": 400, "action": "move_to", "latitude": 48.8616, "longitude": 2.3522}],
             "duration_s": 500,
             "expect": [{"launched_for": "location", "times": \(relaunched ? 1 : 0)},
                        {"launches": \(relaunched ? 2 : 1)}]}
            """)
        #expect(result.passed, "\(result.expectations)")
        let noted = result.trace.contains { $0.event == .note("location event") }
        #expect(noted == relaunched)
    }

    @Test(
        "iOS 17: a VoIP push without report_call is killed voip_push_not_reported; with it the call holds the app until end_call"
    )
    func voip() async throws {
        let unreported = try await run(
            """
            {"profile": "ios17",
             "app": {"bundle_id": "com.example.talk", "background_modes": ["voip"]},
             "timeline": [{"at_s": 5, "action": "voip_push"}],
             "duration_s": 60,
             "expect": [{"launched_for": "voip_push", "times": 1}, {"killed": "voip_push_not_reported"}]}
            """)
        #expect(unreported.passed, "\(unreported.expectations)")

        let reported = try await run(
            """
            {"profile": "ios17",
             "app": {"bundle_id": "com.example.talk", "background_modes": ["voip"],
                     "reactions": [{"on": "voip_push", "do": [{"report_call": true}]}]},
             "timeline": [{"at_s": 5, "action": "voip_push"}, {"at_s": 100, "action": "end_call"}],
             "duration_s": 200,
             "expect": [{"never_killed": true}, {"state": "background", "at_s": 99},
                        {"state": "suspended", "at_s": 102}]}
            """)
        #expect(reported.passed, "\(reported.expectations)")
    }

    @Test("Silent pushes every 10 minutes: woken 3 times in the first hour, the rest deferred")
    func silentPushes() async throws {
        let timeline = (1...5).map { #"{"at_s": \#($0 * 600), "action": "silent_push"}"# }.joined(separator: ", ")
        let result = try await run(
            """
            {"profile": "ios17",
             "app": {"bundle_id": "com.example.news", "background_modes": ["remote-notification"]},
             "timeline": [{"at_s": 1, "action": "open"}, {"at_s": 10, "action": "home"}, \(timeline)],
             "duration_s": 3500,
             "expect": [{"woken": "silent_push", "times": 3}, {"never_killed": true}]}
            """)
        #expect(result.passed, "\(result.expectations)")
    }
}
