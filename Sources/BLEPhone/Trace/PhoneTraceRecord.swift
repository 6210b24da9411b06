import BLESimulation

/// One trace event taken apart once, for every rendering: its stable type name and fields (the
/// JSON), its words (the readable lines) and its role on the timeline picture. The only switch
/// over `PhoneTraceEvent`'s cases is `PhoneTraceEvent.record`; the renderers read records.
public struct PhoneTraceRecord: Sendable, Equatable {
    /// A field's value: text, a whole number or a flag (the JSON keeps the kind).
    public enum Value: Sendable, Hashable {
        case text(String)
        case integer(Int64)
        case flag(Bool)
        case texts([String])
    }

    /// Where the event goes on the timeline picture (`PhoneTimelineSVG`).
    public enum TimelineRole: Sendable, Hashable {
        /// The app enters this state: a new band.
        case state(AppState)
        /// A Bluetooth event, drawn as a marker of its fate.
        case bluetooth(BluetoothMark)
        /// A wake into the background until the instant: an overlay.
        case wake(until: VirtualInstant)
        case taskBegan(identifier: Int)
        /// The task ended (or its app died): its overlay stops here.
        case taskEnded(identifier: Int)
        /// A labelled tick (launches, kills, alerts, user and system actions).
        case tick(TickKind, label: String)
        /// An overlay that starts (`on`) or stops: a scheduled task's run, the audio session's
        /// state, location updates, a call. `id` pairs the start with its stop.
        case overlay(OverlayKind, id: String, on: Bool)
        /// A small labelled mark: a task requested, a push received, a file shared.
        case mark(MarkKind, label: String)
        /// Not drawn (callbacks, scene changes, notes).
        case none
    }

    /// The fate of a Bluetooth event.
    public enum BluetoothMark: String, Sendable, Hashable, CaseIterable {
        case delivered, queued, coalesced, dropped
    }

    public enum TickKind: String, Sendable, Hashable, CaseIterable {
        case launch, kill, alert, action, restoration, denial
    }

    /// What an overlay shows.
    public enum OverlayKind: String, Sendable, Hashable, CaseIterable {
        case scheduledTask, audioActive, audioPlaying, audioDucking, location, call, eventHandling
    }

    /// What a mark shows.
    public enum MarkKind: String, Sendable, Hashable, CaseIterable {
        case taskRequest, push, urlSession, location, document, audio
    }

    /// The event's type, a `PhoneTraceEvent` case name (stable: docs/phone-scenarios.md lists them).
    public var type: String
    /// The event's fields in a fixed order; absent optionals are left out.
    public var fields: [(name: String, value: Value)]
    /// The event in words, not yet escaped (summaries and notes may hold over-the-air text: the
    /// renderers escape).
    public var words: String
    public var timeline: TimelineRole

    public init(type: String, fields: [(name: String, value: Value)], words: String, timeline: TimelineRole) {
        self.type = type
        self.fields = fields
        self.words = words
        self.timeline = timeline
    }

    public static func == (lhs: PhoneTraceRecord, rhs: PhoneTraceRecord) -> Bool {
        lhs.type == rhs.type && lhs.words == rhs.words && lhs.timeline == rhs.timeline
            && lhs.fields.map(\.name) == rhs.fields.map(\.name) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }
}

extension PhoneTraceEvent {
    /// The event's type name, fields, words and timeline role (the one switch over the cases).
    public var record: PhoneTraceRecord {
        switch self {
        case .user(let action): return action.record
        case .system(let action): return action.record
        case .launched(let reason):
            var fields: [(name: String, value: PhoneTraceRecord.Value)] = [("reason", .text(reason.name))]
            var words = "launched"
            switch reason {
            case .user: words += " by the user"
            case .processRestart(let options):
                fields.append(("centrals", .texts(options.bluetoothCentrals)))
                fields.append(("peripherals", .texts(options.bluetoothPeripherals)))
                let names = options.bluetoothCentrals + options.bluetoothPeripherals
                words += " again (the process restarted)"
                if !names.isEmpty { words += " to restore " + names.map { "'\($0)'" }.joined(separator: ", ") }
            case .bluetoothRestoration(let options):
                fields.append(("centrals", .texts(options.bluetoothCentrals)))
                fields.append(("peripherals", .texts(options.bluetoothPeripherals)))
                let names = options.bluetoothCentrals + options.bluetoothPeripherals
                words += " in the background to restore " + names.map { "'\($0)'" }.joined(separator: ", ")
            case .scheduledTask(let identifier):
                fields.append(("task", .text(identifier)))
                words += " in the background to run task '\(identifier)'"
            case .location: words += " in the background for a location event"
            case .urlSession(let identifier):
                fields.append(("session", .text(identifier)))
                words += " in the background: URLSession '\(identifier)' finished"
            case .voipPush: words += " in the background for a VoIP push"
            case .silentPush: words += " in the background for a silent push"
            case .openDocument(let url):
                fields.append(("url", .text(url)))
                words += " to open \(url)"
            }
            return PhoneTraceRecord(
                type: "launched", fields: fields, words: words, timeline: .tick(.launch, label: "launch"))
        case .stateChanged(let from, let to):
            return PhoneTraceRecord(
                type: "stateChanged", fields: [("from", .text(from.rawValue)), ("to", .text(to.rawValue))],
                words: "\(from) → \(to)", timeline: .state(to))
        case .sceneStateChanged(let from, let to):
            return PhoneTraceRecord(
                type: "sceneStateChanged", fields: [("from", .text(from.rawValue)), ("to", .text(to.rawValue))],
                words: "scene \(from) → \(to)", timeline: .none)
        case .callbackStarted(let callback):
            return PhoneTraceRecord(
                type: "callbackStarted", fields: [("callback", .text(callback.rawValue))],
                words: "\(callback) begins", timeline: .none)
        case .callbackFinished(let callback):
            return PhoneTraceRecord(
                type: "callbackFinished", fields: [("callback", .text(callback.rawValue))],
                words: "\(callback) returns", timeline: .none)
        case .eventQueued(let kind, let summary):
            return bluetooth("eventQueued", kind, summary, "queued", .queued)
        case .eventCoalesced(let kind, let summary):
            return bluetooth("eventCoalesced", kind, summary, "coalesced", .coalesced)
        case .eventDelivered(let kind, let summary):
            return bluetooth("eventDelivered", kind, summary, "delivered", .delivered)
        case .eventDropped(let kind, let summary, let why):
            var record = bluetooth("eventDropped", kind, summary, "dropped", .dropped)
            record.fields.append(("why", .text(why)))
            record.words += " (\(why))"
            return record
        case .woken(.bluetooth(let kind), let until):
            return PhoneTraceRecord(
                type: "woken",
                fields: [
                    ("reason", .text("bluetooth")), ("kind", .text(kind.rawValue)),
                    ("until_ms", .integer(until.milliseconds)),
                ],
                words: "woken by Bluetooth (\(kind)) until \(PhoneTraceText.time(until))", timeline: .wake(until: until)
            )
        case .woken(let reason, let until):
            return PhoneTraceRecord(
                type: "woken", fields: [("reason", .text(reason.name)), ("until_ms", .integer(until.milliseconds))],
                words: "woken by \(reason.words) until \(PhoneTraceText.time(until))", timeline: .wake(until: until))
        case .scheduledTask(let event): return event.record
        case .audio(let event): return event.record
        case .keepAlive(let event): return event.record
        case .document(let event): return event.record
        case .alert(let text):
            return PhoneTraceRecord(
                type: "alert", fields: [("text", .text(text))], words: "system alert: \(text)",
                timeline: .tick(.alert, label: "alert"))
        case .backgroundTaskBegan(let identifier, let name):
            return task("backgroundTaskBegan", identifier, name, "begins", .taskBegan(identifier: identifier))
        case .backgroundTaskEnded(let identifier, let name):
            return task("backgroundTaskEnded", identifier, name, "ends", .taskEnded(identifier: identifier))
        case .backgroundTaskExpiring(let identifier, let name):
            return task("backgroundTaskExpiring", identifier, name, "expires soon", .none)
        case .backgroundTaskRefused(let name):
            return PhoneTraceRecord(
                type: "backgroundTaskRefused", fields: name.map { [("name", .text($0))] } ?? [],
                words: "background task \(name.map { "'\($0)' " } ?? "")refused (.invalid)", timeline: .none)
        case .killed(let reason):
            var fields: [(name: String, value: PhoneTraceRecord.Value)] = [("reason", .text(reason.name))]
            if let code = reason.code { fields.append(("code", .text("0x" + String(code, radix: 16)))) }
            return PhoneTraceRecord(
                type: "killed", fields: fields, words: "killed: \(reason)", timeline: .tick(.kill, label: "killed"))
        case .relaunchDenied(let why):
            return PhoneTraceRecord(
                type: "relaunchDenied", fields: [("why", .text(why))], words: "not relaunched: \(why)",
                timeline: .tick(.denial, label: "no relaunch"))
        case .restored(let identifier, let summary):
            return PhoneTraceRecord(
                type: "restored", fields: [("restore_identifier", .text(identifier)), ("summary", .text(summary))],
                words: "restored '\(identifier)': \(summary)", timeline: .tick(.restoration, label: "restored"))
        case .note(let text):
            return PhoneTraceRecord(
                type: "note", fields: [("text", .text(text))], words: "note: \(text)", timeline: .none)
        }
    }

    private func bluetooth(
        _ type: String, _ kind: BluetoothEventKind, _ summary: String, _ verb: String,
        _ mark: PhoneTraceRecord.BluetoothMark
    ) -> PhoneTraceRecord {
        PhoneTraceRecord(
            type: type, fields: [("kind", .text(kind.rawValue)), ("summary", .text(summary))],
            words: "\(verb) \(kind): \(summary)", timeline: .bluetooth(mark))
    }

    private func task(
        _ type: String, _ identifier: Int, _ name: String?, _ verb: String, _ role: PhoneTraceRecord.TimelineRole
    ) -> PhoneTraceRecord {
        var fields: [(name: String, value: PhoneTraceRecord.Value)] = [("identifier", .integer(Int64(identifier)))]
        if let name { fields.append(("name", .text(name))) }
        return PhoneTraceRecord(
            type: type, fields: fields,
            words: "background task #\(identifier)\(name.map { " '\($0)'" } ?? "") \(verb)", timeline: role)
    }
}

extension UserAction {
    /// The action's name in traces and scenario files.
    public var name: String {
        switch self {
        case .open: "open"
        case .home: "home"
        case .lock: "lock"
        case .unlock: "unlock"
        case .forceQuit: "force_quit"
        case .bluetoothInSettings(let on): on ? "bluetooth_settings_on" : "bluetooth_settings_off"
        case .bluetoothInControlCenter(let on): on ? "bluetooth_control_center_on" : "bluetooth_control_center_off"
        case .airplaneMode(let on): on ? "airplane_on" : "airplane_off"
        case .reboot: "reboot"
        case .firstUnlock: "first_unlock"
        }
    }

    var record: PhoneTraceRecord {
        var fields: [(name: String, value: PhoneTraceRecord.Value)] = [("action", .text(name))]
        var words = "user: " + name.replacingOccurrences(of: "_", with: " ")
        switch self {
        case .open(let app), .forceQuit(let app):
            fields.append(("target", .text(app.bundleIdentifier)))
            words += " \(app)"
        default: break
        }
        return PhoneTraceRecord(type: "user", fields: fields, words: words, timeline: .tick(.action, label: name))
    }
}

extension SystemAction {
    /// The action's name in traces and scenario files.
    public var name: String {
        switch self {
        case .autoLock: "auto_lock"
        case .memoryPressure: "memory_pressure"
        case .crash: "crash"
        case .conditions: "conditions"
        }
    }

    var record: PhoneTraceRecord {
        var fields: [(name: String, value: PhoneTraceRecord.Value)] = [("action", .text(name))]
        var words = "system: " + name.replacingOccurrences(of: "_", with: " ")
        switch self {
        case .memoryPressure(let app), .crash(let app):
            fields.append(("target", .text(app.bundleIdentifier)))
            words += " \(app)"
        case .autoLock: break
        case .conditions(let conditions):
            fields += conditions.traceFields
            words += ": \(conditions)"
        }
        return PhoneTraceRecord(type: "system", fields: fields, words: words, timeline: .tick(.action, label: name))
    }
}

extension LaunchReason {
    /// The reason's name in traces.
    public var name: String {
        switch self {
        case .user: "user"
        case .bluetoothRestoration: "bluetooth_restoration"
        case .processRestart: "process_restart"
        case .scheduledTask: "scheduled_task"
        case .location: "location"
        case .urlSession: "url_session"
        case .voipPush: "voip_push"
        case .silentPush: "silent_push"
        case .openDocument: "open_document"
        }
    }
}

extension WakeReason {
    /// The reason's name in traces.
    public var name: String {
        switch self {
        case .bluetooth: "bluetooth"
        case .scheduledTask: "scheduled_task"
        case .location: "location"
        case .urlSession: "url_session"
        case .voipPush: "voip_push"
        case .silentPush: "silent_push"
        }
    }

    /// The reason in words.
    var words: String {
        switch self {
        case .bluetooth(let kind): "Bluetooth (\(kind))"
        case .scheduledTask(let identifier): "scheduled task '\(identifier)'"
        case .location: "a location event"
        case .urlSession(let identifier): "URLSession '\(identifier)'"
        case .voipPush: "a VoIP push"
        case .silentPush: "a silent push"
        }
    }
}

extension TerminationReason {
    /// The reason's name in traces and scenario files.
    public var name: String {
        switch self {
        case .watchdog: "watchdog"
        case .backgroundTaskOverrun: "background_task_overrun"
        case .memoryPressure: "memory_pressure"
        case .forceQuit: "force_quit"
        case .crash: "crash"
        case .reboot: "reboot"
        case .bluetoothOffInSettings: "bluetooth_off_in_settings"
        case .processStopped: "process_stopped"
        case .urlSessionCompletionOverrun: "url_session_completion_overrun"
        case .voipPushNotReported: "voip_push_not_reported"
        case .scheduledTaskOverrun: "scheduled_task_overrun"
        }
    }

    /// Every reason (for the scenario format's list of names).
    public static let all: [TerminationReason] = [
        .watchdog, .backgroundTaskOverrun, .memoryPressure, .forceQuit, .crash, .reboot, .bluetoothOffInSettings,
        .processStopped, .urlSessionCompletionOverrun, .voipPushNotReported, .scheduledTaskOverrun,
    ]
}

extension VirtualInstant {
    /// Whole milliseconds since the start (rounded down).
    var milliseconds: Int64 { nanoseconds / 1_000_000 }
}
