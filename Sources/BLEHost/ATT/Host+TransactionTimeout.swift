/// The ATT transaction timeout (Core 5.4 Vol 3 Part F §3.3.3): a request or indication not
/// answered within 30 s fails, and nothing more is sent on that bearer — the link is closed.
///
/// Each transaction records its deadline; one watchdog task per host sleeps until the earliest
/// and fails what is overdue. A sleeping task per transaction, cancelled by its answer, would
/// cost several task switches for every round trip.
extension Host {
    /// Starts the watchdog unless it runs. Deadlines only grow (one timeout after each start),
    /// so a running watchdog already wakes no later than the new one.
    func armTransactionWatchdog() {
        guard transactionWatchdog == nil, let first = nextTransactionDeadline() else { return }
        let timeline = self.timeline
        // The task holds the host until no transaction is pending or the host stops.
        transactionWatchdog = spawn {
            var wake = first
            while true {
                do { try await timeline.sleep(until: wake) } catch { return }
                guard let next = await self.expireTransactions() else { return }
                wake = next
            }
        }
    }

    /// Fails the transactions past their deadline; returns the next deadline, or nil — and the
    /// watchdog ends — when none is pending.
    private func expireTransactions() -> Duration? {
        let now = timeline.now()
        for handle in bearers.keys.sorted() {
            guard let unfinished = bearers.values[bearers.index(forKey: handle)!].machine.timeout(at: now) else { continue }
            // The bearer ends (§3.3.3: no further ATT on it): its callers fail, the link closes.
            failBearer(handle, with: .transactionTimeout, unfinished: unfinished)
            spawn { await self.disconnect(handle, reason: .remoteUserTerminatedConnection) }
        }
        let next = nextTransactionDeadline()
        if next == nil { transactionWatchdog = nil }
        return next
    }

    private func nextTransactionDeadline() -> Duration? {
        bearers.values.lazy.compactMap(\.machine.nextDeadline).min()
    }
}

/// A clock's time as the duration since an origin: deadlines become plain values that any
/// clock — the wall clock, a simulation's virtual one — can sleep until.
package struct HostTimeline: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    package init<C: Clock<Duration>>(_ clock: C) {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleeper = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil) }
    }

    package func now() -> Duration { elapsed() }

    package func sleep(until deadline: Duration) async throws { try await sleeper(deadline) }
}
