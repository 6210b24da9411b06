/// The audio rules' inputs from the user and the system: the music, calls and alarms, routes,
/// the apps' state changes and ends.
extension AudioSessionRules {
    /// The user plays music (Control Center, the Music app): its non-mixing session interrupts
    /// the non-mixing sessions of apps; a ducking session ducks it at once.
    package mutating func startMusic() -> [AudioAction] {
        guard music != .playing else { return [] }
        music = .playing
        var actions: [AudioAction] = [.trace(.music(.started), app: nil)]
        for (app, session) in sessions.sorted(by: { $0.key < $1.key }) where session.active && !session.mixes {
            actions += interrupt(app, by: .music)
        }
        return actions + reconcile(cause: nil)
    }

    /// The user stops the music: the Music app deactivates with `notifyOthersOnDeactivation`
    /// (I: what Apple's apps do), so the sessions it interrupted may resume.
    package mutating func stopMusic() -> [AudioAction] {
        guard music != .stopped else { return [] }
        music = .stopped
        musicInterrupter = nil
        let actions: [AudioAction] = [.trace(.music(.stopped), app: nil)]
        // The ducking's end (traced as restored) follows from the music's state in reconcile.
        return actions + giveBack(from: .music, resume: true, cause: nil) + reconcile(cause: nil)
    }

    /// A phone call or an alarm: every active session is deactivated, its players stopped, and
    /// interruption began posted; the music is interrupted. A second one while one is under way
    /// changes nothing.
    package mutating func beginInterruption(_ source: AudioInterruptionSource) -> [AudioAction] {
        guard interruption == nil else { return [] }
        interruption = source
        var actions: [AudioAction] = [.trace(.interruptionBegan(source), app: nil)]
        if music == .playing {
            music = .interrupted
            musicInterrupter = .system
            actions.append(.trace(.music(.interrupted), app: nil))
        }
        for (app, session) in sessions.sorted(by: { $0.key < $1.key }) where session.active {
            actions += interrupt(app, by: .system)
        }
        return actions + reconcile(cause: nil)
    }

    /// The call or alarm ends: interruption ended is posted (with or without `shouldResume`),
    /// or nothing at all (`unannounced`), and the music resumes only with `shouldResume`.
    package mutating func endInterruption(_ ending: AudioInterruptionEnding) -> [AudioAction] {
        guard interruption != nil else { return [] }
        interruption = nil
        var actions: [AudioAction] = [.trace(.interruptionEnded(ending), app: nil)]
        switch ending {
        case .shouldResume:
            actions += giveBack(from: .system, resume: true, cause: nil)
        case .withoutResume:
            let waiting = sessions.keys.sorted().filter { sessions[$0]!.interruptedBy == .system }
            actions += giveBack(from: .system, resume: false, cause: nil)
            for app in waiting { actions.append(.notify(app, .interruptionEnded(shouldResume: false))) }
        case .unannounced:
            // Nothing is posted; the apps stay interrupted and the music paused.
            actions += giveBack(from: .system, resume: false, cause: nil)
        }
        return actions + reconcile(cause: nil)
    }

    /// The output changes: a headset or headphones arriving is newDeviceAvailable, going back
    /// to the speaker oldDeviceUnavailable — the music pauses then ("Responding to audio route
    /// changes"); players of apps keep playing (pausing is the app's call). Every running app
    /// that has used its session gets the notification.
    package mutating func changeRoute(to new: AudioRoute) -> [AudioAction] {
        let old = route
        guard new != old else { return [] }
        route = new
        let reason: AVAudioSession.RouteChangeReason =
            new == .builtInSpeaker ? .oldDeviceUnavailable : .newDeviceAvailable
        var actions: [AudioAction] = [.trace(.routeChanged(from: old, to: new, reason: reason), app: nil)]
        if reason == .oldDeviceUnavailable, music != .stopped {
            music = .stopped
            musicInterrupter = nil
            actions.append(.trace(.music(.pausedRouteLost), app: nil))
        }
        for (app, session) in sessions.sorted(by: { $0.key < $1.key }) where session.state != .notRunning {
            actions.append(.notify(app, .routeChange(reason: reason, previousRoute: old.routeDescription)))
        }
        return actions + reconcile(cause: nil)
    }

    /// The app changed state. At suspension its players stop (a suspended app runs no code);
    /// with `deactivatesOnSuspension` (iOS 10+) the system also deactivates its session and
    /// posts an interruption (reason appWasSuspended) that the app sees when it runs again.
    package mutating func appStateChanged(_ app: AppIdentifier, to state: AppState, deactivatesOnSuspension: Bool)
        -> [AudioAction]
    {
        guard sessions[app] != nil else { return [] }
        sessions[app]!.state = state
        guard state == .suspended else { return [] }
        var actions = stopPlayers(of: app, .suspended)
        if deactivatesOnSuspension, sessions[app]!.active {
            actions += end(app, .suspended)
            actions += giveBack(from: .app(app), resume: false, cause: app)
            actions.append(.notify(app, .interruptionBegan(reason: .appWasSuspended)))
        }
        return actions + reconcile(cause: app)
    }

    /// The app's process ended: its session and players go with it (what it interrupted is
    /// not told to resume; I).
    package mutating func appTerminated(_ app: AppIdentifier) -> [AudioAction] {
        guard sessions[app] != nil else { return [] }
        var actions = stopPlayers(of: app, .terminated)
        actions += end(app, .terminated)
        actions += giveBack(from: .app(app), resume: false, cause: app)
        // The lifecycle let go of every hold at the kill: only the trace is left to close.
        if sessions[app]!.held { actions.append(.trace(.keepAliveEnded, app: app)) }
        sessions[app] = nil
        return actions + reconcile(cause: nil)
    }
}
