/// What the phone records about the audio session (AVAudioSession), other apps' audio and the route.
public enum AudioSessionEvent: Sendable, Hashable {
    /// `setCategory(_:options:)` succeeded.
    case categorySet(AVAudioSession.Category, options: AVAudioSession.CategoryOptions)
    /// A session call failed with this code (the call named).
    case refused(call: String, AVAudioSessionError.Code)
    case activated(AVAudioSession.Category, options: AVAudioSession.CategoryOptions)
    case deactivated(AudioDeactivation)
    /// A player started (its number, the clip, whether what it plays is silence).
    case playbackStarted(player: Int, clip: String, silent: Bool)
    case playbackEnded(player: Int, AudioPlaybackEnd)
    /// The `audio` mode holds the app: its session is active and it plays.
    case keepAliveStarted
    case keepAliveEnded
    /// The player plays silence: under `AudioReviewPolicy.rejectSilentAudio` it does not hold.
    case silentAudioRejected(player: Int)
    /// The user's music changed (the app is the one whose session caused it, if any).
    case music(MusicChange)
    /// A phone call or an alarm interrupts every session.
    case interruptionBegan(AudioInterruptionSource)
    case interruptionEnded(AudioInterruptionEnding)
    case routeChanged(from: AudioRoute, to: AudioRoute, reason: AVAudioSession.RouteChangeReason)
    /// A notification posted to the app (its handler runs on the app's executor).
    case notified(AVAudioSession.Notification)
}

/// Why a session stopped being active.
public enum AudioDeactivation: Sendable, Hashable {
    /// `setActive(false)`, telling interrupted apps they may resume or not.
    case byApp(notifyingOthers: Bool)
    /// The system deactivated it when it suspended the app (iOS 10+).
    case suspended
    /// A call, an alarm or a non-mixing session took the audio.
    case interrupted
    case terminated
}

/// Why a player stopped.
public enum AudioPlaybackEnd: String, Sendable, Hashable {
    /// It played to its end.
    case finished
    /// The app stopped it.
    case stopped
    /// The app deactivated its session while it played.
    case deactivated
    case interrupted
    /// The app was suspended (without the `audio` mode, background playback ends here).
    case suspended
    case terminated
}

/// A change to the user's music.
public enum MusicChange: String, Sendable, Hashable, CaseIterable {
    case started, stopped, ducked, restored, interrupted, resumed
    /// Paused because its output went away (headphones unplugged), as the Music app does.
    case pausedRouteLost = "paused_route_lost"
    /// Stays paused: the session that interrupted it ended without telling it to resume.
    case notResumed = "not_resumed"
}

extension AudioSessionEvent {
    /// The event's type name, fields, words and timeline role.
    var record: PhoneTraceRecord {
        typealias Field = (name: String, value: PhoneTraceRecord.Value)
        func make(_ type: String, _ fields: [Field], _ words: String, _ role: PhoneTraceRecord.TimelineRole)
            -> PhoneTraceRecord
        {
            PhoneTraceRecord(type: type, fields: fields, words: words, timeline: role)
        }
        func category(_ category: AVAudioSession.Category, _ options: AVAudioSession.CategoryOptions) -> String {
            category.rawValue + (options.isEmpty ? "" : " (" + options.names.joined(separator: ", ") + ")")
        }
        switch self {
        case .categorySet(let value, let options):
            return make(
                "audioCategorySet", [("category", .text(value.rawValue)), ("options", .texts(options.names))],
                "audio category \(category(value, options))", .none)
        case .refused(let call, let code):
            return make(
                "audioRefused", [("call", .text(call)), ("code", .text(code.name))],
                "audio session \(call) failed: \(code.name)", .mark(.audio, label: code.name))
        case .activated(let value, let options):
            return make(
                "audioActivated", [("category", .text(value.rawValue)), ("options", .texts(options.names))],
                "audio session active: \(category(value, options))", .overlay(.audioActive, id: "session", on: true))
        case .deactivated(let why):
            var fields: [Field] = []
            let words: String
            switch why {
            case .byApp(let notifying):
                fields = [("why", .text("app")), ("notify_others", .flag(notifying))]
                words = "audio session inactive" + (notifying ? ", others notified" : "")
            case .suspended:
                fields = [("why", .text("suspended"))]
                words = "audio session deactivated by the system: app suspended"
            case .interrupted:
                fields = [("why", .text("interrupted"))]
                words = "audio session deactivated: interrupted"
            case .terminated:
                fields = [("why", .text("terminated"))]
                words = "audio session ended with the process"
            }
            return make("audioDeactivated", fields, words, .overlay(.audioActive, id: "session", on: false))
        case .playbackStarted(let player, let clip, let silent):
            return make(
                "audioPlaybackStarted",
                [("player", .integer(Int64(player))), ("clip", .text(clip)), ("silent", .flag(silent))],
                "plays '\(clip)'" + (silent ? " (silence)" : "") + " [player \(player)]",
                .overlay(.audioPlaying, id: "player-\(player)", on: true))
        case .playbackEnded(let player, let end):
            return make(
                "audioPlaybackEnded", [("player", .integer(Int64(player))), ("why", .text(end.rawValue))],
                "player \(player) stops: \(end.rawValue)", .overlay(.audioPlaying, id: "player-\(player)", on: false))
        case .keepAliveStarted:
            return make(
                "audioKeepAliveStarted", [], "audio mode keeps the app running (active and playing)",
                .mark(.audio, label: "audio hold"))
        case .keepAliveEnded:
            return make(
                "audioKeepAliveEnded", [], "audio mode no longer holds the app", .mark(.audio, label: "hold ends"))
        case .silentAudioRejected(let player):
            return make(
                "audioSilenceRejected", [("player", .integer(Int64(player)))],
                "player \(player) plays silence: no keep-alive (App Review rejects silent audio)",
                .mark(.audio, label: "silence rejected"))
        case .music(let change):
            let role: PhoneTraceRecord.TimelineRole
            switch change {
            case .ducked: role = .overlay(.audioDucking, id: "music", on: true)
            case .restored: role = .overlay(.audioDucking, id: "music", on: false)
            default: role = .mark(.audio, label: "music \(change.rawValue)")
            }
            return make(
                "music", [("change", .text(change.rawValue))],
                "music " + change.rawValue.replacingOccurrences(of: "_", with: " "),
                role)
        case .interruptionBegan(let source):
            return make(
                "audioInterruptionBegan", [("source", .text(source.rawValue))],
                "audio interruption begins: \(source.rawValue.replacingOccurrences(of: "_", with: " "))",
                .mark(.audio, label: source.rawValue))
        case .interruptionEnded(let ending):
            return make(
                "audioInterruptionEnded", [("ending", .text(ending.rawValue))],
                "audio interruption ends (\(ending.rawValue.replacingOccurrences(of: "_", with: " ")))",
                .mark(.audio, label: "interruption ends"))
        case .routeChanged(let from, let to, let reason):
            return make(
                "audioRouteChanged",
                [("from", .text(from.description)), ("to", .text(to.description)), ("reason", .text(reason.rawValue))],
                "audio route \(from) → \(to) (\(reason.rawValue))", .mark(.audio, label: "route"))
        case .notified(let notification):
            var fields: [Field] = []
            let words: String
            switch notification {
            case .interruptionBegan(let reason):
                fields = [("notification", .text("interruption_began")), ("reason", .text(reason.rawValue))]
                words = "posted: interruption began (\(reason.rawValue))"
            case .interruptionEnded(let resume):
                fields = [("notification", .text("interruption_ended")), ("should_resume", .flag(resume))]
                words = "posted: interruption ended" + (resume ? ", should resume" : "")
            case .routeChange(let reason, _):
                fields = [("notification", .text("route_change")), ("reason", .text(reason.rawValue))]
                words = "posted: route change (\(reason.rawValue))"
            }
            return make("audioNotified", fields, words, .none)
        }
    }
}
