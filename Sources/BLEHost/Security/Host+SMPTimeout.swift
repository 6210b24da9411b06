import BLEWire

/// The SMP timeout (Core 5.4 Vol 3 Part H §3.4): a procedure whose next command does not come
/// within 30 s fails, and no further SMP procedure runs on that link until it reconnects.
///
/// Each link keeps its deadline on the host's timeline (virtual time in a simulation); one
/// watchdog task sleeps until the earliest, as the ATT transaction timeout does.
extension Host {
    /// (Re)starts the link's SMP timer.
    func startSMPTimer(_ handle: ConnectionHandle) {
        guard securityManagers[handle] != nil else { return }
        securityManagers[handle]?.deadline = timeline.now() + configuration.security.pairingTimeout
        armSMPWatchdog()
    }

    /// Starts the watchdog unless it runs. Every link's timer has the same length, so a new
    /// deadline is never earlier than the one a running watchdog sleeps until.
    private func armSMPWatchdog() {
        guard securityManagers.watchdog == nil, let first = securityManagers.nextDeadline else { return }
        let timeline = self.timeline
        securityManagers.watchdog = spawn {
            var wake = first
            while true {
                do { try await timeline.sleep(until: wake) } catch { return }
                guard let next = await self.expireSMPTimers() else { return }
                wake = next
            }
        }
    }

    /// Times out the links past their deadline; returns the next deadline, or nil — and the
    /// watchdog ends — when no timer runs.
    private func expireSMPTimers() -> Duration? {
        let now = timeline.now()
        for (handle, link) in securityManagers.links.sorted(by: { $0.key < $1.key }) {
            guard let deadline = link.deadline, deadline <= now else { continue }
            smpTimedOut(handle)
        }
        let next = securityManagers.nextDeadline
        if next == nil { securityManagers.watchdog = nil }
        return next
    }

    private func smpTimedOut(_ handle: ConnectionHandle) {
        statistics.smpTimeouts += 1
        logger.notice(
            "SMP timeout on \(handle): the peer sent nothing for \(configuration.security.pairingTimeout); SMP is closed on this link (§3.4)"
        )
        securityManagers[handle]?.deadline = nil
        securityManagers[handle]?.closed = true
        if securityManagers[handle]?.session != nil { runSession(handle) { $0.timedOut() } }
        // Whatever still waits (a Security Request unanswered, a session that did not report).
        if let link = securityManagers[handle], link.session != nil || link.requestedSecurity || !link.waiters.isEmpty {
            pairingFailed(.timeout, on: handle)
        }
    }
}
