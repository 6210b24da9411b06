import BLESimulation
import Testing

@testable import BLEPhone

/// The scenario format's task pieces (docs/phone-scenarios.md, "Scheduled background tasks"):
/// they round-trip, mistakes are located, expectations read the trace.
@Suite("Scheduled tasks: scenario files")
struct ScheduledTaskScenarioTests {
    private func parse(_ json: String) throws(PhoneScenarioError) -> PhoneScenario {
        try PhoneScenario(parsing: Array(json.utf8))
    }

    private func failure(_ json: String) -> PhoneScenarioError? {
        do {
            _ = try parse(json)
            return nil
        } catch {
            return error
        }
    }

    private func app(_ extra: String) -> String {
        #"{"profile": "ios17", "app": {"bundle_id": "x", "background_modes": ["fetch"], "permitted_task_identifiers": ["r"]"#
            + extra + #"}, "duration_s": 100"#
    }

    @Test("Every task field survives parse → encode → parse")
    func roundTrip() throws {
        var app = PhoneScenario.App(
            bundleIdentifier: "com.example.tasks", backgroundModes: [.fetch, .processing],
            reactions: [
                .init(
                    on: .launch,
                    do: [
                        .tasks(.submitRefresh("r", earliest: nil)), .tasks(.submitRefresh("r", earliest: .seconds(60))),
                        .tasks(
                            .submitProcessing(
                                "p", earliest: .seconds(3_600), requiresExternalPower: true, requiresNetwork: true)),
                        .tasks(
                            .submitProcessing("p", earliest: nil, requiresExternalPower: false, requiresNetwork: false)),
                        .tasks(.cancel("p")),
                    ]),
                .init(on: .scheduledTask("r"), do: [.tasks(.complete(success: true))]),
                .init(on: .scheduledTask(nil), do: [.note("any")]),
                .init(on: .taskExpiration, do: [.tasks(.complete(success: false))]),
            ])
        app.permittedTaskIdentifiers = ["r", "p"]
        let scenario = PhoneScenario(
            profile: .init(name: "ios26"), app: app,
            timeline: [
                .init(at: .seconds(1), .open),
                .init(
                    at: .seconds(2),
                    .tasks(
                        .setConditions(
                            .init(
                                charging: true, batteryLevel: 15, lowPowerMode: false, network: .cellular,
                                backgroundAppRefresh: true)))),
                .init(at: .seconds(3), .tasks(.setConditions(.init(network: PhoneConditions.Network.none)))),
                .init(at: .seconds(4), .tasks(.simulateLaunch("r"))),
                .init(at: .seconds(5), .tasks(.simulateExpiration("r"))),
            ],
            duration: .seconds(100),
            expectations: [
                .tasks(.ran("r", times: 2, notBefore: .seconds(60))), .tasks(.ran("p", times: nil, notBefore: nil)),
                .tasks(.completed("r", success: true)), .tasks(.completed("p", success: nil)),
                .killed(.scheduledTaskOverrun),
            ])
        #expect(try parse(scenario.json) == scenario)
        #expect(scenario.app.declaration.permittedTaskIdentifiers == ["r", "p"])
    }

    @Test("Mistakes in task keys are errors at their paths")
    func locatedErrors() {
        let cases: [(String, String)] = [
            (
                #"{"profile": "ios17", "app": {"bundle_id": "x", "permitted_task_identifiers": [""]}, "duration_s": 1}"#,
                #"app.permitted_task_identifiers[0]: expected a task identifier of 1 to 255 octets"#
            ),
            (
                app(#", "reactions": [{"on": "launch", "task": "r", "do": []}]"#) + "}",
                #"app.reactions[0].task: "task" applies only to "scheduled_task""#
            ),
            (
                app(
                    #", "reactions": [{"on": "launch", "do": [{"submit_refresh": {"task": "r", "requires_network": true}}]}]"#
                ) + "}",
                #"app.reactions[0].do[0].submit_refresh: unknown key "requires_network""#
            ),
            (
                app(#", "reactions": [{"on": "launch", "do": [{"submit_processing": {"earliest_s": 1}}]}]"#) + "}",
                #"app.reactions[0].do[0].submit_processing: missing key "task""#
            ),
            (
                app("")
                    + #", "timeline": [{"at_s": 1, "action": "set_conditions", "conditions": {"battery_percent": 101}}]}"#,
                "timeline[0].conditions.battery_percent"
            ),
            (
                app("") + #", "timeline": [{"at_s": 1, "action": "set_conditions", "conditions": {"network": "5g"}}]}"#,
                #"timeline[0].conditions.network: unknown network "5g"; expected one of: none, cellular, wifi"#
            ),
            (
                app("") + #", "timeline": [{"at_s": 1, "action": "simulate_task_launch"}]}"#,
                #"timeline[0]: missing key "task""#
            ),
            (
                app("") + #", "timeline": [{"at_s": 1, "action": "open", "task": "r"}]}"#,
                #"timeline[0].task: "task" applies only to set_conditions and the simulate_task_ actions"#
            ),
            (
                app("") + #", "expect": [{"task_ran": "r", "success": true}]}"#,
                #"expect[0].success: "success" applies only to task_completed"#
            ),
            (
                app("") + #", "expect": [{"launches": 1, "times": 2}]}"#,
                #"expect[0].times: "times" applies only to woken, launched_for and task_ran"#
            ),
            (
                app("") + #", "expect": [{"task_completed": "r", "not_before_s": 2}]}"#,
                #"expect[0].not_before_s: "not_before_s" applies only to task_ran"#
            ),
        ]
        for (json, expected) in cases {
            let error = failure(json)
            #expect(
                error.map { "\($0.path): \($0.problem)" }?.hasPrefix(expected) == true,
                "\(json) → \(String(describing: error))")
            #expect((error?.line ?? 0) >= 1)
        }
    }

    @Test("task_ran counts starts and checks not_before_s; task_completed checks the outcome")
    func expectations() {
        let app = AppIdentifier("x")
        func at(_ seconds: Int64) -> VirtualInstant { VirtualInstant(nanoseconds: seconds * 1_000_000_000) }
        let trace = [
            PhoneTraceEntry(
                time: at(100), app: app, event: .scheduledTask(.started("r", run: 1, until: at(130), simulated: false))),
            PhoneTraceEntry(
                time: at(110), app: app, event: .scheduledTask(.completed("r", run: 1, success: false, bySystem: true))),
        ]
        func passes(_ expectation: PhoneScenario.TaskExpectation) -> Bool {
            PhoneScenario.Expectation.tasks(expectation).evaluate(trace, app: app, end: at(200)).passed
        }
        #expect(passes(.ran("r", times: 1, notBefore: .seconds(100))))
        #expect(!passes(.ran("r", times: 1, notBefore: .seconds(101))))
        #expect(!passes(.ran("r", times: 2, notBefore: nil)))
        #expect(!passes(.ran("other", times: nil, notBefore: nil)))
        #expect(passes(.ran("other", times: 0, notBefore: nil)))
        #expect(passes(.completed("r", success: false)))
        #expect(!passes(.completed("r", success: true)))
    }
}
