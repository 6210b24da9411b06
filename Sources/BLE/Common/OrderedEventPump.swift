import BLEHost
import BLELocking

/// Hands a host's events to a manager in order, taking in place what needs no suspension.
///
/// `offer(_:)` runs on the host's executor as each event happens. When nothing is queued and
/// the manager is not in the middle of an earlier event, `inPlace` may take the event at once
/// (a notification handed to its peripheral: no stream and no task resumption per value).
/// Everything else — and every event behind one still queued or being handled — goes, in
/// order, to `handle` on a task of its own, as a stream reader would take it. Either way the
/// manager sees the events one after the other, in the order the host reported them.
final class OrderedEventPump<Event: Sendable>: Sendable {
    /// Takes an event synchronously and returns true, or returns false to leave it to the task.
    typealias InPlace = @Sendable (Event) -> Bool
    typealias Handler = nonisolated(nonsending) @Sendable (Event) async -> Void

    private struct State {
        var queued: [Event] = []
        /// The first of `queued` not yet taken (taken elements are dropped in batches).
        var head = 0
        /// The task is handling an event (or has been handed one and will).
        var busy = false
        var finished = false
        var waiter: CheckedContinuation<Event?, Never>?

        var isEmpty: Bool { head == queued.count }

        mutating func take() -> Event? {
            guard !isEmpty else { return nil }
            let event = queued[head]
            head += 1
            if isEmpty {
                queued.removeAll(keepingCapacity: true)
                head = 0
            }
            return event
        }
    }

    private let state = Locked(State())
    private let inPlace: InPlace

    init(inPlace: @escaping InPlace) {
        self.inPlace = inPlace
    }

    /// An event, in order; nil ends the pump (the host stopped).
    func offer(_ event: Event?) {
        guard let event else { return finish() }
        let idle = state.withLock { !$0.busy && $0.isEmpty && !$0.finished }
        // The lock is not held while the manager runs: it may offer nothing back, but it may
        // take a while.
        if idle, inPlace(event) { return }
        let waiter = state.withLock { state -> CheckedContinuation<Event?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                state.busy = true
                return waiter
            }
            state.queued.append(event)
            return nil
        }
        waiter?.resume(returning: event)
    }

    /// Ends the pump: the task stops after the events already queued.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Event?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Handles the events `offer` did not take in place, one after the other, until finished.
    /// Runs on the host's isolation, so that `handle` reaching a manager on the same executor
    /// switches in place.
    func run(on host: isolated Host, _ handle: Handler) async {
        while let event = await next() {
            await handle(event)
            state.withLock { $0.busy = false }
        }
    }

    private func next() async -> Event? {
        let (event, finished) = state.withLock { state -> (Event?, Bool) in
            let event = state.take()
            if event != nil { state.busy = true }
            return (event, state.finished)
        }
        if let event { return event }
        if finished { return nil }
        return await withCheckedContinuation { continuation in
            let early = state.withLock { state -> (event: Event?, ready: Bool) in
                if let event = state.take() {
                    state.busy = true
                    return (event, true)
                }
                if state.finished { return (nil, true) }
                state.waiter = continuation
                return (nil, false)
            }
            if early.ready { continuation.resume(returning: early.event) }
        }
    }
}
