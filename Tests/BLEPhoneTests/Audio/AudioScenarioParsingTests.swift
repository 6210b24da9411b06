import BLESimulation
import Foundation
import Testing

@testable import BLEPhone

/// The audio part of the scenario format (docs/phone-scenarios.md, "Audio").
@Suite("Scenario files: audio")
struct AudioScenarioParsingTests {
    func scenario(reactions: String = "", timeline: String = "", expect: String = "") -> String {
        """
        {"profile": "ios17", "duration_s": 60,
         "app": {"bundle_id": "com.example.app", "reactions": [\(reactions)]},
         "timeline": [\(timeline)], "expect": [\(expect)]}
        """
    }

    func error(_ json: String) -> PhoneScenarioError? {
        do {
            _ = try PhoneScenario(parsing: Array(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test("Audio actions, steps, triggers and expectations survive the round trip")
    func roundTrip() throws {
        let scenario = PhoneScenario(
            profile: .init(name: "ios12"),
            app: .init(
                bundleIdentifier: "com.example.app", backgroundModes: [.audio],
                reactions: [
                    .init(
                        on: .becomeActive,
                        do: [
                            .audio(.setCategory(.playback, options: [.duckOthers, .mixWithOthers])),
                            .audio(.setCategory(.ambient, options: [])), .audio(.activate),
                            .audio(.play(AudioClip(name: "p", duration: .seconds(2)), loops: 0, volume: 1)),
                            .audio(
                                .play(
                                    AudioClip(name: "s", duration: .seconds(1), isSilent: true), loops: -1, volume: 0.5)
                            ),
                            .audio(.stop), .audio(.deactivate(notifyOthers: true)),
                            .audio(.deactivate(notifyOthers: false)),
                        ]),
                    .init(on: .audio(.interruptionEnded), do: [.audio(.activate)]),
                    .init(on: .audio(.routeChanged), do: [.audio(.stop)]),
                ]),
            timeline: AudioScenario.actions.enumerated().map {
                PhoneScenario.TimelineStep(at: .seconds($0.offset), .audio($0.element.1))
            },
            duration: .seconds(60),
            expectations: AudioScenario.musicCounts.map { PhoneScenario.Expectation.audio(.music($0.1, count: 2)) } + [
                .audio(.musicAtEnd(.interrupted)), .audio(.heldAtLeast(.seconds(3))),
                .audio(.heldAtMost(.seconds(4.5))),
            ])
        let again = try PhoneScenario(parsing: Array(scenario.json.utf8))
        #expect(again == scenario)
    }

    @Test("Audio mistakes are located errors naming the choices")
    func errors() {
        let cases: [(String, String)] = [
            (
                scenario(reactions: #"{"on": "launch", "do": [{"audio_category": "loud"}]}"#),
                #"app.reactions[0].do[0].audio_category: unknown audio category "loud"; expected one of: ambient, solo_ambient, playback"#
            ),
            (
                scenario(
                    reactions:
                        #"{"on": "launch", "do": [{"audio_category": {"category": "playback", "options": ["duck"]}}]}"#),
                #"app.reactions[0].do[0].audio_category.options[0]: unknown option "duck""#
            ),
            (
                scenario(reactions: #"{"on": "launch", "do": [{"play_audio": {"seconds": 2, "volume": 2}}]}"#),
                "app.reactions[0].do[0].play_audio.volume: expected a volume from 0 to 1"
            ),
            (
                scenario(reactions: #"{"on": "launch", "do": [{"play_audio": {"name": "x"}}]}"#),
                #"missing key "seconds""#
            ),
            (scenario(reactions: #"{"on": "launch", "do": [{"audio_activate": false}]}"#), "expected true"),
            (
                scenario(reactions: #"{"on": "audio_interrupted", "do": []}"#),
                "audio_interruption_began, audio_interruption_ended, audio_route_changed"
            ),
            (scenario(timeline: #"{"at_s": 1, "action": "phone_cal"}"#), "start_music, stop_music, audio_route_a2dp"),
            (scenario(expect: #"{"music_at_end": "loud"}"#), #"expect[0].music_at_end: unknown music state "loud""#),
            (scenario(expect: #"{"audio_hold_at_least_s": 61}"#), "expected seconds from 0 to 60"),
        ]
        for (json, message) in cases {
            let failure = error(json)
            #expect(failure?.description.contains(message) == true, "\(json) → \(failure?.description ?? "parsed")")
            #expect(failure?.line != nil)
        }
    }

    @Test("The audio expectations read the trace: music changes of any app, the music at the end, the app's hold time")
    func evaluate() {
        let app = AppIdentifier("com.example.app")
        let at = { (seconds: Int64) in VirtualInstant(nanoseconds: seconds * 1_000_000_000) }
        let trace: [PhoneTraceEntry] = [
            .init(time: at(0), app: nil, event: .audio(.music(.started))),
            .init(time: at(1), app: AppIdentifier("other"), event: .audio(.music(.ducked))),
            .init(time: at(3), app: AppIdentifier("other"), event: .audio(.music(.restored))),
            .init(time: at(5), app: app, event: .audio(.keepAliveStarted)),
            .init(time: at(8), app: app, event: .audio(.keepAliveEnded)),
            .init(time: at(20), app: app, event: .audio(.keepAliveStarted)),
            .init(time: at(22), app: app, event: .audio(.music(.interrupted))),
        ]
        func check(_ expectation: PhoneScenario.AudioExpectation) -> Bool {
            PhoneScenario.Expectation.audio(expectation).evaluate(trace, app: app, end: at(30)).passed
        }
        #expect(check(.music(.ducked, count: 1)) && !check(.music(.ducked, count: 2)))
        #expect(check(.musicAtEnd(.interrupted)) && !check(.musicAtEnd(.playing)))
        // 3 s, then 10 s still on at the end.
        #expect(check(.heldAtLeast(.seconds(13))) && !check(.heldAtLeast(.seconds(13.5))))
        #expect(check(.heldAtMost(.seconds(13))) && !check(.heldAtMost(.seconds(12.5))))
    }

    @Test("The audio example parses; every truncation and byte substitution of it is a located error, never a trap")
    func damagedExample() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/examples/phone/audio-duck-and-keep-alive.json")
        let bytes = try [UInt8](Data(contentsOf: url))
        _ = try PhoneScenario(parsing: bytes)
        expectDamageIsLocated(bytes, every: 7)
    }
}
