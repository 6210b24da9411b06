import BLESimulation

/// What the phone records about BGTaskScheduler: registrations, requests, runs, expirations.
public enum ScheduledTaskEvent: Sendable, Hashable {
    /// A launch handler was registered for the identifier in this launch.
    case registered(String)
    /// `register` was refused (on iOS an NSInternalInconsistencyException).
    case registrationRejected(String, BGTaskRegistrationError)
    case submitted(String, kind: BGTaskKind, earliestBeginDate: VirtualInstant?)
    /// `submit` threw, and why.
    case submitRejected(String, BGTaskSchedulerError, why: String)
    /// A resubmitted identifier replaced its pending request.
    case replaced(String)
    case cancelled(String)
    /// The policy keeps the request waiting, for this reason (recorded when the reason changes).
    case deferred(String, why: String)
    /// The task starts (`run` numbers the phone's runs), its time limit ends at `until`;
    /// `simulated` for `Phone.simulateLaunchForTask(withIdentifier:of:)`.
    case started(String, run: Int, until: VirtualInstant, simulated: Bool)
    /// The app's launch ended without registering a launch handler: the task cannot run.
    case notRegistered(String, run: Int)
    /// The expiration handler is due (time limit, conditions, or simulated).
    case expiring(String, run: Int, why: String)
    case completed(String, run: Int, success: Bool, bySystem: Bool)
    /// Not completed `overrunGrace` after expiring: the app is killed.
    case overrun(String, run: Int)
    /// The app's process ended while the task ran.
    case interrupted(String, run: Int, reason: TerminationReason)
}

extension ScheduledTaskEvent {
    /// The event's type name, fields, words and timeline role.
    var record: PhoneTraceRecord {
        typealias Field = (name: String, value: PhoneTraceRecord.Value)
        func make(_ type: String, _ id: String, _ more: [Field], _ words: String, _ role: PhoneTraceRecord.TimelineRole)
            -> PhoneTraceRecord
        {
            PhoneTraceRecord(
                type: type, fields: [("task", .text(id))] + more, words: "scheduled task '\(id)' " + words,
                timeline: role)
        }
        func overlay(_ id: String, _ run: Int, _ on: Bool) -> PhoneTraceRecord.TimelineRole {
            .overlay(.scheduledTask, id: "\(id)#\(run)", on: on)
        }
        switch self {
        case .registered(let id):
            return make("taskRegistered", id, [], "registered", .none)
        case .registrationRejected(let id, let error):
            return make(
                "taskRegistrationRejected", id, [("error", .text(error.name))], "registration rejected: \(error)",
                .none)
        case .submitted(let id, let kind, let earliest):
            var fields: [Field] = [("kind", .text(kind.isProcessing ? "processing" : "refresh"))]
            if case .processing(let power, let network) = kind {
                fields += [("requires_external_power", .flag(power)), ("requires_network", .flag(network))]
            }
            if let earliest { fields.append(("earliest_ms", .integer(earliest.milliseconds))) }
            let after = earliest.map { " not before \(PhoneTraceText.time($0))" } ?? ""
            return make("taskSubmitted", id, fields, "submitted (\(kind))\(after)", .mark(.taskRequest, label: id))
        case .submitRejected(let id, let error, let why):
            return make(
                "taskSubmitRejected", id, [("error", .text(error.name)), ("why", .text(why))],
                "submit rejected: \(error) (\(why))", .none)
        case .replaced(let id):
            return make("taskReplaced", id, [], "replaced by a new request", .none)
        case .cancelled(let id):
            return make("taskCancelled", id, [], "cancelled", .none)
        case .deferred(let id, let why):
            return make("taskDeferred", id, [("why", .text(why))], "waits: \(why)", .none)
        case .started(let id, let run, let until, let simulated):
            return make(
                "taskStarted", id,
                [
                    ("run", .integer(Int64(run))), ("until_ms", .integer(until.milliseconds)),
                    ("simulated", .flag(simulated)),
                ],
                "starts\(simulated ? " (simulated)" : ""), time limit \(PhoneTraceText.time(until))",
                overlay(id, run, true))
        case .notRegistered(let id, let run):
            return make(
                "taskNotRegistered", id, [("run", .integer(Int64(run)))],
                "cannot run: the launch ended without registering its launch handler", .none)
        case .expiring(let id, let run, let why):
            return make(
                "taskExpiring", id, [("run", .integer(Int64(run))), ("why", .text(why))], "expires (\(why))", .none)
        case .completed(let id, let run, let success, let bySystem):
            return make(
                "taskCompleted", id,
                [("run", .integer(Int64(run))), ("success", .flag(success)), ("by_system", .flag(bySystem))],
                "completed " + (success ? "successfully" : "unsuccessfully")
                    + (bySystem ? " (by the system: no expiration handler)" : ""), overlay(id, run, false))
        case .overrun(let id, let run):
            return make(
                "taskOverrun", id, [("run", .integer(Int64(run)))], "not completed in time after expiring", .none)
        case .interrupted(let id, let run, let reason):
            return make(
                "taskInterrupted", id, [("run", .integer(Int64(run))), ("reason", .text(reason.name))],
                "ended with its process (\(reason))", overlay(id, run, false))
        }
    }
}
