import BLEWire

// What this host's GATT server keeps for a bonded client across connections (Core 5.4 Vol 3
// Part G §3.3.3.3: "The Client Characteristic Configuration descriptor value shall be
// persistent across connections for bonded devices"; §2.5.2.1 change awareness; Part H §2.4.5
// the SignCounter), kept in the bond.
//
// When: the configurations come back once the link is encrypted with a key of the peer's bond,
// not when the link comes up. An address alone proves nothing (anyone can advertise a bonded
// peer's public address), and restoring at connection would send a bonded client's
// notifications to whoever uses its address; encryption with the bond's key is what shows the
// peer is the bonded device (Part H §2.4.4: the session key comes from the bond's LTK, which
// only the two bonded devices hold). The CSRK is given at link up instead: a Signed Write Command authenticates itself on an
// unencrypted link (Part H §2.4.5), which is where it is used.
extension Host {
    /// A link came up: a bonded client's CSRK and last SignCounter go to the server.
    func bondedClientLinkUp(_ handle: ConnectionHandle) {
        guard let server = attServer as? any BondedClientServer, let link = encryption[handle],
            let bond = bond(forPeer: link.peer), let csrk = bond.peerCSRK
        else { return }
        let counters = [bond.peerSignCounter, bond.gattClientState?.lastSignCounter].compactMap { $0 }
        server.setSigningKey(csrk, authenticated: bond.authenticated, lastCounter: counters.max(), for: handle)
    }

    /// The link's security changed: encrypted, a bonded peer's saved state comes back (once per
    /// link). A Service Changed indication owed to a change-unaware client goes out.
    func bondedClientSecurityChanged(_ handle: ConnectionHandle, to security: LinkSecurity) {
        guard security.isEncrypted, let link = encryption[handle], !link.isBondedClient,
            let bond = bond(forPeer: link.peer)
        else { return }
        encryption[handle]?.isBondedClient = true
        guard let server = attServer as? any BondedClientServer, let saved = bond.gattClientState else { return }
        logger.debug("link \(handle): restored the GATT state of bonded client \(link.peer)")
        guard case .handleValueIndication(let indication)? = server.restoreBondedClient(saved, for: handle) else {
            return
        }
        let value = Array(indication.value)
        let attributeHandle = indication.handle
        spawn {
            do {
                try await self.indicate(value, attributeHandle: attributeHandle, on: handle)
            } catch {
                self.logger.notice("Service Changed indication on link \(handle.rawValue) not confirmed: \(error)")
            }
        }
    }

    /// The link is going down: what the server keeps for a bonded client, and the SignCounter
    /// it reached, go back into the bond.
    func bondedClientLinkDown(_ handle: ConnectionHandle) {
        guard let server = attServer as? any BondedClientServer, let link = encryption[handle],
            var bond = bond(forPeer: link.peer)
        else { return }
        var changed = false
        if bond.peerCSRK != nil, let counter = server.lastSignCounter(for: handle),
            bond.peerSignCounter.map({ $0 < counter }) ?? true
        {
            bond.peerSignCounter = counter
            changed = true
        }
        if link.isBondedClient, let state = server.bondedClientState(for: handle), state != bond.gattClientState {
            bond.gattClientState = state
            changed = true
        }
        if changed { saveBond(bond) }
    }

    /// `bond` with what GATT keeps for the peer: the server's state for a client connected on an
    /// encrypted link now (a bond just made keeps the subscriptions written before pairing;
    /// the link counts as a bonded client's from then on), and, when `bond` has none, the
    /// client's database cache and the server's state of the bond it replaces (a new pairing
    /// with the same identity keeps them; the Database Hash tells whether the cache still
    /// holds).
    func withGATTState(_ bond: Bond) -> Bond {
        var bond = bond
        if bond.gattDatabase == nil || bond.gattClientState == nil,
            let existing = bonds.first(where: { $0.local == bond.local && $0.peer == bond.peer })
        {
            if bond.gattDatabase == nil {
                bond.gattDatabase = existing.gattDatabase
                bond.gattDatabaseHash = existing.gattDatabaseHash
            }
            if bond.gattClientState == nil { bond.gattClientState = existing.gattClientState }
        }
        for link in encryption.links.values where link.peer == bond.peer && bond.gattDatabase == nil {
            if let database = link.clientDatabase {
                bond.gattDatabase = database
                bond.gattDatabaseHash = link.clientDatabaseHash
            }
        }
        guard let server = attServer as? any BondedClientServer else { return bond }
        for (handle, link) in encryption.links where link.peer == bond.peer && link.security.isEncrypted {
            encryption[handle]?.isBondedClient = true
            if let state = server.bondedClientState(for: handle) { bond.gattClientState = state }
        }
        return bond
    }
}
