/// The phone's audio as a value-type state machine: every app's session (category, options,
/// active or not, its players), the user's music in another app, the output route and the
/// system interruption under way. It takes one input at a time — an app's call, a user or
/// system action, a player's end, an app's state change — and returns what the phone must do
/// (trace, post a notification, take or let go of the `audio` hold, set a timer), doing no I/O.
///
/// The rules (AVAudioSession reference, "Audio Session Programming Guide", phone-rules.md):
/// - a session that does not mix (soloAmbient, playback/playAndRecord/multiRoute without
///   `mixWithOthers`) interrupts the music and other non-mixing sessions when it becomes
///   active; `ambient` and `mixWithOthers` mix; `duckOthers` (which implies `mixWithOthers`)
///   lowers the music while the session is active;
/// - `setActive(false, .notifyOthersOnDeactivation)` tells what it interrupted that it may
///   resume (the Music app does); without it the music stays paused;
/// - a phone call or an alarm interrupts every active session and the music; its end may
///   carry `shouldResume`, or never be posted;
/// - the `audio` mode keeps an app running only while its session is active and a player
///   plays (phone-rules.md "Keep-alive"), silence excepted under `rejectSilentAudio`;
/// - since iOS 10 the system deactivates the session of an app it suspends; players stop at
///   suspension on every profile.
package struct AudioSessionRules: Sendable {
    package internal(set) var music: MusicState = .stopped
    /// The music plays lowered by a ducking session (its "ducked" / "restored" changes).
    package internal(set) var musicDucked = false
    package internal(set) var route: AudioRoute = .builtInSpeaker
    /// The phone call or alarm under way.
    package internal(set) var interruption: AudioInterruptionSource?
    package internal(set) var sessions: [AppIdentifier: Session] = [:]
    package internal(set) var playbacks: [Int: Playback] = [:]
    package var reviewPolicy: AudioReviewPolicy = .allowSilentAudio
    /// Who interrupted the music (it resumes only when told by them).
    var musicInterrupter: Interrupter?
    private var nextPlayer = 1

    package init() {}

    /// What took the audio from a session or the music.
    package enum Interrupter: Sendable, Hashable {
        case app(AppIdentifier)
        case music
        case system
    }

    /// One app's session.
    package struct Session: Sendable, Hashable {
        package var category: AVAudioSession.Category = .soloAmbient
        package var options: AVAudioSession.CategoryOptions = []
        package var active = false
        package var hasAudioMode = false
        package var state: AppState = .active
        /// The `audio` hold is taken.
        package var held = false
        /// Interrupted and waiting for an ended from this interrupter.
        package var interruptedBy: Interrupter?

        /// ambient always mixes; duckOthers implies mixWithOthers (AVAudioSession.CategoryOptions).
        package var mixes: Bool {
            category == .ambient || !options.intersection([.mixWithOthers, .duckOthers]).isEmpty
        }
        package var ducks: Bool { options.contains(.duckOthers) }
        package var inFront: Bool { state == .active || state == .inactive }
    }

    /// A player that plays.
    package struct Playback: Sendable, Hashable {
        package var app: AppIdentifier
        package var clip: String
        package var silentClip: Bool
        package var volume: Float
        /// The rejection of its silence was traced.
        package var rejectionTraced = false
        package var silent: Bool { silentClip || volume <= 0 }
    }

    // MARK: The app's calls

    /// `setCategory(_:options:)`: `mixWithOthers` and `duckOthers` only with playback,
    /// playAndRecord and multiRoute (paramErr otherwise). An active session's new mixing
    /// applies at once.
    package mutating func setCategory(
        _ category: AVAudioSession.Category, options: AVAudioSession.CategoryOptions, app: AppIdentifier,
        state: AppState, hasAudioMode: Bool
    ) -> ([AudioAction], AVAudioSessionError?) {
        touch(app, state: state, hasAudioMode: hasAudioMode)
        guard options.isEmpty || category.allowsMixingOptions else {
            return ([.trace(.refused(call: "setCategory", .badParam), app: app)], AVAudioSessionError(.badParam))
        }
        sessions[app]!.category = category
        sessions[app]!.options = options
        var actions: [AudioAction] = [.trace(.categorySet(category, options: options), app: app)]
        if sessions[app]!.active, !sessions[app]!.mixes { actions += takeAudio(for: app) }
        return (actions + reconcile(cause: app), nil)
    }

    /// `setActive(true)`: refused during a call for a session that does not mix
    /// (insufficientPriority), and for a non-mixing session of an app in the background that
    /// is not playing (cannotInterruptOthers).
    package mutating func activate(app: AppIdentifier, state: AppState, hasAudioMode: Bool)
        -> ([AudioAction], AVAudioSessionError?)
    {
        touch(app, state: state, hasAudioMode: hasAudioMode)
        let session = sessions[app]!
        if session.active { return ([], nil) }
        if !session.mixes {
            if interruption != nil {
                return refuse("setActive", .insufficientPriority, app)
            }
            if !session.inFront, !isPlaying(app) {
                return refuse("setActive", .cannotInterruptOthers, app)
            }
        }
        sessions[app]!.active = true
        sessions[app]!.interruptedBy = nil
        var actions: [AudioAction] = [.trace(.activated(session.category, options: session.options), app: app)]
        if !session.mixes { actions += takeAudio(for: app) }
        return (actions + reconcile(cause: app), nil)
    }

    /// `setActive(false, options:)`: running players are stopped and the session deactivated
    /// anyway, with isBusy; `notifyOthersOnDeactivation` lets what it interrupted resume.
    package mutating func deactivate(app: AppIdentifier, notifyOthers: Bool) -> ([AudioAction], AVAudioSessionError?) {
        guard sessions[app]?.active == true else { return ([], nil) }
        let busy = isPlaying(app)
        var actions = stopPlayers(of: app, .deactivated)
        actions += end(app, .byApp(notifyingOthers: notifyOthers))
        actions += giveBack(from: .app(app), resume: notifyOthers, cause: app)
        actions += reconcile(cause: app)
        if busy { actions.append(.trace(.refused(call: "setActive(false)", .isBusy), app: app)) }
        return (actions, busy ? AVAudioSessionError(.isBusy) : nil)
    }

    /// A player's `play()`: activates the session first if it is not (AVAudioPlayer `play()`);
    /// nil when that fails. A clip that loops forever has no end timer.
    package mutating func play(
        clip: String, silent: Bool, volume: Float, length: Duration?, app: AppIdentifier, state: AppState,
        hasAudioMode: Bool
    ) -> ([AudioAction], Int?) {
        var actions: [AudioAction] = []
        if sessions[app]?.active != true {
            let (activation, error) = activate(app: app, state: state, hasAudioMode: hasAudioMode)
            actions += activation
            if error != nil { return (actions, nil) }
        }
        let player = nextPlayer
        nextPlayer += 1
        playbacks[player] = Playback(app: app, clip: clip, silentClip: silent, volume: volume)
        actions.append(.trace(.playbackStarted(player: player, clip: clip, silent: silent || volume <= 0), app: app))
        if let length { actions.append(.schedulePlaybackEnd(player, after: length)) }
        return (actions + reconcile(cause: app), player)
    }

    /// The app stops a player.
    package mutating func stop(player: Int) -> [AudioAction] {
        guard let playback = playbacks.removeValue(forKey: player) else { return [] }
        return [.cancelPlaybackEnd(player), .trace(.playbackEnded(player: player, .stopped), app: playback.app)]
            + reconcile(cause: playback.app)
    }

    package mutating func setVolume(_ volume: Float, player: Int) -> [AudioAction] {
        guard playbacks[player] != nil else { return [] }
        playbacks[player]!.volume = volume
        return reconcile(cause: playbacks[player]!.app)
    }

    /// A player reached the end of its clip.
    package mutating func playbackEnded(player: Int) -> [AudioAction] {
        guard let playback = playbacks.removeValue(forKey: player) else { return [] }
        return [.trace(.playbackEnded(player: player, .finished), app: playback.app), .finished(player, playback.app)]
            + reconcile(cause: playback.app)
    }

    // MARK: Shared steps

    private mutating func touch(_ app: AppIdentifier, state: AppState, hasAudioMode: Bool) {
        sessions[app, default: Session()].state = state
        sessions[app]!.hasAudioMode = hasAudioMode
    }

    private func refuse(_ call: String, _ code: AVAudioSessionError.Code, _ app: AppIdentifier)
        -> ([AudioAction], AVAudioSessionError?)
    {
        ([.trace(.refused(call: call, code), app: app)], AVAudioSessionError(code))
    }

    package func isPlaying(_ app: AppIdentifier) -> Bool {
        playbacks.values.contains { $0.app == app }
    }

    /// A non-mixing session of `app` takes the audio: the music and the other non-mixing
    /// sessions are interrupted.
    private mutating func takeAudio(for app: AppIdentifier) -> [AudioAction] {
        var actions: [AudioAction] = []
        if music == .playing {
            music = .interrupted
            musicInterrupter = .app(app)
            actions.append(.trace(.music(.interrupted), app: app))
        }
        for (other, session) in sessions.sorted(by: { $0.key < $1.key })
        where other != app && session.active && !session.mixes {
            actions += interrupt(other, by: .app(app))
        }
        return actions
    }

    /// The system deactivates `app`'s session for `interrupter`, stops its players and posts
    /// interruption began.
    mutating func interrupt(_ app: AppIdentifier, by interrupter: Interrupter) -> [AudioAction] {
        var actions = stopPlayers(of: app, .interrupted)
        actions += end(app, .interrupted)
        sessions[app]!.interruptedBy = interrupter
        actions.append(.notify(app, .interruptionBegan(reason: .default)))
        return actions
    }

    mutating func end(_ app: AppIdentifier, _ why: AudioDeactivation) -> [AudioAction] {
        guard sessions[app]?.active == true else { return [] }
        sessions[app]!.active = false
        return [.trace(.deactivated(why), app: app)]
    }

    mutating func stopPlayers(of app: AppIdentifier, _ why: AudioPlaybackEnd) -> [AudioAction] {
        var actions: [AudioAction] = []
        for player in playbacks.keys.sorted() where playbacks[player]!.app == app {
            playbacks[player] = nil
            actions += [.cancelPlaybackEnd(player), .trace(.playbackEnded(player: player, why), app: app)]
        }
        return actions
    }

    /// `interrupter` lets go of the audio: what it interrupted is told it may resume
    /// (`resume`) or stays paused.
    mutating func giveBack(from interrupter: Interrupter, resume: Bool, cause: AppIdentifier?) -> [AudioAction] {
        var actions: [AudioAction] = []
        if music == .interrupted, musicInterrupter == interrupter {
            if resume && canMusicPlay {
                music = .playing
                actions.append(.trace(.music(.resumed), app: cause))
            } else {
                music = .stopped
                actions.append(.trace(.music(.notResumed), app: cause))
            }
            musicInterrupter = nil
        }
        for (app, session) in sessions.sorted(by: { $0.key < $1.key }) where session.interruptedBy == interrupter {
            sessions[app]!.interruptedBy = nil
            if resume { actions.append(.notify(app, .interruptionEnded(shouldResume: true))) }
        }
        return actions
    }

    /// No call, and no active session that does not mix.
    private var canMusicPlay: Bool {
        interruption == nil && !sessions.values.contains { $0.active && !$0.mixes }
    }

    /// Brings the music's ducking and the apps' `audio` holds in line with the sessions.
    mutating func reconcile(cause: AppIdentifier?) -> [AudioAction] {
        var actions: [AudioAction] = []
        let duck = music == .playing && sessions.values.contains { $0.active && $0.ducks }
        if duck != musicDucked {
            musicDucked = duck
            actions.append(.trace(.music(duck ? .ducked : .restored), app: cause))
        }
        for app in sessions.keys.sorted() {
            let session = sessions[app]!
            var wants = false
            if session.hasAudioMode, session.active {
                for player in playbacks.keys.sorted() where playbacks[player]!.app == app {
                    let playback = playbacks[player]!
                    if !playback.silent || reviewPolicy == .allowSilentAudio {
                        wants = true
                    } else if !playback.rejectionTraced {
                        playbacks[player]!.rejectionTraced = true
                        actions.append(.trace(.silentAudioRejected(player: player), app: app))
                    }
                }
            }
            if wants != session.held {
                sessions[app]!.held = wants
                actions.append(.trace(wants ? .keepAliveStarted : .keepAliveEnded, app: app))
                actions.append(.setHold(app, wants))
            }
        }
        return actions
    }
}

/// What the audio rules ask the phone to do.
package enum AudioAction: Sendable, Equatable {
    case trace(AudioSessionEvent, app: AppIdentifier?)
    /// Post the notification to the app's handlers (on its executor).
    case notify(AppIdentifier, AVAudioSession.Notification)
    /// Take or let go of `ExecutionHold.audio`.
    case setHold(AppIdentifier, Bool)
    case schedulePlaybackEnd(Int, after: Duration)
    case cancelPlaybackEnd(Int)
    /// The player played to its end: run its `didFinishPlaying`.
    case finished(Int, AppIdentifier)
}
