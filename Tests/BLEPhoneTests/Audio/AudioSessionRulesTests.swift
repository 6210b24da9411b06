import Testing

@testable import BLEPhone

/// The audio rules one input at a time (AVAudioSession reference; phone-rules.md
/// "AVAudioSession").
@Suite("Audio session: rules")
struct AudioSessionRulesTests {
    /// Category, options, and whether activating it interrupts the music.
    static let mixing: [(AVAudioSession.Category, AVAudioSession.CategoryOptions, Bool)] = [
        (.ambient, [], false), (.playback, .mixWithOthers, false), (.playAndRecord, .mixWithOthers, false),
        (.soloAmbient, [], true), (.playback, [], true), (.playAndRecord, [], true), (.multiRoute, [], true),
    ]

    let app = AppIdentifier("com.example.audio")
    let other = AppIdentifier("com.example.other")

    /// The music changes among the actions.
    func music(_ actions: [AudioAction]) -> [MusicChange] {
        actions.compactMap { if case .trace(.music(let change), _) = $0 { change } else { nil } }
    }

    func notifications(_ actions: [AudioAction], to target: AppIdentifier) -> [AVAudioSession.Notification] {
        actions.compactMap { if case .notify(target, let notification) = $0 { notification } else { nil } }
    }

    func holds(_ actions: [AudioAction]) -> [Bool] {
        actions.compactMap { if case .setHold(_, let held) = $0 { held } else { nil } }
    }

    func configured(
        _ category: AVAudioSession.Category, _ options: AVAudioSession.CategoryOptions = [], state: AppState = .active,
        mode: Bool = false, musicPlaying: Bool = true
    ) -> AudioSessionRules {
        var rules = AudioSessionRules()
        if musicPlaying { _ = rules.startMusic() }
        let (_, error) = rules.setCategory(category, options: options, app: app, state: state, hasAudioMode: mode)
        #expect(error == nil)
        return rules
    }

    @Test("duckOthers lowers the music while the session is active and restores it at deactivation")
    func duckAndRestore() {
        var rules = configured(.playback, .duckOthers)
        let (activation, error) = rules.activate(app: app, state: .active, hasAudioMode: false)
        #expect(error == nil)
        #expect(music(activation) == [.ducked])
        #expect(rules.musicDucked && rules.music == .playing)
        let (deactivation, _) = rules.deactivate(app: app, notifyOthers: true)
        #expect(music(deactivation) == [.restored])
        #expect(!rules.musicDucked && rules.music == .playing)
    }

    @Test(
        "Mixing: ambient and mixWithOthers leave the music playing; soloAmbient, playback and playAndRecord without it interrupt it",
        arguments: Self.mixing)
    func mixOrInterrupt(category: AVAudioSession.Category, options: AVAudioSession.CategoryOptions, interrupts: Bool) {
        var rules = configured(category, options)
        let (actions, _) = rules.activate(app: app, state: .active, hasAudioMode: false)
        #expect(music(actions) == (interrupts ? [.interrupted] : []))
        #expect(rules.music == (interrupts ? .interrupted : .playing))
    }

    @Test(
        "mixWithOthers and duckOthers only with playback, playAndRecord and multiRoute: paramErr otherwise",
        arguments: [AVAudioSession.Category.ambient, .soloAmbient])
    func optionsNeedTheirCategory(category: AVAudioSession.Category) {
        var rules = AudioSessionRules()
        for options in [AVAudioSession.CategoryOptions.mixWithOthers, .duckOthers] {
            let (actions, error) = rules.setCategory(
                category, options: options, app: app, state: .active, hasAudioMode: false)
            #expect(error?.code == .badParam)
            #expect(actions == [.trace(.refused(call: "setCategory", .badParam), app: app)])
        }
        #expect(rules.sessions[app]?.category == .soloAmbient)
    }

    @Test(
        "notifyOthersOnDeactivation lets the interrupted music resume; without it the music stays paused"
    )
    func notifyOthers() {
        for notify in [true, false] {
            var rules = configured(.playback)
            _ = rules.activate(app: app, state: .active, hasAudioMode: false)
            #expect(rules.music == .interrupted)
            let (actions, _) = rules.deactivate(app: app, notifyOthers: notify)
            #expect(music(actions) == [notify ? .resumed : .notResumed])
            #expect(rules.music == (notify ? .playing : .stopped))
        }
    }

    @Test("A non-mixing session interrupts another app's; its deactivation with notify posts ended with shouldResume")
    func appInterruptsApp() {
        var rules = configured(.playback, musicPlaying: false)
        _ = rules.activate(app: app, state: .active, hasAudioMode: false)
        _ = rules.setCategory(.playback, options: [], app: other, state: .active, hasAudioMode: false)
        let (taken, _) = rules.activate(app: other, state: .active, hasAudioMode: false)
        #expect(notifications(taken, to: app) == [.interruptionBegan(reason: .default)])
        #expect(rules.sessions[app]?.active == false)
        let (given, _) = rules.deactivate(app: other, notifyOthers: true)
        #expect(notifications(given, to: app) == [.interruptionEnded(shouldResume: true)])
    }

    @Test(
        "A call interrupts every active session (began) and the music; its end posts ended with shouldResume and the music resumes"
    )
    func callWithResume() {
        var rules = configured(.playback, .mixWithOthers)
        _ = rules.activate(app: app, state: .active, hasAudioMode: false)
        let began = rules.beginInterruption(.phoneCall)
        #expect(notifications(began, to: app) == [.interruptionBegan(reason: .default)])
        #expect(music(began) == [.interrupted])
        #expect(rules.sessions[app]?.active == false)
        let ended = rules.endInterruption(.shouldResume)
        #expect(notifications(ended, to: app) == [.interruptionEnded(shouldResume: true)])
        #expect(music(ended) == [.resumed])
    }

    @Test(
        "An interruption may end without shouldResume, or never be announced: then nothing is posted and the music stays paused"
    )
    func callWithoutResume() {
        var rules = configured(.playback)
        _ = rules.activate(app: app, state: .active, hasAudioMode: false)
        var quiet = rules
        _ = rules.beginInterruption(.alarm)
        let ended = rules.endInterruption(.withoutResume)
        #expect(notifications(ended, to: app) == [.interruptionEnded(shouldResume: false)])
        _ = quiet.beginInterruption(.phoneCall)
        let unannounced = quiet.endInterruption(.unannounced)
        #expect(notifications(unannounced, to: app) == [])
        #expect(unannounced.contains(.trace(.interruptionEnded(.unannounced), app: nil)))
    }

    @Test("During a call a non-mixing session cannot be activated (insufficientPriority); a mixing one can")
    func activationDuringCall() {
        var rules = configured(.playback)
        _ = rules.beginInterruption(.phoneCall)
        #expect(rules.activate(app: app, state: .active, hasAudioMode: false).1?.code == .insufficientPriority)
        _ = rules.setCategory(.playback, options: .duckOthers, app: app, state: .active, hasAudioMode: false)
        #expect(rules.activate(app: app, state: .active, hasAudioMode: false).1 == nil)
    }

    @Test("In the background a non-mixing session that does not play cannot be activated (cannotInterruptOthers)")
    func backgroundActivation() {
        var rules = configured(.playback, state: .background)
        #expect(rules.activate(app: app, state: .background, hasAudioMode: true).1?.code == .cannotInterruptOthers)
        #expect(rules.music == .playing)
        _ = rules.setCategory(.playback, options: .duckOthers, app: app, state: .background, hasAudioMode: true)
        #expect(rules.activate(app: app, state: .background, hasAudioMode: true).1 == nil)
        #expect(rules.musicDucked)
    }

    @Test("Deactivating while a player runs stops it and deactivates anyway, with isBusy")
    func deactivateWhilePlaying() {
        var rules = configured(.playback, musicPlaying: false)
        let (_, player) = rules.play(
            clip: "a", silent: false, volume: 1, length: .seconds(5), app: app, state: .active, hasAudioMode: false)
        #expect(player != nil && rules.sessions[app]?.active == true)
        let (actions, error) = rules.deactivate(app: app, notifyOthers: false)
        #expect(error?.code == .isBusy)
        #expect(actions.contains(.trace(.playbackEnded(player: player!, .deactivated), app: app)))
        #expect(rules.sessions[app]?.active == false && rules.playbacks.isEmpty)
    }

    @Test(
        "Routes: a headset over A2DP is newDeviceAvailable; back to the speaker is oldDeviceUnavailable and the music pauses"
    )
    func routes() {
        var rules = configured(.playback, .mixWithOthers)
        let connected = rules.changeRoute(to: .bluetoothA2DP(name: "Headset"))
        #expect(
            notifications(connected, to: app) == [
                .routeChange(reason: .newDeviceAvailable, previousRoute: AudioRoute.builtInSpeaker.routeDescription)
            ])
        #expect(rules.route.routeDescription.outputs.map(\.portType) == [.bluetoothA2DP])
        let lost = rules.changeRoute(to: .builtInSpeaker)
        #expect(
            notifications(lost, to: app) == [
                .routeChange(
                    reason: .oldDeviceUnavailable,
                    previousRoute: AudioRoute.bluetoothA2DP(name: "Headset").routeDescription)
            ])
        #expect(music(lost) == [.pausedRouteLost])
        #expect(rules.music == .stopped)
    }

    @Test("The audio hold: an app with the audio mode whose session is active and plays; it ends with the clip")
    func hold() {
        var rules = configured(.playback, mode: true, musicPlaying: false)
        let (started, player) = rules.play(
            clip: "a", silent: false, volume: 1, length: .seconds(5), app: app, state: .active, hasAudioMode: true)
        #expect(holds(started) == [true])
        #expect(started.contains(.trace(.keepAliveStarted, app: app)))
        let ended = rules.playbackEnded(player: player!)
        #expect(holds(ended) == [false])
        #expect(ended.contains(.finished(player!, app)))
        // Without the mode, no hold.
        var modeless = configured(.playback, musicPlaying: false)
        #expect(
            holds(
                modeless.play(
                    clip: "a", silent: false, volume: 1, length: nil, app: app, state: .active, hasAudioMode: false
                ).0) == [])
    }

    @Test(
        "App Review's rule: under rejectSilentAudio silence (a silent clip, volume 0) does not hold, and the rejection is traced"
    )
    func silenceRejected() {
        var rules = configured(.playback, mode: true, musicPlaying: false)
        rules.reviewPolicy = .rejectSilentAudio
        let (started, player) = rules.play(
            clip: "silence", silent: true, volume: 1, length: nil, app: app, state: .active, hasAudioMode: true)
        #expect(holds(started) == [])
        #expect(started.contains(.trace(.silentAudioRejected(player: player!), app: app)))
        // An audible player at volume 0 is silence too; turned up, it holds.
        var quiet = configured(.playback, mode: true, musicPlaying: false)
        quiet.reviewPolicy = .rejectSilentAudio
        let (_, second) = quiet.play(
            clip: "song", silent: false, volume: 0, length: nil, app: app, state: .active, hasAudioMode: true)
        #expect(holds(quiet.setVolume(0.5, player: second!)) == [true])
        // The OS's own rule: silence holds.
        var allowed = configured(.playback, mode: true, musicPlaying: false)
        #expect(
            holds(
                allowed.play(
                    clip: "silence", silent: true, volume: 1, length: nil, app: app, state: .active, hasAudioMode: true
                ).0) == [true])
    }

    @Test(
        "Suspension (iOS 10+) stops players, deactivates the session and posts an interruption (appWasSuspended); before iOS 10 the session stays active",
        arguments: [true, false])
    func suspension(deactivates: Bool) {
        var rules = configured(.playback, .duckOthers)
        _ = rules.play(clip: "a", silent: false, volume: 1, length: nil, app: app, state: .active, hasAudioMode: false)
        #expect(rules.musicDucked)
        _ = rules.appStateChanged(app, to: .background, deactivatesOnSuspension: deactivates)
        let actions = rules.appStateChanged(app, to: .suspended, deactivatesOnSuspension: deactivates)
        #expect(rules.playbacks.isEmpty)
        #expect(rules.sessions[app]?.active == !deactivates)
        #expect(notifications(actions, to: app) == (deactivates ? [.interruptionBegan(reason: .appWasSuspended)] : []))
        #expect(rules.musicDucked == !deactivates)
        #expect(PhoneProfile.ios6.deactivatesAudioSessionOnSuspension == false)
        #expect(PhoneProfile.ios12.deactivatesAudioSessionOnSuspension)
    }

    @Test("Music started over a non-mixing session interrupts it; stopping the music posts ended with shouldResume")
    func musicInterruptsApp() {
        var rules = configured(.playback, musicPlaying: false)
        _ = rules.activate(app: app, state: .active, hasAudioMode: false)
        let started = rules.startMusic()
        #expect(notifications(started, to: app) == [.interruptionBegan(reason: .default)])
        let stopped = rules.stopMusic()
        #expect(notifications(stopped, to: app) == [.interruptionEnded(shouldResume: true)])
    }

    @Test(
        "An interruption that never ends: no ended is ever posted, the music stays interrupted, a non-mixing session cannot come back; a second call changes nothing"
    )
    func neverEnds() {
        var rules = configured(.playback, musicPlaying: true)
        _ = rules.setCategory(.playback, options: .mixWithOthers, app: app, state: .active, hasAudioMode: false)
        _ = rules.activate(app: app, state: .active, hasAudioMode: false)
        let began = rules.beginInterruption(.phoneCall)
        #expect(notifications(began, to: app) == [.interruptionBegan(reason: .default)])
        #expect(rules.beginInterruption(.alarm) == [])
        _ = rules.setCategory(.playback, options: [], app: app, state: .active, hasAudioMode: false)
        #expect(rules.activate(app: app, state: .active, hasAudioMode: false).1?.code == .insufficientPriority)
        #expect(rules.stopMusic().contains(.trace(.music(.stopped), app: nil)))
        #expect(rules.interruption == .phoneCall && rules.sessions[app]?.interruptedBy == .system)
    }
}
