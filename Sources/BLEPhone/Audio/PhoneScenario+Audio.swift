import BLE
import BLESimulation

/// The audio session's part of the scenario format (docs/phone-scenarios.md, "Audio"): the
/// user's music, routes and interruptions on the timeline, the app's session calls as steps and
/// its notifications as triggers, and expectations on the music and the `audio` hold.
extension PhoneScenario {
    /// An audio action of the timeline.
    public enum AudioAction: Sendable, Equatable {
        case startMusic
        case stopMusic
        case route(AudioRoute)
        case interruptionBegins(AudioInterruptionSource)
        case interruptionEnds(AudioInterruptionEnding)
    }

    /// An audio step of a reaction.
    public enum AudioStep: Sendable, Equatable {
        case setCategory(AVAudioSession.Category, options: AVAudioSession.CategoryOptions)
        case activate
        case deactivate(notifyOthers: Bool)
        /// Plays the clip `loops + 1` times (forever when negative) at `volume`.
        case play(AudioClip, loops: Int, volume: Float)
        /// Stops every player the script started.
        case stop
    }

    /// The audio notifications a reaction can answer.
    public enum AudioTrigger: String, Sendable, Equatable, CaseIterable {
        case interruptionBegan = "audio_interruption_began"
        case interruptionEnded = "audio_interruption_ended"
        case routeChanged = "audio_route_changed"
    }

    /// What must hold of the audio at the end.
    public enum AudioExpectation: Sendable, Equatable {
        /// The music changed this way exactly `count` times (any app, or none).
        case music(MusicChange, count: Int)
        /// The music's state at the end.
        case musicAtEnd(MusicState)
        /// The `audio` mode held the app this long in all, at least or at most.
        case heldAtLeast(Duration)
        case heldAtMost(Duration)
    }
}

/// The names and the parsing of the audio parts (one table each, read by parser and encoder).
enum AudioScenario {
    static let a2dpName = "Headset"

    static let actions: [(String, PhoneScenario.AudioAction)] = [
        ("start_music", .startMusic), ("stop_music", .stopMusic),
        ("audio_route_a2dp", .route(.bluetoothA2DP(name: a2dpName))), ("audio_route_headphones", .route(.headphones)),
        ("audio_route_speaker", .route(.builtInSpeaker)), ("phone_call", .interruptionBegins(.phoneCall)),
        ("alarm", .interruptionBegins(.alarm)), ("interruption_ends", .interruptionEnds(.shouldResume)),
        ("interruption_ends_without_resume", .interruptionEnds(.withoutResume)),
        ("interruption_ends_unannounced", .interruptionEnds(.unannounced)),
    ]

    static let stepKeys = ["audio_category", "audio_activate", "audio_deactivate", "play_audio", "stop_audio"]

    static let musicCounts: [(String, MusicChange)] = [
        ("music_ducked", .ducked), ("music_restored", .restored), ("music_interrupted", .interrupted),
        ("music_resumed", .resumed), ("music_not_resumed", .notResumed), ("music_paused_route_lost", .pausedRouteLost),
    ]

    static var expectationKeys: [String] {
        musicCounts.map(\.0) + ["music_at_end", "audio_hold_at_least_s", "audio_hold_at_most_s"]
    }

    typealias Failure = GATTDocumentError

    static func step(_ key: String, _ value: JSONCursor) throws(Failure) -> PhoneScenario.AudioStep {
        switch key {
        case "audio_category":
            if case .string = value.value { return .setCategory(try category(value), options: []) }
            let object = try value.object(allowing: ["category", "options"])
            let chosen = try category(try ScenarioParser.required("category", in: object))
            var options: AVAudioSession.CategoryOptions = []
            for element in try object.member("options")?.array() ?? [] {
                let name = try element.string()
                guard let option = AVAudioSession.CategoryOptions.named(name) else {
                    throw element.fail("unknown option \"\(name)\"; expected one of: mix_with_others, duck_others")
                }
                options.insert(option)
            }
            return .setCategory(chosen, options: options)
        case "audio_activate":
            try ScenarioParser.requireTrue(value)
            return .activate
        case "audio_deactivate":
            if case .bool = value.value {
                try ScenarioParser.requireTrue(value)
                return .deactivate(notifyOthers: false)
            }
            let object = try value.object(allowing: ["notify_others"])
            return .deactivate(notifyOthers: try object.member("notify_others")?.bool() ?? false)
        case "play_audio":
            if case .number = value.value {
                return .play(
                    AudioClip(name: "clip", duration: try ScenarioParser.seconds(value, in: 0.001...86_400)), loops: 0,
                    volume: 1)
            }
            let object = try value.object(allowing: ["seconds", "name", "silent", "loop", "volume"])
            let length = try ScenarioParser.seconds(
                try ScenarioParser.required("seconds", in: object), in: 0.001...86_400)
            let name = try object.member("name")?.string() ?? "clip"
            let clip = AudioClip(name: name, duration: length, isSilent: try object.member("silent")?.bool() ?? false)
            var volume: Float = 1
            if let cursor = object.member("volume") {
                let number = try cursor.number()
                guard (0...1).contains(number) else { throw cursor.fail("expected a volume from 0 to 1") }
                volume = Float(number)
            }
            return .play(clip, loops: try object.member("loop")?.bool() == true ? -1 : 0, volume: volume)
        default:
            try ScenarioParser.requireTrue(value)
            return .stop
        }
    }

    private static func category(_ cursor: JSONCursor) throws(Failure) -> AVAudioSession.Category {
        let name = try cursor.string()
        guard let category = AVAudioSession.Category(rawValue: name) else {
            throw cursor.fail(
                "unknown audio category \"\(name)\"; expected one of: "
                    + AVAudioSession.Category.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return category
    }

    static func expectation(_ key: String, _ value: JSONCursor, duration: Duration) throws(Failure)
        -> PhoneScenario.AudioExpectation
    {
        if let change = musicCounts.first(where: { $0.0 == key })?.1 {
            return .music(change, count: try ScenarioParser.count(value))
        }
        switch key {
        case "music_at_end":
            let name = try value.string()
            guard let state = MusicState(rawValue: name) else {
                throw value.fail("unknown music state \"\(name)\"; expected one of: stopped, playing, interrupted")
            }
            return .musicAtEnd(state)
        case "audio_hold_at_least_s": return .heldAtLeast(try ScenarioParser.seconds(value, in: 0...duration.inSeconds))
        default: return .heldAtMost(try ScenarioParser.seconds(value, in: 0...duration.inSeconds))
        }
    }

    // MARK: Encoding

    static func encode(_ step: PhoneScenario.AudioStep) -> (String, JSONValue) {
        switch step {
        case .setCategory(let category, let options) where options.isEmpty:
            return ("audio_category", .string(category.rawValue))
        case .setCategory(let category, let options):
            return (
                "audio_category",
                .object([
                    "category": .string(category.rawValue), "options": .array(options.names.map(JSONValue.string)),
                ])
            )
        case .activate: return ("audio_activate", .bool(true))
        case .deactivate(false): return ("audio_deactivate", .bool(true))
        case .deactivate(true): return ("audio_deactivate", .object(["notify_others": .bool(true)]))
        case .play(let clip, let loops, let volume):
            var object: [String: JSONValue] = [
                "seconds": ScenarioEncoder.seconds(clip.duration), "name": .string(clip.name),
            ]
            if clip.isSilent { object["silent"] = .bool(true) }
            if loops < 0 { object["loop"] = .bool(true) }
            if volume != 1 { object["volume"] = .number(Double(volume)) }
            return ("play_audio", .object(object))
        case .stop: return ("stop_audio", .bool(true))
        }
    }

    static func encode(_ expectation: PhoneScenario.AudioExpectation) -> (String, JSONValue) {
        switch expectation {
        case .music(let change, let count):
            (musicCounts.first { $0.1 == change }?.0 ?? "music_ducked", .number(Double(count)))
        case .musicAtEnd(let state): ("music_at_end", .string(state.rawValue))
        case .heldAtLeast(let duration): ("audio_hold_at_least_s", ScenarioEncoder.seconds(duration))
        case .heldAtMost(let duration): ("audio_hold_at_most_s", ScenarioEncoder.seconds(duration))
        }
    }
}

extension PhoneScenario.AudioExpectation: CustomStringConvertible {
    public var description: String {
        switch self {
        case .music(let change, let count): "music \(change.rawValue) \(count) time\(count == 1 ? "" : "s")"
        case .musicAtEnd(let state): "music \(state.rawValue) at the end"
        case .heldAtLeast(let duration): "audio hold at least \(ScenarioParser.format(duration.inSeconds)) s"
        case .heldAtMost(let duration): "audio hold at most \(ScenarioParser.format(duration.inSeconds)) s"
        }
    }

    /// Checks the expectation against `trace`: the music's changes whoever caused them, the
    /// hold of `app`.
    func evaluate(_ trace: [PhoneTraceEntry], app: AppIdentifier, end: VirtualInstant) -> (Bool, String) {
        switch self {
        case .music(let change, let count):
            let seen = trace.count { $0.event == .audio(.music(change)) }
            return (seen == count, "\(seen) time\(seen == 1 ? "" : "s")")
        case .musicAtEnd(let expected):
            var state = MusicState.stopped
            for entry in trace where entry.time <= end {
                guard case .audio(.music(let change)) = entry.event else { continue }
                switch change {
                case .started, .resumed: state = .playing
                case .interrupted: state = .interrupted
                case .stopped, .notResumed, .pausedRouteLost: state = .stopped
                case .ducked, .restored: break
                }
            }
            return (state == expected, state.rawValue)
        case .heldAtLeast(let minimum):
            let held = Self.held(trace, app: app, end: end)
            return (held >= minimum, "held \(ScenarioParser.format(held.inSeconds)) s")
        case .heldAtMost(let maximum):
            let held = Self.held(trace, app: app, end: end)
            return (held <= maximum, "held \(ScenarioParser.format(held.inSeconds)) s")
        }
    }

    /// The time the `audio` mode held the app, a hold still on at the end counted to the end.
    static func held(_ trace: [PhoneTraceEntry], app: AppIdentifier, end: VirtualInstant) -> Duration {
        var total = Duration.zero
        var since: VirtualInstant?
        for entry in trace where entry.app == app && entry.time <= end {
            switch entry.event {
            case .audio(.keepAliveStarted): since = since ?? entry.time
            case .audio(.keepAliveEnded):
                if let start = since { total += start.duration(to: entry.time) }
                since = nil
            default: break
            }
        }
        if let start = since { total += start.duration(to: end) }
        return total
    }
}

extension Phone {
    /// Performs a scenario's audio action.
    public func perform(_ action: PhoneScenario.AudioAction) {
        switch action {
        case .startMusic: startMusic()
        case .stopMusic: stopMusic()
        case .route(let route): connectAudioRoute(route)
        case .interruptionBegins(let source): beginAudioInterruption(source)
        case .interruptionEnds(let ending): endAudioInterruption(ending)
        }
    }
}
