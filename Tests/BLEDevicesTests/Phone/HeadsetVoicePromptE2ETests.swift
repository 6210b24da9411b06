import BLE
import BLECompanion
import BLEController
import BLEDevices
import BLEPhone
import BLESimulation
import Testing

/// The headset app's voice prompt on the whole phone: the headset reports a low battery, the
/// woken app sets its session to playback with duckOthers, plays a 2 s prompt over the user's
/// music and deactivates with notifyOthersOnDeactivation (AVAudioSession `duckOthers`,
/// `setActive(_:options:)`; phone-rules.md "AVAudioSession").
@Suite("Phone end to end: the headset app's voice prompt ducks the music")
struct HeadsetVoicePromptE2ETests {
    @Test(
        "A battery-low report: the music is ducked while the 2 s prompt plays, then restored; the app, woken in the background, is suspended again",
        arguments: [PhoneProfile.ios12, .ios17])
    func duckAndRestore(profile: PhoneProfile) async throws {
        let radio = VirtualRadio()
        let observer = HeadsetAppObserver()
        let (music, appAudio, states, prompts) = try await radio.simulation.run {
            // The headset's script counts from its start.
            let origin = radio.simulation.now
            let headset = try await VirtualHeadset.start(
                on: radio, position: AirPosition(x: 2, y: 0, z: 0),
                configuration: VirtualHeadsetConfiguration(
                    heartbeatPeriod: nil, events: .scripted([ScriptedHeadsetEvent(after: .seconds(30), .battery(15))])))
            let phone = await Phone(profile: profile, radio: radio)
            var made = HeadsetAppConfiguration.bluetoothCentral()
            made.voicePrompt = HeadsetVoicePrompt(on: .batteryBelow(percent: 20), duration: .seconds(2))
            let configuration = made
            await phone.install(configuration.declaration) { context in
                HeadsetPhoneApp(context: context, configuration: configuration, observer: observer)
            }
            let app = AppIdentifier(HeadsetAppConfiguration.bundleIdentifier)
            await phone.startMusic()
            await phone.open(app)
            try await radio.simulation.clock.sleep(for: .seconds(10))
            await phone.home()
            try await radio.simulation.clock.sleep(until: origin.advanced(by: .seconds(60)))
            #expect(await phone.musicState == .playing)
            #expect(await !phone.isMusicDucked)
            await headset.stop()
            let trace = await phone.trace
            let music = trace.compactMap { entry -> (MusicChange, Duration)? in
                guard case .audio(.music(let change)) = entry.event else { return nil }
                return (change, origin.duration(to: entry.time))
            }
            let appAudio = trace.compactMap { entry -> AudioSessionEvent? in
                guard entry.app == app, case .audio(let event) = entry.event else { return nil }
                if case .notified = event { return nil }
                return event
            }
            let states = trace.compactMap { entry -> (AppState, Duration)? in
                guard entry.app == app, case .stateChanged(_, let to) = entry.event else { return nil }
                return (to, origin.duration(to: entry.time))
            }
            return (music, appAudio, states, observer.counts.voicePrompts)
        }
        #expect(prompts == 1)
        #expect(music.map(\.0) == [.started, .ducked, .restored])
        let ducked = music[1].1
        let restored = music[2].1
        // The report leaves the headset at 30 s (plus the link's latency); the prompt is 2 s.
        #expect(ducked >= .seconds(30) && ducked < .seconds(31))
        #expect(restored - ducked == .seconds(2))
        #expect(
            appAudio == [
                .categorySet(.playback, options: .duckOthers), .activated(.playback, options: .duckOthers),
                .music(.ducked), .playbackStarted(player: 1, clip: "battery low", silent: false),
                .playbackEnded(player: 1, .finished), .deactivated(.byApp(notifyingOthers: true)), .music(.restored),
            ])
        // Woken by the report in the background (not in front), suspended again afterwards.
        let stateAtDuck = states.last { $0.1 <= ducked }?.0
        #expect(stateAtDuck == .background)
        #expect(states.last?.0 == .suspended)
    }

    @Test("The prompt is off by default: the demo's app configurations play nothing")
    func offByDefault() {
        #expect(HeadsetAppConfiguration.bluetoothCentral().voicePrompt == nil)
        #expect(HeadsetAppConfiguration.foregroundOnly().voicePrompt == nil)
    }
}
