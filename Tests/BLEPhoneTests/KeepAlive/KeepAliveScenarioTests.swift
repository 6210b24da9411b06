import BLESimulation
import Testing

@testable import BLEPhone

/// The keep-alive part of the scenario format: round trip, located errors, expectations.
@Suite("Keep-alive: scenario files")
struct KeepAliveScenarioTests {
    private func error(_ json: String) -> PhoneScenarioError? {
        do {
            _ = try PhoneScenario(parsing: Array(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test("Keep-alive actions, steps, triggers and expectations survive parse → encode → parse")
    func roundTrip() throws {
        let region = CLCircularRegion(
            center: CLLocationCoordinate2D(latitude: 48.5, longitude: 2.25), radius: 150, identifier: "home")
        let scenario = PhoneScenario(
            profile: .init(name: "ios17"),
            app: .init(
                bundleIdentifier: "com.example.app", backgroundModes: [.location, .voip, .remoteNotification],
                reactions: [
                    .init(
                        on: .launch,
                        do: [
                            .keepAlive(.startLocationUpdates(allowsBackground: true)),
                            .keepAlive(.monitorSignificantChanges), .keepAlive(.monitorRegion(region)),
                            .keepAlive(.download(session: "sync", bytes: 1_000_000)),
                        ]),
                    .init(on: .keepAlive(.urlSessionEvents), do: [.keepAlive(.completeURLSession)]),
                    .init(on: .keepAlive(.voipPush), do: [.keepAlive(.reportCall)]),
                    .init(on: .keepAlive(.silentPush), do: [.note("push")]),
                    .init(on: .keepAlive(.location), do: [.keepAlive(.stopLocationUpdates), .keepAlive(.endCall)]),
                ]),
            timeline: [
                .init(at: .seconds(1), .keepAlive(.moveTo(latitude: 48.25, longitude: -2.5))),
                .init(at: .seconds(2), .keepAlive(.voipPush)), .init(at: .seconds(3), .keepAlive(.silentPush)),
                .init(at: .seconds(4), .keepAlive(.endCall)), .init(at: .seconds(5), .keepAlive(.network(.none))),
            ],
            duration: .seconds(60),
            expectations: [
                .keepAlive(.woken("location", times: 2)), .keepAlive(.launchedFor("voip_push", times: nil)),
                .killed(.voipPushNotReported), .killed(.urlSessionCompletionOverrun),
            ])
        let again = try PhoneScenario(parsing: Array(scenario.json.utf8))
        #expect(again == scenario)
    }

    @Test("Keep-alive mistakes are located errors")
    func errors() {
        let app = #""app": {"bundle_id": "x"}"#
        let cases: [(String, String)] = [
            (
                #"{"profile": "ios17", \#(app), "duration_s": 9, "timeline": [{"at_s": 1, "action": "move_to", "latitude": 91, "longitude": 0}]}"#,
                "timeline[0].latitude: expected degrees from -90 to 90"
            ),
            (
                #"{"profile": "ios17", \#(app), "duration_s": 9, "timeline": [{"at_s": 1, "action": "move_to", "latitude": 1}]}"#,
                #"timeline[0]: missing key "longitude""#
            ),
            (
                #"{"profile": "ios17", \#(app), "duration_s": 9, "timeline": [{"at_s": 1, "action": "network", "network": "5g"}]}"#,
                #"timeline[0].network: unknown network "5g"; expected one of: none, cellular, wifi"#
            ),
            (
                #"{"profile": "ios17", \#(app), "duration_s": 9, "timeline": [{"at_s": 1, "action": "open", "network": "wifi"}]}"#,
                #"timeline[0].network: "network" applies only to network"#
            ),
            (
                #"{"profile": "ios17", \#(app), "duration_s": 9, "timeline": [{"at_s": 1, "action": "voip_push", "latitude": 1}]}"#,
                #"timeline[0].latitude: "latitude" applies only to move_to"#
            ),
            (
                #"{"profile": "ios17", "app": {"bundle_id": "x", "reactions": [{"on": "launch", "do": [{"download": {"session": "s", "bytes": -1}}]}]}, "duration_s": 9}"#,
                "app.reactions[0].do[0].download.bytes: expected an integer in 0…1099511627776"
            ),
            (
                #"{"profile": "ios17", "app": {"bundle_id": "x", "reactions": [{"on": "launch", "do": [{"monitor_region": {"id": "r", "latitude": 0, "longitude": 0, "radius_m": 0}}]}]}, "duration_s": 9}"#,
                "app.reactions[0].do[0].monitor_region.radius_m: expected metres above 0"
            ),
            (
                #"{"profile": "ios17", \#(app), "duration_s": 9, "expect": [{"woken": "lunch"}]}"#,
                #"expect[0].woken: unknown reason "lunch""#
            ),
            (
                #"{"profile": "ios17", \#(app), "duration_s": 9, "expect": [{"launches": 1, "times": 2}]}"#,
                #"expect[0].times: "times" applies only to woken, launched_for and task_ran"#
            ),
        ]
        for (json, expected) in cases {
            let failure = error(json)
            #expect(
                failure?.description.contains(expected) == true, "\(failure?.description ?? "parsed") ≠ \(expected)")
            #expect((failure?.line ?? 0) >= 1)
        }
    }

    @Test("woken and launched_for count the trace's wakes and launches by reason")
    func expectations() {
        let app = AppIdentifier("a")
        let t = VirtualInstant.zero
        let trace = [
            PhoneTraceEntry(time: t, app: app, event: .launched(.urlSession("s"))),
            PhoneTraceEntry(time: t, app: app, event: .woken(.location, until: t)),
            PhoneTraceEntry(time: t, app: app, event: .woken(.location, until: t)),
            PhoneTraceEntry(time: t, app: app, event: .woken(.silentPush, until: t)),
        ]
        func passes(_ expectation: PhoneScenario.KeepAliveExpectation) -> Bool {
            PhoneScenario.Expectation.keepAlive(expectation).evaluate(trace, app: app, end: t).passed
        }
        #expect(passes(.woken("location", times: 2)))
        #expect(!passes(.woken("location", times: 1)))
        #expect(passes(.woken("silent_push", times: nil)))
        #expect(!passes(.woken("voip_push", times: nil)))
        #expect(passes(.launchedFor("url_session", times: 1)))
        #expect(passes(.launchedFor("location", times: 0)))
    }
}
