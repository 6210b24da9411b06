import BLEWire

/// The repeated-attempts rule (Core 5.4 Vol 3 Part H §2.3.6): after a failed pairing with a
/// peer, a new pairing with it is refused (Pairing Failed, Repeated Attempts) until an interval
/// has passed; the interval doubles with each further failure, up to a maximum, and a success
/// resets it. Times are durations since the host's origin (its timeline).
package struct RepeatedAttempts: Sendable {
    private struct Record: Sendable {
        var failures: Int
        var until: Duration
    }

    private var records: [LEAddress: Record] = [:]
    package let interval: Duration
    package let maximumInterval: Duration

    package init(interval: Duration, maximumInterval: Duration) {
        self.interval = interval
        self.maximumInterval = max(interval, maximumInterval)
    }

    package init(policy: SecurityPolicy) {
        self.init(interval: policy.repeatedAttemptsInterval, maximumInterval: policy.maximumRepeatedAttemptsInterval)
    }

    /// Whether pairing with `peer` is refused at `now`.
    package func refuses(_ peer: LEAddress, at now: Duration) -> Bool {
        guard let record = records[peer] else { return false }
        return now < record.until
    }

    /// A pairing with `peer` failed at `now`: the waiting interval starts (or doubles).
    package mutating func failed(_ peer: LEAddress, at now: Duration) {
        let failures = (records[peer]?.failures ?? 0) + 1
        var wait = interval
        for _ in 1..<min(failures, 32) where wait < maximumInterval { wait = wait * 2 }
        records[peer] = Record(failures: failures, until: now + min(wait, maximumInterval))
    }

    /// A pairing with `peer` succeeded: it may pair again at once.
    package mutating func succeeded(_ peer: LEAddress) {
        records[peer] = nil
    }

    /// The time until which `peer` is refused, if it is.
    package func refusedUntil(_ peer: LEAddress) -> Duration? { records[peer]?.until }
}
