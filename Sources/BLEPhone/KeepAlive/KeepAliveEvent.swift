import BLESimulation

/// What the phone records about keep-alive modes and their wake sources (location, URLSession, VoIP and silent pushes).
public enum KeepAliveEvent: Sendable, Hashable {
    /// The phone moved (a user or system action; recorded for the phone, not an app).
    case phoneMoved(CLLocationCoordinate2D)
    /// Standard location updates started or stopped; whether they keep the app running in the
    /// background (the `location` mode and, from iOS 9, `allowsBackgroundLocationUpdates`).
    case locationUpdates(on: Bool, keepsAppRunning: Bool)
    case significantChanges(on: Bool)
    case regionMonitoring(String, on: Bool)
    case locationDelivered(LocationEventKind)
    /// A location event the app did not get, and why (updates paused while suspended, …).
    case locationNotDelivered(LocationEventKind, why: String)
    case transferStarted(session: String, task: Int, bytes: Int, upload: Bool)
    /// The session's tasks wait for a network.
    case transferWaiting(session: String)
    case transferCompleted(session: String, task: Int, error: URLSessionTaskError?)
    /// `handleEventsForBackgroundURLSession` is called; its completion handler is due by `until`.
    case sessionEventsHandling(session: String, until: VirtualInstant)
    case sessionEventsHandled(session: String, completionCalled: Bool)
    case pushReceived(PushKind)
    /// Over the rate limit: the push waits until the instant.
    case pushDeferred(PushKind, until: VirtualInstant)
    case pushDropped(PushKind, why: String)
    /// The push's handler runs; its completion is due by `until`.
    case pushHandling(PushKind, serial: Int, until: VirtualInstant)
    /// The push's handling ended: by its completion, or its allowance ran out.
    case pushHandled(PushKind, serial: Int, completionCalled: Bool)
    /// A call reported to CallKit (its UUID): it holds the app until it ends.
    case callReported(String)
    case callEnded(String, why: String)
}

/// The kinds of push the phone delivers.
public enum PushKind: String, Sendable, Hashable, CaseIterable {
    /// A PushKit VoIP push.
    case voip
    /// A background (content-available) remote notification.
    case silent
}

extension KeepAliveEvent {
    /// The event's type name, fields, words and timeline role.
    var record: PhoneTraceRecord {
        typealias Record = PhoneTraceRecord
        switch self {
        case .phoneMoved(let to):
            return Record(
                type: "phoneMoved",
                fields: [("latitude", .text("\(to.latitude)")), ("longitude", .text("\(to.longitude)"))],
                words: "phone moved to \(to)", timeline: .none)
        case .locationUpdates(let on, let keeps):
            return Record(
                type: "locationUpdates", fields: [("on", .flag(on)), ("keeps_app_running", .flag(keeps))],
                words: "location updates "
                    + (on ? "on" + (keeps ? " (keep the app running)" : " (pause when suspended)") : "off"),
                timeline: .overlay(.location, id: "updates", on: on))
        case .significantChanges(let on):
            return Record(
                type: "significantChanges", fields: [("on", .flag(on))],
                words: "significant-change monitoring \(on ? "on" : "off")",
                timeline: .mark(.location, label: on ? "SLC on" : "SLC off"))
        case .regionMonitoring(let region, let on):
            return Record(
                type: "regionMonitoring", fields: [("region", .text(region)), ("on", .flag(on))],
                words: "region '\(region)' monitoring \(on ? "on" : "off")",
                timeline: .mark(.location, label: on ? "region on" : "region off"))
        case .locationDelivered(let kind):
            return Record(
                type: "locationDelivered", fields: Self.fields(kind), words: "delivered: \(kind)",
                timeline: .mark(.location, label: kind.name))
        case .locationNotDelivered(let kind, let why):
            return Record(
                type: "locationNotDelivered", fields: Self.fields(kind) + [("why", .text(why))],
                words: "not delivered: \(kind) (\(why))", timeline: .mark(.location, label: "missed"))
        case .transferStarted(let session, let task, let bytes, let upload):
            return Record(
                type: "transferStarted",
                fields: [
                    ("session", .text(session)), ("task", .integer(Int64(task))), ("bytes", .integer(Int64(bytes))),
                    ("upload", .flag(upload)),
                ],
                words: "URLSession '\(session)' task \(task): \(upload ? "upload" : "download") of \(bytes) bytes",
                timeline: .mark(.urlSession, label: upload ? "upload" : "download"))
        case .transferWaiting(let session):
            return Record(
                type: "transferWaiting", fields: [("session", .text(session))],
                words: "URLSession '\(session)' waits for a network", timeline: .none)
        case .transferCompleted(let session, let task, let error):
            var fields: [(name: String, value: Record.Value)] = [
                ("session", .text(session)), ("task", .integer(Int64(task))),
            ]
            if let error { fields.append(("error", .text("\(error)"))) }
            return Record(
                type: "transferCompleted", fields: fields,
                words: "URLSession '\(session)' task \(task) " + (error.map { "ended: \($0)" } ?? "finished"),
                timeline: .mark(.urlSession, label: error == nil ? "done" : "cancelled"))
        case .sessionEventsHandling(let session, let until):
            return Record(
                type: "sessionEventsHandling",
                fields: [("session", .text(session)), ("until_ms", .integer(until.milliseconds))],
                words:
                    "handleEventsForBackgroundURLSession '\(session)': completion due by \(PhoneTraceText.time(until))",
                timeline: .overlay(.eventHandling, id: "url:" + session, on: true))
        case .sessionEventsHandled(let session, let called):
            return Record(
                type: "sessionEventsHandled",
                fields: [("session", .text(session)), ("completion_called", .flag(called))],
                words: "URLSession '\(session)' events handled"
                    + (called ? " (completion handler called)" : " (completion handler NOT called in time)"),
                timeline: .overlay(.eventHandling, id: "url:" + session, on: false))
        case .pushReceived(let kind):
            return Record(
                type: "pushReceived", fields: [("kind", .text(kind.rawValue))], words: "\(kind.rawValue) push received",
                timeline: .mark(.push, label: kind.rawValue))
        case .pushDeferred(let kind, let until):
            return Record(
                type: "pushDeferred",
                fields: [("kind", .text(kind.rawValue)), ("until_ms", .integer(until.milliseconds))],
                words: "\(kind.rawValue) push deferred until \(PhoneTraceText.time(until)) (rate limit)",
                timeline: .mark(.push, label: "deferred"))
        case .pushDropped(let kind, let why):
            return Record(
                type: "pushDropped", fields: [("kind", .text(kind.rawValue)), ("why", .text(why))],
                words: "\(kind.rawValue) push dropped (\(why))", timeline: .mark(.push, label: "dropped"))
        case .pushHandling(let kind, let serial, let until):
            return Record(
                type: "pushHandling",
                fields: [
                    ("kind", .text(kind.rawValue)), ("serial", .integer(Int64(serial))),
                    ("until_ms", .integer(until.milliseconds)),
                ],
                words: "\(kind.rawValue) push #\(serial) handled until \(PhoneTraceText.time(until)) at most",
                timeline: .overlay(.eventHandling, id: "push:\(serial)", on: true))
        case .pushHandled(let kind, let serial, let called):
            return Record(
                type: "pushHandled",
                fields: [
                    ("kind", .text(kind.rawValue)), ("serial", .integer(Int64(serial))),
                    ("completion_called", .flag(called)),
                ],
                words: "\(kind.rawValue) push #\(serial) "
                    + (called ? "completed" : "not completed in its time"),
                timeline: .overlay(.eventHandling, id: "push:\(serial)", on: false))
        case .callReported(let call):
            return Record(
                type: "callReported", fields: [("call", .text(call))], words: "call \(call) reported to CallKit",
                timeline: .overlay(.call, id: call, on: true))
        case .callEnded(let call, let why):
            return Record(
                type: "callEnded", fields: [("call", .text(call)), ("why", .text(why))],
                words: "call \(call) ended (\(why))", timeline: .overlay(.call, id: call, on: false))
        }
    }

    private static func fields(_ kind: LocationEventKind) -> [(name: String, value: PhoneTraceRecord.Value)] {
        switch kind {
        case .update, .significantChange: [("kind", .text(kind.name))]
        case .enterRegion(let region), .exitRegion(let region): [("kind", .text(kind.name)), ("region", .text(region))]
        }
    }
}
