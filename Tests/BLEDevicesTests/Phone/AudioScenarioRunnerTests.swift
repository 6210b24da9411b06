import BLEDevices
import BLEPhone
import BLESimulation
import Foundation
import Testing

/// The audio part of the scenario format, run by the scripted app (docs/phone-scenarios.md,
/// "Audio").
@Suite("Phone scenarios: audio")
struct AudioScenarioRunnerTests {
    static var example: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/examples/phone/audio-duck-and-keep-alive.json")
    }

    @Test(
        "The example: a ducking prompt restores the music; the audio mode holds the app from home until the call interrupts it (2 s + 20 s of hold); the call's end resumes the music"
    )
    func example() async throws {
        let bytes = try [UInt8](Data(contentsOf: Self.example))
        let result = try await PhoneScenarioRunner.run(try PhoneScenario(parsing: bytes))
        #expect(result.passed, "\(result.expectations)")
        let seconds = { (match: (PhoneTraceEvent) -> Bool) in
            result.trace.filter { match($0.event) }.map {
                Double($0.time.nanoseconds - result.origin.nanoseconds) / 1e9
            }
        }
        #expect(seconds { $0 == .audio(.music(.ducked)) } == [1])
        #expect(seconds { $0 == .audio(.music(.restored)) } == [4])
        // The hold is taken whenever the app plays, in front too (where it changes nothing).
        #expect(seconds { $0 == .audio(.keepAliveStarted) } == [1, 10])
        #expect(seconds { $0 == .audio(.keepAliveEnded) } == [3, 30])
        #expect(seconds { $0 == .audio(.music(.resumed)) } == [60])
        // Suspended 1 s after the hold ended; the ended notification waits until it runs again.
        #expect(seconds { $0 == .stateChanged(from: .background, to: .suspended) } == [31])
        #expect(seconds { $0 == .note("interruption ended") } == [])
    }

    @Test("A failing expectation says what the trace showed")
    func failingExpectation() async throws {
        let json = """
            {"profile": "ios17",
             "app": {"bundle_id": "com.example.app",
                     "reactions": [{"on": "become_active", "do": [{"audio_category": "playback"}, {"audio_activate": true}]}]},
             "timeline": [{"at_s": 0, "action": "start_music"}, {"at_s": 1, "action": "open"}],
             "duration_s": 10,
             "expect": [{"music_interrupted": 1}, {"music_ducked": 1}, {"music_at_end": "interrupted"}]}
            """
        let result = try await PhoneScenarioRunner.run(try PhoneScenario(parsing: Array(json.utf8)))
        #expect(result.expectations.map(\.passed) == [true, false, true])
        #expect(result.expectations[1].observed == "0 times")
    }

    @Test(
        "Audio triggers: the route change and the call's began reach the script on the app's executor; the alarm never ends, so a later non-mixing activation fails (insufficientPriority), noted"
    )
    func triggers() async throws {
        let json = """
            {"profile": "ios12",
             "app": {"bundle_id": "com.example.app",
                     "reactions": [
                       {"on": "launch", "do": [{"audio_category": "ambient"}, {"audio_activate": true}]},
                       {"on": "audio_route_changed", "do": [{"note": "route changed"}]},
                       {"on": "audio_interruption_began", "do": [{"note": "interrupted"}]},
                       {"on": "enter_background", "do": [{"audio_category": "playback"}, {"audio_activate": true}]}]},
             "timeline": [{"at_s": 1, "action": "open"}, {"at_s": 2, "action": "audio_route_a2dp"},
                          {"at_s": 3, "action": "alarm"}, {"at_s": 4, "action": "home"}],
             "duration_s": 10,
             "expect": [{"note": "route changed"}, {"note": "interrupted"},
                        {"note": "audio_activate failed: insufficient_priority"}]}
            """
        let result = try await PhoneScenarioRunner.run(try PhoneScenario(parsing: Array(json.utf8)))
        #expect(result.passed, "\(result.expectations)")
    }
}
