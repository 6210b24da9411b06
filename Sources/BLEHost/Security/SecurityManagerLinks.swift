import BLEWire

/// Each link's Security Manager (Core 5.4 Vol 3 Part H §3) as the host runs it: the pairing
/// session in progress, the SMP timer (§3.4), whether SMP is closed after a timeout, and who
/// waits for the outcome. Plain state: `Host+Pairing` runs the session's actions.
struct SecurityManagerLinks {
    typealias Waiter = CheckedContinuation<Result<LinkSecurity, PairingError>, Never>

    struct Link {
        var role: LEMetaEvent.Role
        /// The peer's address on this link (what repeated attempts are counted by).
        var address: LEAddress
        /// The pairing in progress.
        var session: PairingSession?
        /// Tells one session's agent answers from a later one's.
        var generation = 0
        /// The method the feature exchange chose.
        var method: PairingMethod?
        /// The key pairing gave this host to answer LE Long Term Key Request with (responder).
        var providedKey: (LongTermKey, LinkSecurity)?
        /// This peripheral sent a Security Request and waits for the central to pair or
        /// encrypt (§3.6.7).
        var requestedSecurity = false
        /// When the SMP timer (§3.4) runs out, as time since the host was made.
        var deadline: Duration?
        /// An SMP timeout happened: no further SMP on this link (§3.4).
        var closed = false
        /// Callers of `pair` waiting for the outcome.
        var waiters: [Waiter] = []
    }

    private(set) var links: [ConnectionHandle: Link] = [:]
    /// Repeated attempts (§2.3.6), by the peer's address: kept across its connections. Made
    /// at the first failure, with the policy's intervals.
    var attempts: RepeatedAttempts?
    /// Pairings an initiator completed whose last key distribution PDUs are still on their way
    /// to the controller: their callers resume once they were sent, so that a caller who
    /// disconnects at once does not cut the peer's bond short.
    private(set) var delivering: [ConnectionHandle: (security: LinkSecurity, waiters: [Waiter])] = [:]
    var awaitsDelivery: Bool { !delivering.isEmpty }
    /// Whether this host announces LE Secure Connections (the SC bit of AuthReq): false makes it
    /// pair as a device before Core 4.2 does, with LE legacy pairing only (tests, emulation).
    var supportsSecureConnections = true
    /// Sleeps until the earliest SMP deadline while one runs.
    var watchdog: Task<Void, Never>?
    private var nextGeneration = 0

    subscript(handle: ConnectionHandle) -> Link? {
        get { links[handle] }
        set { links[handle] = newValue }
    }

    mutating func linkUp(_ handle: ConnectionHandle, role: LEMetaEvent.Role, address: LEAddress) {
        links[handle] = Link(role: role, address: address)
    }

    /// The link is gone: its waiters, to be failed by the caller.
    mutating func linkDown(_ handle: ConnectionHandle) -> [Waiter] {
        (links.removeValue(forKey: handle)?.waiters ?? []) + (delivering.removeValue(forKey: handle)?.waiters ?? [])
    }

    /// `waiters` resume with `security` once the link's queued data is sent.
    mutating func awaitDelivery(_ handle: ConnectionHandle, security: LinkSecurity, waiters: [Waiter]) {
        delivering[handle, default: (security, [])].waiters += waiters
    }

    /// The pairings whose data is sent, per `isDelivered`, removed.
    mutating func delivered(where isDelivered: (ConnectionHandle) -> Bool) -> [(LinkSecurity, [Waiter])] {
        let done = delivering.keys.filter(isDelivered)
        return done.compactMap { delivering.removeValue(forKey: $0) }
    }

    /// Starts `session` on the link; returns its generation.
    mutating func begin(_ session: PairingSession, on handle: ConnectionHandle) -> Int {
        nextGeneration += 1
        links[handle]?.session = session
        links[handle]?.generation = nextGeneration
        links[handle]?.method = nil
        links[handle]?.providedKey = nil
        return nextGeneration
    }

    /// The session ended (completed or failed): the waiters to resume.
    mutating func end(_ handle: ConnectionHandle) -> [Waiter] {
        guard var link = links[handle] else { return [] }
        let waiters = link.waiters
        link.waiters = []
        link.session = nil
        link.providedKey = nil
        link.requestedSecurity = false
        link.deadline = nil
        links[handle] = link
        return waiters
    }

    /// The earliest SMP deadline of any link.
    var nextDeadline: Duration? {
        links.values.lazy.compactMap(\.deadline).min()
    }
}
