/// Callers suspended until a condition of their actor's state holds, resumed first come first
/// served: the one shape of "wait for the request slot / for room / for the reset to end / for
/// the link to go" across the host, the managers and the companion layer.
///
/// A value held in the actor's state. Waiting goes through `wait(unless:enqueue:)`, which asks
/// the condition again inside the continuation's body: other jobs of the actor's executor can run
/// between a caller's check and that body, and a waiter stored after the last wake-up would wait
/// for ever. Nothing here handles task cancellation: a waiter is resumed only by its owner.
package struct WaiterQueue: Sendable {
    package typealias Waiter = CheckedContinuation<Void, Never>

    private var waiters: [Waiter] = []

    package init() {}

    package var isEmpty: Bool { waiters.isEmpty }

    package var count: Int { waiters.count }

    package mutating func append(_ waiter: Waiter) {
        waiters.append(waiter)
    }

    /// Resumes the caller that has waited longest; false when nobody waits.
    @discardableResult
    package mutating func resumeFirst() -> Bool {
        guard !waiters.isEmpty else { return false }
        waiters.removeFirst().resume()
        return true
    }

    /// Resumes every caller, in the order they came, leaving the queue empty.
    package mutating func resumeAll() {
        let resumed = waiters
        waiters = []
        for waiter in resumed { waiter.resume() }
    }

    /// Suspends the caller once unless `isMet()` holds, now or when the continuation's body runs;
    /// `enqueue` stores the waiter (usually `queue.append`, plus any bookkeeping of the owner)
    /// where the owner's wake-up will resume it. Returns when resumed: callers that need the
    /// condition to hold afterwards check it again (`while !condition { await wait(…) }`).
    ///
    /// `isMet` runs on the caller's isolation and may claim what it finds (set a flag when it
    /// reports the turn free), since nothing else runs between it and the caller going on.
    package static func wait(
        isolation: isolated (any Actor)? = #isolation,
        unless isMet: () -> Bool,
        enqueue: (Waiter) -> Void
    ) async {
        guard !isMet() else { return }
        await withCheckedContinuation(isolation: isolation) { (waiter: Waiter) in
            if isMet() { waiter.resume() } else { enqueue(waiter) }
        }
    }
}
