import BLESimulation

/// One background URLSession's transfers as a value-type state machine: they run in the system's
/// transfer service, outside the app (URLSessionConfiguration `background(withIdentifier:)`:
/// "the system handles the transfers in a separate process"), at the rate of the phone's
/// network, which the running tasks share equally; with no network they wait. It takes one
/// input (a task added, the rate changed, its timer fired, the user force-quit the app) and
/// returns what to do.
package struct BackgroundSession: Sendable {
    package struct Transfer: Sendable, Equatable {
        package var task: Int
        package var url: String
        package var upload: Bool
        package var bytes: Int
        /// Bytes still to move.
        var remaining: Double
    }

    /// A task that ended, waiting to be handed to the app's session delegate.
    package struct Completion: Sendable, Equatable {
        package var task: Int
        package var url: String
        package var upload: Bool
        package var bytes: Int
        package var error: URLSessionTaskError?
    }

    package enum Action: Sendable, Equatable {
        /// (Re)set the session's timer: the next task ends then.
        case schedule(at: VirtualInstant)
        case cancelTimer
        /// Tasks remain but there is no network: they wait.
        case waiting
        case completed(Completion)
        /// The last running task ended: the app is told (relaunched or woken if need be).
        case allFinished
    }

    package let identifier: String
    package private(set) var running: [Transfer] = []
    /// Ended tasks not yet handed to the app, oldest first.
    package private(set) var completions: [Completion] = []
    private var rate: Double
    private var since: VirtualInstant
    private var nextTask = 1

    package init(identifier: String, bytesPerSecond: Double, at now: VirtualInstant) {
        self.identifier = identifier
        rate = bytesPerSecond
        since = now
    }

    /// A task `resume()`d: its identifier and the actions.
    package mutating func add(url: String, upload: Bool, bytes: Int, at now: VirtualInstant) -> (Int, [Action]) {
        advance(to: now)
        let task = nextTask
        nextTask += 1
        running.append(Transfer(task: task, url: url, upload: upload, bytes: bytes, remaining: Double(max(bytes, 0))))
        // An empty transfer ends at once (its timer fires now).
        return (task, reschedule(now))
    }

    /// The phone's network changed: the rate from now on.
    package mutating func setRate(_ bytesPerSecond: Double, at now: VirtualInstant) -> [Action] {
        advance(to: now)
        rate = bytesPerSecond
        return reschedule(now)
    }

    /// The session's timer fired: the tasks that are done end, in task order.
    package mutating func timerFired(at now: VirtualInstant) -> [Action] {
        advance(to: now)
        var actions: [Action] = []
        // Half a byte: the timer is rounded up to the nanosecond, the arithmetic is binary.
        let done = running.filter { $0.remaining < 0.5 }
        guard !done.isEmpty else { return reschedule(now) }
        running.removeAll { $0.remaining < 0.5 }
        for transfer in done {
            let completion = Completion(
                task: transfer.task, url: transfer.url, upload: transfer.upload, bytes: transfer.bytes, error: nil)
            completions.append(completion)
            actions.append(.completed(completion))
        }
        if running.isEmpty { actions.append(.allFinished) }
        return actions + reschedule(now)
    }

    /// Every running task ends with `error` (the user force-quit the app: "the system cancels
    /// all of the session's background transfers").
    package mutating func cancelAll(_ error: URLSessionTaskError, at now: VirtualInstant) -> [Action] {
        advance(to: now)
        var actions: [Action] = []
        for transfer in running {
            let completion = Completion(
                task: transfer.task, url: transfer.url, upload: transfer.upload, bytes: transfer.bytes, error: error)
            completions.append(completion)
            actions.append(.completed(completion))
        }
        running.removeAll()
        return actions + [.cancelTimer]
    }

    /// Hands over the completions waiting for the app.
    package mutating func takeCompletions() -> [Completion] {
        defer { completions.removeAll() }
        return completions
    }

    private mutating func advance(to now: VirtualInstant) {
        defer { since = now }
        guard !running.isEmpty, rate > 0 else { return }
        let elapsed = since.duration(to: now).inSeconds
        let moved = rate / Double(running.count) * elapsed
        for index in running.indices { running[index].remaining -= moved }
    }

    private func reschedule(_ now: VirtualInstant) -> [Action] {
        guard let smallest = running.map(\.remaining).min() else { return [.cancelTimer] }
        guard rate > 0 else { return [.cancelTimer, .waiting] }
        let seconds = max(smallest, 0) * Double(running.count) / rate
        let nanoseconds = Int64((seconds * 1e9).rounded(.up))
        return [.schedule(at: now.advanced(by: .nanoseconds(nanoseconds)))]
    }
}

/// Why a background transfer ended without finishing (URLError's background-cancel reasons).
public enum URLSessionTaskError: Sendable, Hashable, CustomStringConvertible {
    /// The user force-quit the app
    /// (`NSURLErrorBackgroundTaskCancelledReasonUserForceQuitApplication`).
    case cancelledUserForceQuitApplication

    public var description: String {
        switch self {
        case .cancelledUserForceQuitApplication: "cancelled: the user force-quit the app"
        }
    }
}
