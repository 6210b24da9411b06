import BLEDevices
import BLEPhone
import BLESimulation
import Testing

/// Runs the scenario in `json` and returns its result.
private func run(_ json: String) async throws -> PhoneScenarioResult {
    try await PhoneScenarioRunner.run(try PhoneScenario(parsing: Array(json.utf8)))
}

/// Seconds of virtual time since the scenario's start, per entry matching `match`.
private func times(
    _ result: PhoneScenarioResult, where match: (PhoneTraceEvent) -> Bool
) -> [Double] {
    result.trace.filter { match($0.event) }.map {
        Double($0.time.nanoseconds - result.origin.nanoseconds) / 1e9
    }
}

private let app = AppIdentifier("com.example.app")

@Suite("Phone scenarios run by the scripted app")
struct PhoneScenarioRunnerTests {
    @Test(
        "iOS 13+: a background task not ended gets its expiration handler at budget − lead and a kill (0x2182bad2) at the budget"
    )
    func backgroundTaskOverrun() async throws {
        let result = try await run(
            """
            {"profile": "ios17",
             "app": {"bundle_id": "com.example.app",
                     "reactions": [{"on": "enter_background",
                                    "do": [{"begin_task": "upload"}, {"work_s": 120}, {"end_task": "upload"}]}]},
             "timeline": [{"at_s": 1, "action": "open"}, {"at_s": 10, "action": "home"}],
             "duration_s": 60,
             "expect": [{"killed": "background_task_overrun"}, {"state": "notRunning"}]}
            """)
        let passed = result.passed
        #expect(passed, "\(result.expectations)")
        // UIApplication background task notes (Apple DTS): 30 s budget, handlers ~5 s before.
        #expect(times(result) { $0 == .note("expiration handler of 'upload'") } == [35])
        #expect(times(result) { $0 == .killed(.backgroundTaskOverrun) } == [40])
    }

    @Test("Work inside didEnterBackground past its ~5 s allowance: the watchdog kills the app (0x8badf00d)")
    func watchdogInCallback() async throws {
        let result = try await run(
            """
            {"profile": "ios12",
             "app": {"bundle_id": "com.example.app",
                     "reactions": [{"on": "enter_background", "in_callback": true, "do": [{"work_s": 20}]}]},
             "timeline": [{"at_s": 1, "action": "open"}, {"at_s": 10, "action": "home"}],
             "duration_s": 30,
             "expect": [{"killed": "watchdog"}]}
            """)
        let passed = result.passed
        #expect(passed, "\(result.expectations)")
        // UIApplicationDelegate: "approximately five seconds" for applicationDidEnterBackground.
        #expect(times(result) { $0 == .killed(.watchdog) } == [15])
    }

    @Test("A timer on the app's clock stands while the app is suspended and resumes where it stopped")
    func appClockTimer() async throws {
        let result = try await run(
            """
            {"profile": {"name": "ios17", "auto_lock_s": null},
             "app": {"bundle_id": "com.example.app",
                     "reactions": [{"on": "timer", "every_s": 10, "do": [{"note": "tick"}]}]},
             "timeline": [{"at_s": 0, "action": "open"}, {"at_s": 25, "action": "home"},
                          {"at_s": 80, "action": "open"}],
             "duration_s": 100}
            """)
        let ticks = times(result) { $0 == .note("tick") }
        // Running from 0 to 26 s (home, then suspension 1 s later): ticks at 10 and 20. Frozen
        // until 80 s; the app clock then reads 26 s, so the next ticks come at 84 and 94 s.
        #expect(ticks.map { $0.rounded() } == [10, 20, 84, 94])
    }

    @Test("A device walking out of range disconnects; the disconnected reaction runs; coming back reconnects")
    func walkAway() async throws {
        let result = try await run(
            """
            {"profile": {"name": "ios17", "auto_lock_s": null},
             "app": {"bundle_id": "com.example.app", "background_modes": ["bluetooth-central"],
                     "reactions": [
                       {"on": "launch", "do": [{"scan": "hs"}]},
                       {"on": "discovered", "device": "hs", "do": [{"connect": "hs"}]},
                       {"on": "connected", "device": "hs", "do": [{"note": "connected"}]},
                       {"on": "disconnected", "device": "hs", "do": [{"note": "lost"}, {"connect": "hs"}]}]},
             "devices": [{"name": "hs", "kind": "headset", "notify_period_s": null}],
             "timeline": [{"at_s": 1, "action": "open"}, {"at_s": 10, "device": "hs", "action": "walk_away"},
                          {"at_s": 30, "device": "hs", "action": "come_back"}],
             "duration_s": 60,
             "expect": [{"note": "lost"}, {"delivered_at_least": 2, "kind": "connection"}]}
            """)
        let passed = result.passed
        #expect(passed, "\(result.expectations)")
        let lost = try #require(times(result) { $0 == .note("lost") }.first)
        // The link drops at its supervision timeout after the last packet heard, not at once.
        #expect(lost > 10 && lost < 30)
        let connected = times(result) { $0 == .note("connected") }
        #expect(connected.count == 2)
        #expect((connected.last ?? 0) > 30)
    }

    @Test(
        "Foreground-only: notifications queue while suspended and arrive on return; latest_per_characteristic keeps one"
    )
    func queuedAndCoalesced() async throws {
        func scenario(_ coalescing: String) -> String {
            """
            {"profile": {"name": "ios17", "auto_lock_s": null, "coalescing": \(coalescing)},
             "app": {"bundle_id": "com.example.app",
                     "reactions": [
                       {"on": "launch", "do": [{"scan": "hs"}]},
                       {"on": "discovered", "device": "hs", "do": [{"connect": "hs"}]},
                       {"on": "connected", "device": "hs", "do": [{"subscribe": "hs"}]}]},
             "devices": [{"name": "hs", "kind": "headset", "notify_period_s": 5}],
             "timeline": [{"at_s": 1, "action": "open"}, {"at_s": 20, "action": "home"},
                          {"at_s": 70, "action": "open"}],
             "duration_s": 72}
            """
        }
        let all = try await run(scenario(#""none""#))
        let queued = times(all) { if case .eventQueued(.valueUpdate, _) = $0 { true } else { false } }
        // Suspended from 21 s to 70 s: the heartbeats of 25…65 s wait (Core Bluetooth Background
        // Processing: a foreground-only app's events are queued and delivered on foreground).
        #expect(queued.count == 9)
        let onReturn = times(all) { if case .eventDelivered(.valueUpdate, _) = $0 { true } else { false } }
            .filter { $0 == 70 }
        #expect(onReturn.count == 9)
        let latest = try await run(scenario(#""latest_per_characteristic""#))
        let merged = times(latest) { if case .eventCoalesced = $0 { true } else { false } }
        #expect(merged.count == 8)
        let kept = times(latest) { if case .eventDelivered(.valueUpdate, _) = $0 { true } else { false } }
            .filter { $0 == 70 }
        #expect(kept.count == 1)
    }

    @Test("NotifyOnDisconnection: a suspended foreground-only app's device walking away raises a system alert")
    func disconnectionAlert() async throws {
        let result = try await run(
            """
            {"profile": {"name": "ios17", "auto_lock_s": null},
             "app": {"bundle_id": "com.example.app",
                     "reactions": [
                       {"on": "launch", "do": [{"scan": "hs"}]},
                       {"on": "discovered", "device": "hs",
                        "do": [{"connect": {"device": "hs", "notify_on": ["disconnection"]}}]}]},
             "devices": [{"name": "hs", "kind": "headset", "notify_period_s": null}],
             "timeline": [{"at_s": 1, "action": "open"}, {"at_s": 10, "action": "home"},
                          {"at_s": 20, "device": "hs", "action": "walk_away"}],
             "duration_s": 40,
             "expect": [{"alerts_at_least": 1}, {"state": "suspended"}]}
            """)
        let passed = result.passed
        #expect(passed, "\(result.expectations)")
        let alerts = times(result) { if case .alert = $0 { true } else { false } }
        #expect(alerts.count == 1)
        #expect((alerts.first ?? 0) > 20)
    }

    @Test(
        "Every timeline action runs through the phone: Settings off kills, a crash and a reboot relaunch, a force-quit does not"
    )
    func everyAction() async throws {
        let result = try await run(
            """
            {"profile": "ios26",
             "app": {"bundle_id": "com.example.app", "background_modes": ["bluetooth-central"],
                     "restore_identifiers": ["c"],
                     "reactions": [
                       {"on": "launch", "do": [{"scan": "hs"}]},
                       {"on": "discovered", "device": "hs", "do": [{"connect": "hs"}]},
                       {"on": "connected", "device": "hs",
                        "do": [{"subscribe": "hs"}, {"write": {"device": "hs", "hex": "8802"}}]}]},
             "devices": [{"name": "hs", "kind": "headset", "notify_period_s": 3}],
             "timeline": [
               {"at_s": 1, "action": "open"}, {"at_s": 5, "action": "lock"}, {"at_s": 8, "action": "unlock"},
               {"at_s": 12, "action": "home"}, {"at_s": 20, "action": "bluetooth_control_center_off"},
               {"at_s": 30, "action": "bluetooth_control_center_on"}, {"at_s": 40, "action": "airplane_on"},
               {"at_s": 50, "action": "airplane_off"}, {"at_s": 60, "action": "bluetooth_settings_off"},
               {"at_s": 70, "action": "bluetooth_settings_on"}, {"at_s": 80, "action": "open"},
               {"at_s": 90, "action": "crash"}, {"at_s": 100, "action": "reboot", "passcode": true},
               {"at_s": 120, "action": "first_unlock"}, {"at_s": 130, "device": "hs", "action": "stop_notifying"},
               {"at_s": 140, "device": "hs", "action": "start_notifying", "period_s": 2},
               {"at_s": 150, "action": "open"}, {"at_s": 160, "action": "force_quit"}],
             "duration_s": 200,
             "expect": [{"killed": "bluetooth_off_in_settings"}, {"killed": "crash"}, {"killed": "reboot"},
                        {"killed": "force_quit"}, {"launches": 4}, {"relaunches": 2}, {"state": "notRunning"}]}
            """)
        let passed = result.passed
        #expect(passed, "\(result.expectations)")
        // TN3115: a crash relaunches at the next Bluetooth event; a reboot with a passcode only
        // after the first unlock; after a force-quit, never (iOS 26 note 5: not without ASK).
        let relaunches = times(result) { if case .launched(.bluetoothRestoration) = $0 { true } else { false } }
        #expect(relaunches.count == 2)
        #expect((relaunches.last ?? 0) == 120)
        #expect(times(result) { if case .relaunchDenied = $0 { true } else { false } }.allSatisfy { $0 > 160 })
    }

    @Test("A failed expectation is reported with what the trace showed")
    func failedExpectation() async throws {
        let result = try await run(
            """
            {"profile": "ios12", "app": {"bundle_id": "com.example.app"},
             "timeline": [{"at_s": 1, "action": "open"}], "duration_s": 5,
             "expect": [{"state": "suspended"}, {"launches": 1}]}
            """)
        let passed = result.passed
        #expect(!passed)
        #expect(result.expectations.map(\.passed) == [false, true])
        #expect(result.expectations[0].observed.hasPrefix("active at "))
    }
}
