import BLEWire

// The host's security API: a link's security, pairing, bonds and the agent.
extension Host {
    /// The security of a link now (`.none` for an unknown handle).
    public func security(of handle: ConnectionHandle) -> LinkSecurity {
        encryption[handle]?.security ?? .none
    }

    /// Pairs on `handle` — as central with a Pairing Request, as peripheral with a Security
    /// Request (Core 5.4 Vol 3 Part H §3.6.7) — and returns the link's security once it is
    /// encrypted with the new key.
    public func pair(_ handle: ConnectionHandle) async throws(PairingError) -> LinkSecurity {
        try await startPairing(handle)
    }

    /// Raises the link's security after a request met `error` (Insufficient Encryption,
    /// Insufficient Authentication; Part C §10.3.1, Part F §3.4.1.1), as Core Bluetooth does
    /// before retrying it: encrypts with the bond's key when one is known and good enough,
    /// pairs otherwise. Returns the new security; throws when it cannot be raised.
    public func raiseSecurity(_ handle: ConnectionHandle, after error: ATTErrorCode) async throws(PairingError)
        -> LinkSecurity
    {
        guard let link = encryption[handle] else { throw .notConnected }
        if link.expected != nil { return try await encryptionOutcome(handle) }
        let bond = bond(forPeer: link.peer)
        switch (error, link.security) {
        case (.insufficientEncryption, .unencrypted), (.encryptionKeySizeTooShort, .unencrypted):
            if link.role == .central, bond?.peerLongTermKey != nil { return try await encrypt(handle) }
            return try await startPairing(handle)
        case (.insufficientAuthentication, .unencrypted):
            if link.role == .central, let bond, bond.authenticated, bond.peerLongTermKey != nil {
                return try await encrypt(handle)
            }
            return try await startPairing(handle)
        default:
            // Encrypted already: only a new, stronger pairing can help.
            return try await startPairing(handle)
        }
    }

    /// Replaces the agent pairing asks.
    public func setPairingAgent(_ agent: any PairingAgent) {
        pairingAgent = agent
    }

    /// Every bond of this host's store (empty when the store cannot be read; logged).
    public var bonds: [Bond] {
        do throws(BondStoreError) {
            return try configuration.bondStore.bonds()
        } catch {
            bondStoreFailed(error)
            return []
        }
    }

    /// Forgets the bond with `peer` (its identity address); true when there was one.
    @discardableResult
    public func removeBond(peer: LEAddress) throws(BondStoreError) -> Bool {
        var removed = false
        for bond in try configuration.bondStore.bonds() where bond.peer == peer {
            removed = try configuration.bondStore.remove(local: bond.local, peer: bond.peer) || removed
        }
        peerIdentitiesChanged()
        return removed
    }

    /// The bond with `peer` under this host's identity, if any.
    func bond(forPeer peer: LEAddress) -> Bond? {
        let local = ownAddress
        return bonds.first { $0.peer == peer && (local == nil || $0.local == local) }
    }

    /// Saves a bond (pairing made it, or what it keeps changed), with what the GATT server and
    /// client keep for the peer (`withGATTState`).
    func saveBond(_ bond: Bond) {
        do throws(BondStoreError) {
            try configuration.bondStore.save(withGATTState(bond))
        } catch {
            bondStoreFailed(error)
        }
        peerIdentitiesChanged()
    }

    func bondStoreFailed(_ error: BondStoreError) {
        statistics.bondStoreFailures += 1
        logger.error("\(error)")
    }
}
