import BLESimulation

/// The rate limit of silent (content-available) pushes to one app in the background, as a
/// value-type state machine: at most `limit` per `period` ("two or three per hour",
/// phone-rules.md: ~3/hour, D). A push over the limit waits until the period allows one; only the
/// latest waits (APNs keeps one background push per app: an earlier waiting one is replaced,
/// which the phone traces and counts as dropped).
package struct SilentPushGate: Sendable {
    package enum Decision: Sendable, Equatable {
        case deliver
        /// Wait until the instant; `replacing` is the earlier waiting push it displaces.
        case wait(until: VirtualInstant, replacing: Int?)
    }

    private let limit: Int
    private let period: Duration
    /// Deliveries within the last period, oldest first.
    private var delivered: [VirtualInstant] = []
    /// The push waiting for the period to allow it.
    package private(set) var waiting: Int?

    package init(limit: Int, period: Duration) {
        self.limit = max(limit, 0)
        self.period = period
    }

    /// A push (by serial) for the app at `now`.
    package mutating func offer(_ serial: Int, at now: VirtualInstant) -> Decision {
        forget(before: now)
        if delivered.count < limit, waiting == nil {
            delivered.append(now)
            return .deliver
        }
        let replaced = waiting
        waiting = serial
        return .wait(until: nextOpening(now), replacing: replaced)
    }

    /// The timer set for a waiting push fired: the push to deliver now, or the next instant to
    /// try again.
    package mutating func timerFired(at now: VirtualInstant) -> (deliver: Int?, retryAt: VirtualInstant?) {
        forget(before: now)
        guard let serial = waiting else { return (nil, nil) }
        guard delivered.count < limit else { return (nil, nextOpening(now)) }
        waiting = nil
        delivered.append(now)
        return (serial, nil)
    }

    /// When the oldest delivery leaves the period (now when none counts).
    private func nextOpening(_ now: VirtualInstant) -> VirtualInstant {
        guard delivered.count >= limit, let oldest = delivered.first else { return now }
        return oldest.advanced(by: period)
    }

    private mutating func forget(before now: VirtualInstant) {
        delivered.removeAll { $0.advanced(by: period) <= now }
    }
}
