/// The values of the audio session's model, named as AVFoundation names them
/// (AVAudioSession reference: categories, options, notifications, errors, routes).
extension AVAudioSession {
    /// `AVAudioSession.Category`: what the app's audio is for, which decides whether it mixes
    /// with other apps' audio.
    public enum Category: String, Sendable, Hashable, CaseIterable {
        /// Mixes with others; silenced by the Ring/Silent switch.
        case ambient
        /// The default: does not mix (activating it interrupts others).
        case soloAmbient = "solo_ambient"
        /// Playback the app is for: does not mix unless `mixWithOthers`; with the `audio` mode
        /// it may keep playing in the background.
        case playback
        case playAndRecord = "play_and_record"
        case multiRoute = "multi_route"

        /// Whether `mixWithOthers` and `duckOthers` may be set ("You can set this option only
        /// if the audio session category is playAndRecord, playback, or multiRoute").
        var allowsMixingOptions: Bool {
            switch self {
            case .playback, .playAndRecord, .multiRoute: true
            case .ambient, .soloAmbient: false
            }
        }
    }

    /// `AVAudioSession.CategoryOptions` (the two this model applies).
    public struct CategoryOptions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Mixes with other apps' audio instead of interrupting it.
        public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
        /// Lowers other apps' audio while the session is active; implies `mixWithOthers`.
        public static let duckOthers = CategoryOptions(rawValue: 0x2)

        /// The options' names, for the trace and scenario files.
        public var names: [String] {
            var names: [String] = []
            if contains(.mixWithOthers) { names.append("mix_with_others") }
            if contains(.duckOthers) { names.append("duck_others") }
            return names
        }

        /// The option of a scenario file's name.
        public static func named(_ name: String) -> CategoryOptions? {
            switch name {
            case "mix_with_others": .mixWithOthers
            case "duck_others": .duckOthers
            default: nil
            }
        }
    }

    /// `AVAudioSession.SetActiveOptions`.
    public struct SetActiveOptions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// At deactivation, tells the apps this session interrupted that they may resume.
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 0x1)
    }

    /// What the session's notification handler receives
    /// (`interruptionNotification`, `routeChangeNotification`).
    public enum Notification: Sendable, Hashable {
        /// The session was deactivated by the system and its players stopped.
        case interruptionBegan(reason: InterruptionReason)
        /// The interruption is over; with `shouldResume` the app may play again
        /// (`AVAudioSession.InterruptionOptions.shouldResume`). An ended is not guaranteed.
        case interruptionEnded(shouldResume: Bool)
        case routeChange(reason: RouteChangeReason, previousRoute: AVAudioSessionRouteDescription)
    }

    /// `AVAudioSession.InterruptionReason`.
    public enum InterruptionReason: String, Sendable, Hashable {
        /// Another session (a call, an alarm, a non-mixing app) took the audio.
        case `default`
        /// The system deactivated the session when it suspended the app (iOS 10+), delivered
        /// when the app runs again.
        case appWasSuspended = "app_was_suspended"
    }

    /// `AVAudioSession.RouteChangeReason` (the two a headset produces).
    public enum RouteChangeReason: String, Sendable, Hashable {
        /// A headset or headphones became the output.
        case newDeviceAvailable = "new_device_available"
        /// The output went away (headphones unplugged, a headset disconnected): apps should
        /// pause, as the Music app does.
        case oldDeviceUnavailable = "old_device_unavailable"
    }

    /// `AVAudioSession.Port` (outputs).
    public struct Port: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let builtInSpeaker = Port(rawValue: "Speaker")
        public static let headphones = Port(rawValue: "Headphones")
        public static let bluetoothA2DP = Port(rawValue: "BluetoothA2DPOutput")
    }
}

/// `AVAudioSessionRouteDescription`: the outputs audio goes to.
public struct AVAudioSessionRouteDescription: Sendable, Hashable {
    public var outputs: [AVAudioSessionPortDescription]
    public init(outputs: [AVAudioSessionPortDescription]) { self.outputs = outputs }
}

/// `AVAudioSessionPortDescription`.
public struct AVAudioSessionPortDescription: Sendable, Hashable {
    public var portType: AVAudioSession.Port
    public var portName: String
    public init(portType: AVAudioSession.Port, portName: String) {
        self.portType = portType
        self.portName = portName
    }
}

/// An error of the session's calls, with AVFoundation's code (`AVAudioSession.ErrorCode`).
public struct AVAudioSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        /// `paramErr` (-50): an option the category does not allow.
        case badParam = -50
        /// '!int': a non-mixing session activated by an app in the background that is not
        /// playing ("cannotInterruptOthers").
        case cannotInterruptOthers = 0x2169_6e74
        /// '!pri': a higher-priority session (a phone call) holds the audio.
        case insufficientPriority = 0x2170_7269
        /// '!act': deactivated while players were running (they are stopped and the session is
        /// deactivated anyway: `setActive(_:options:)`).
        case isBusy = 0x2161_6374
        /// '!ses': the call came from an instance the system no longer runs.
        case expiredSession = 0x2173_6573

        public var name: String {
            switch self {
            case .badParam: "bad_param"
            case .cannotInterruptOthers: "cannot_interrupt_others"
            case .insufficientPriority: "insufficient_priority"
            case .isBusy: "is_busy"
            case .expiredSession: "expired_session"
            }
        }
    }

    public var code: Code
    public init(_ code: Code) { self.code = code }
    public var description: String { "AVAudioSession error \(code.name) (\(code.rawValue))" }
}

/// Where the phone's audio goes: the built-in speaker, wired headphones or a headset over A2DP.
public enum AudioRoute: Sendable, Hashable, CustomStringConvertible {
    case builtInSpeaker
    case headphones
    case bluetoothA2DP(name: String)

    /// The route as `currentRoute` reports it.
    public var routeDescription: AVAudioSessionRouteDescription {
        switch self {
        case .builtInSpeaker:
            AVAudioSessionRouteDescription(outputs: [.init(portType: .builtInSpeaker, portName: "Speaker")])
        case .headphones:
            AVAudioSessionRouteDescription(outputs: [.init(portType: .headphones, portName: "Headphones")])
        case .bluetoothA2DP(let name):
            AVAudioSessionRouteDescription(outputs: [.init(portType: .bluetoothA2DP, portName: name)])
        }
    }

    public var description: String {
        switch self {
        case .builtInSpeaker: "speaker"
        case .headphones: "headphones"
        case .bluetoothA2DP(let name): "A2DP '\(name)'"
        }
    }
}

/// What interrupts every audio session of the phone (a `Phone` action).
public enum AudioInterruptionSource: String, Sendable, Hashable, CaseIterable {
    case phoneCall = "phone_call"
    case alarm
}

/// How a system interruption ends.
public enum AudioInterruptionEnding: String, Sendable, Hashable, CaseIterable {
    /// Ended with `shouldResume` (a call hung up): interrupted music resumes.
    case shouldResume = "should_resume"
    /// Ended without `shouldResume`: interrupted apps and the music stay paused.
    case withoutResume = "without_resume"
    /// No ended is posted at all (AVAudioSession: "there is no guarantee that a begin
    /// interruption will have an end interruption").
    case unannounced
}

/// How App Review's rule on the audio mode is applied (phone-rules.md, "Keep-alive": review
/// rejects apps that play silence to stay alive).
public enum AudioReviewPolicy: String, Sendable, Hashable, CaseIterable {
    /// What the OS itself does: any playing session holds the app, silent or not.
    case allowSilentAudio = "allow_silent_audio"
    /// Silence (a silent clip, volume 0) does not keep the app running; the trace records the
    /// rejection.
    case rejectSilentAudio = "reject_silent_audio"
}

/// The user's music, played by another app (the Music app): the phone's "now playing".
public enum MusicState: String, Sendable, Hashable {
    case stopped
    case playing
    /// Paused by another session; it resumes if told so (`notifyOthersOnDeactivation`, a call
    /// ended with `shouldResume`).
    case interrupted
}
