extension Phone {
    // MARK: The user's and the system's audio actions

    /// The user plays music in another app (the phone's "now playing").
    public func startMusic() {
        performAudio(runtime.audio.rules.startMusic())
    }

    /// The user stops the music.
    public func stopMusic() {
        performAudio(runtime.audio.rules.stopMusic())
    }

    /// The audio output changes: a headset connected over A2DP, wired headphones, or back to
    /// the built-in speaker (the headset or headphones gone: oldDeviceUnavailable).
    public func connectAudioRoute(_ route: AudioRoute) {
        performAudio(runtime.audio.rules.changeRoute(to: route))
    }

    /// A phone call rings or an alarm goes off: every audio session is interrupted.
    public func beginAudioInterruption(_ source: AudioInterruptionSource) {
        if let current = runtime.audio.rules.interruption {
            logger.notice("audio interruption \(source.rawValue) ignored: \(current.rawValue) is under way")
            record(.note("audio interruption \(source.rawValue) ignored: \(current.rawValue) is under way"))
            return
        }
        performAudio(runtime.audio.rules.beginInterruption(source))
    }

    /// The call or alarm ends (`unannounced`: no ended is posted, as AVAudioSession allows).
    public func endAudioInterruption(_ ending: AudioInterruptionEnding = .shouldResume) {
        guard runtime.audio.rules.interruption != nil else {
            logger.notice("audio interruption end ignored: none is under way")
            record(.note("audio interruption end ignored: none is under way"))
            return
        }
        performAudio(runtime.audio.rules.endInterruption(ending))
    }

    /// Whether silence keeps an app with the `audio` mode running (App Review's rule).
    public var audioReviewPolicy: AudioReviewPolicy { runtime.audio.rules.reviewPolicy }

    public func setAudioReviewPolicy(_ policy: AudioReviewPolicy) {
        runtime.audio.rules.reviewPolicy = policy
        performAudio(runtime.audio.rules.reconcile(cause: nil))
    }

    /// The user's music.
    public var musicState: MusicState { runtime.audio.rules.music }
    /// The music plays lowered by a ducking session.
    public var isMusicDucked: Bool { runtime.audio.rules.musicDucked }
    public var audioRoute: AudioRoute { runtime.audio.rules.route }

    /// Whether the app's audio session is active.
    public func isAudioSessionActive(of app: AppIdentifier) -> Bool {
        runtime.audio.rules.sessions[app]?.active ?? false
    }

    // MARK: The app's calls (AVAudioSession, AVAudioPlayer)

    /// The app's state and whether it declares the `audio` mode, for the instance of `launch`
    /// (nil: a stale instance).
    private func audioCaller(_ app: AppIdentifier, launch: Int) -> (AppState, Bool)? {
        guard let entry = runtime.apps[app], entry.context?.launchNumber == launch else { return nil }
        return (entry.lifecycle.state, entry.declaration.backgroundModes.contains(.audio))
    }

    func audioSetCategory(
        _ category: AVAudioSession.Category, options: AVAudioSession.CategoryOptions, app: AppIdentifier, launch: Int
    ) -> AVAudioSessionError? {
        guard case let (state, mode)? = audioCaller(app, launch: launch) else {
            return AVAudioSessionError(.expiredSession)
        }
        let (actions, error) = runtime.audio.rules.setCategory(
            category, options: options, app: app, state: state, hasAudioMode: mode)
        performAudio(actions)
        return error
    }

    func audioSetActive(_ active: Bool, notifyOthers: Bool, app: AppIdentifier, launch: Int) -> AVAudioSessionError? {
        guard case let (state, mode)? = audioCaller(app, launch: launch) else {
            return AVAudioSessionError(.expiredSession)
        }
        let (actions, error) =
            active
            ? runtime.audio.rules.activate(app: app, state: state, hasAudioMode: mode)
            : runtime.audio.rules.deactivate(app: app, notifyOthers: notifyOthers)
        performAudio(actions)
        return error
    }

    func audioSession(of app: AppIdentifier) -> AudioSessionRules.Session? {
        runtime.audio.rules.sessions[app]
    }

    func addAudioNotificationHandler(
        _ handler: @escaping @Sendable (AVAudioSession.Notification) async -> Void, app: AppIdentifier, launch: Int
    ) {
        guard audioCaller(app, launch: launch) != nil else { return }
        runtime.audio.handlers[app, default: []].append(handler)
    }

    /// Starts a player; nil when the session cannot be activated.
    func audioPlay(
        _ clip: AudioClip, loops: Int, volume: Float, didFinish: (@Sendable (Bool) async -> Void)?, app: AppIdentifier,
        launch: Int
    ) -> Int? {
        guard case let (state, mode)? = audioCaller(app, launch: launch), state.runsCode else { return nil }
        // numberOfLoops: a negative number loops until stopped (AVAudioPlayer).
        let length: Duration? = loops < 0 ? nil : clip.duration * (loops + 1)
        let (actions, player) = runtime.audio.rules.play(
            clip: clip.name, silent: clip.isSilent, volume: volume, length: length, app: app, state: state,
            hasAudioMode: mode)
        if let player, let didFinish { runtime.audio.finishHandlers[player] = didFinish }
        performAudio(actions)
        return player
    }

    func audioStop(player: Int) {
        performAudio(runtime.audio.rules.stop(player: player))
    }

    func audioSetVolume(_ volume: Float, player: Int) {
        performAudio(runtime.audio.rules.setVolume(volume, player: player))
    }

    func audioIsPlaying(player: Int) -> Bool {
        runtime.audio.rules.playbacks[player] != nil
    }

    // MARK: Performing the rules' actions

    func performAudio(_ actions: [AudioAction]) {
        for action in actions {
            switch action {
            case .trace(let event, let app):
                record(.audio(event), app: app)
            case .notify(let app, let notification):
                record(.audio(.notified(notification)), app: app)
                // Run on the app's executor: a suspended app gets it when it runs again.
                for handler in runtime.audio.handlers[app] ?? [] {
                    runOnApp(app, .audioSessionNotification) { await handler(notification) }
                }
            case .setHold(let app, let held):
                feed(app) { $0.setHold(.audio, held) }
            case .schedulePlaybackEnd(let player, let length):
                schedule(.audio(.playbackEnd(player)), after: length)
            case .cancelPlaybackEnd(let player):
                cancel(.audio(.playbackEnd(player)))
                runtime.audio.finishHandlers[player] = nil
            case .finished(let player, let app):
                if let handler = runtime.audio.finishHandlers.removeValue(forKey: player) {
                    runOnApp(app, .audioSessionNotification) { await handler(true) }
                }
            }
        }
    }

    func audioTimerFired(_ timer: AudioTimer) {
        switch timer {
        case .playbackEnd(let player):
            performAudio(runtime.audio.rules.playbackEnded(player: player))
        }
    }
}
