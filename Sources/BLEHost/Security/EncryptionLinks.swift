import BLEWire

/// Each link's security as the host knows it, and the encryption procedure in progress on it
/// (Core 5.4 Vol 6 Part B §5.1.3–§5.1.4; HCI: Vol 4 Part E §7.8.24–§7.8.26, §7.7.8, §7.7.39).
/// Plain state: `Host+Encryption` sends the commands and resumes the waiters.
struct EncryptionLinks {
    typealias Waiter = CheckedContinuation<Result<LinkSecurity, PairingError>, Never>

    struct Link {
        var role: LEMetaEvent.Role
        /// The peer's identity as far as known (its address on the link until resolved).
        var peer: LEAddress
        var security: LinkSecurity
        /// What the link's security will be when the encryption under way succeeds.
        var expected: LinkSecurity?
        /// Callers waiting for the encryption under way to end.
        var waiters: [Waiter] = []
        /// The link was encrypted with the peer's bond: the GATT server holds its bonded
        /// client state, to be saved back into the bond (`Host+BondedClients`).
        var isBondedClient = false
        /// What this host's GATT client discovered of the peer's database on this link, with the
        /// Database Hash read with it: stored in the peer's bond (now, or when one is made).
        var clientDatabase: GATTDatabaseCache?
        var clientDatabaseHash: [UInt8]?
    }

    private(set) var links: [ConnectionHandle: Link] = [:]

    subscript(handle: ConnectionHandle) -> Link? {
        get { links[handle] }
        set { links[handle] = newValue }
    }

    mutating func linkUp(_ handle: ConnectionHandle, role: LEMetaEvent.Role, peer: LEAddress, bonded: Bool) {
        links[handle] = Link(role: role, peer: peer, security: .unencrypted(keyAvailable: bonded))
    }

    /// The link is gone: its waiters, to be failed by the caller.
    mutating func linkDown(_ handle: ConnectionHandle) -> [Waiter] {
        links.removeValue(forKey: handle)?.waiters ?? []
    }

    /// Starts waiting for the procedure under way; false when none is.
    mutating func wait(_ handle: ConnectionHandle, _ waiter: Waiter) -> Bool {
        guard links[handle]?.expected != nil else { return false }
        links[handle]?.waiters.append(waiter)
        return true
    }

    /// The procedure ended: the link's security now and the waiters to resume with `result`.
    mutating func finish(
        _ handle: ConnectionHandle, enabled: Bool, keySize: Int?
    ) -> (security: LinkSecurity, waiters: [Waiter])? {
        guard var link = links[handle] else { return nil }
        let waiters = link.waiters
        link.waiters = []
        if enabled, case .encrypted(let size, let authenticated, let sc)? = link.expected {
            link.security = .encrypted(keySize: keySize ?? size, authenticated: authenticated, secureConnections: sc)
        } else if !enabled {
            let keyAvailable = if case .unencrypted(let available) = link.security { available } else { true }
            link.security = .unencrypted(keyAvailable: keyAvailable)
        }
        link.expected = nil
        links[handle] = link
        return (link.security, waiters)
    }

    /// The procedure failed without changing the link's security.
    mutating func fail(_ handle: ConnectionHandle) -> [Waiter] {
        guard var link = links[handle] else { return [] }
        let waiters = link.waiters
        link.waiters = []
        link.expected = nil
        links[handle] = link
        return waiters
    }
}
