import BLEWire

// Encryption of a link with a key pairing made or a bond holds (Core 5.4 Vol 3 Part H §2.4.4;
// Vol 6 Part B §5.1.3–§5.1.4; HCI: Vol 4 Part E §7.8.24–§7.8.26, §7.7.8, §7.7.39), and the
// link's security as the GATT server and channels see it.
extension Host {
    // MARK: Link lifecycle

    func securityLinkUp(_ info: ConnectionInfo) {
        // Keyed by the identity behind a resolved private address (Host+AddressResolution).
        let (peer, resolved) = linkPeerIdentity(info.peerAddress)
        let bond = bond(forPeer: peer)
        encryption.linkUp(info.handle, role: info.role, peer: peer, bonded: bond != nil)
        if resolved, bond != nil {
            // Reported after the link itself (`.connected` is emitted once this returns).
            spawn { await self.emit(.security(handle: info.handle, .identityResolved(peer))) }
        }
        if let security = encryption[info.handle]?.security { attServer?.securityChanged(security, for: info.handle) }
        bondedClientLinkUp(info.handle)
        smpLinkUp(info)
        // A central re-encrypts a link to a bonded peer at once, as phones do (Part C
        // §10.3.2); a failure is reported as a security event, the link stays.
        if info.role == .central, bond?.peerLongTermKey != nil {
            spawn { _ = try? await self.encrypt(info.handle) }
        }
    }

    func securityLinkDown(_ handle: ConnectionHandle, reason: HCIStatus) {
        bondedClientLinkDown(handle)
        for waiter in encryption.linkDown(handle) { waiter.resume(returning: .failure(.disconnected(reason))) }
        smpLinkDown(handle, reason: reason)
    }

    // MARK: Starting encryption (central)

    /// Encrypts the link with the bond's key (as central), or waits for the encryption under
    /// way. Returns the link's security once encrypted.
    public func encrypt(_ handle: ConnectionHandle) async throws(PairingError) -> LinkSecurity {
        guard let link = encryption[handle] else { throw .notConnected }
        if link.expected != nil { return try await encryptionOutcome(handle) }
        // Encrypted already (from the bond at connection, or by pairing): nothing to do.
        if link.security.isEncrypted { return link.security }
        guard link.role == .central else { return try await startPairing(handle) }
        guard let bond = bond(forPeer: link.peer), let key = bond.peerLongTermKey else { throw .notBonded }
        return try await startEncryption(handle, with: key, giving: bond.security)
    }

    /// Sends LE Enable Encryption with `key` (§7.8.24) — a refresh when the link is encrypted
    /// already — and waits for Encryption Change or Key Refresh Complete. `security` is what the
    /// link has when it succeeds.
    func startEncryption(
        _ handle: ConnectionHandle, with key: LongTermKey, giving security: LinkSecurity
    ) async throws(PairingError) -> LinkSecurity {
        guard encryption[handle] != nil else { throw .notConnected }
        encryption[handle]?.expected = security
        let command = HCI.LEEnableEncryption(
            connectionHandle: handle, randomNumber: key.rand, encryptedDiversifier: key.ediv,
            longTermKey: key.key.hciKey)
        spawn { await self.sendEncryptionCommand(command) }
        return try await encryptionOutcome(handle)
    }

    private func sendEncryptionCommand(_ command: HCI.LEEnableEncryption) async {
        do throws(HostError) {
            try await send(command)
        } catch {
            let status: HCIStatus = if case .commandFailed(_, let status) = error { status } else { .unspecifiedError }
            logger.notice("LE Enable Encryption on \(command.connectionHandle) failed: \(error)")
            for waiter in encryption.fail(command.connectionHandle) {
                waiter.resume(returning: .failure(.controller(status)))
            }
        }
    }

    /// Waits for the encryption procedure under way on `handle` (returns the current security
    /// when none is).
    func encryptionOutcome(_ handle: ConnectionHandle) async throws(PairingError) -> LinkSecurity {
        let result = await withCheckedContinuation { (waiter: EncryptionLinks.Waiter) in
            if !encryption.wait(handle, waiter) {
                if let security = encryption[handle]?.security {
                    waiter.resume(returning: .success(security))
                } else {
                    waiter.resume(returning: .failure(.notConnected))
                }
            }
        }
        return try result.get()
    }

    // MARK: Answering the central (peripheral)

    /// LE Long Term Key Request (§7.7.65.5): the key pairing in progress made, else the bond's
    /// key with this EDIV and Rand; with neither, the negative reply (the central's host then
    /// gets PIN or Key Missing).
    func receivedLongTermKeyRequest(_ request: LEMetaEvent.LongTermKeyRequest) {
        let handle = request.connectionHandle
        guard let link = encryption[handle] else {
            statistics.eventsForUnknownHandle += 1
            return logger.notice("dropped an LE Long Term Key Request for handle \(handle): no such connection")
        }
        var answer = pairingKey(forLongTermKeyRequestOn: handle)
        if answer == nil, let bond = bond(forPeer: link.peer), let key = bond.localLongTermKey,
            key.ediv == request.encryptedDiversifier, key.rand == request.randomNumber
        {
            answer = (key, bond.security)
        }
        guard let (key, security) = answer else {
            statistics.longTermKeyRequestsWithoutKey += 1
            logger.notice("no key for the LE Long Term Key Request on \(handle) from \(link.peer): negative reply")
            spawn { await self.sendOwn(HCI.LELongTermKeyRequestNegativeReply(connectionHandle: handle)) }
            return
        }
        encryption[handle]?.expected = security
        let reply = HCI.LELongTermKeyRequestReply(connectionHandle: handle, longTermKey: key.key.hciKey)
        spawn { await self.sendOwn(reply) }
    }

    private func sendOwn<C: HCICommandWithCompleteEvent>(_ command: C) async {
        do throws(HostError) {
            _ = try await send(command)
        } catch {
            ownCommandFailed(C.name, error)
        }
    }

    // MARK: Outcomes

    /// Encryption Change (§7.7.8): the link's security follows; a failure fails the waiters.
    func encryptionChanged(_ handle: ConnectionHandle, enabled: Bool, keySize: Int?, status: HCIStatus) {
        if status.isSuccess, var info = connections[handle] {
            info.isEncrypted = enabled
            connections[handle] = info
        }
        emit(.encryptionChanged(handle: handle, enabled: enabled, status: status))
        guard encryption[handle] != nil else { return }
        guard status.isSuccess else { return encryptionFailed(handle, status: status) }
        guard let (security, waiters) = encryption.finish(handle, enabled: enabled, keySize: keySize) else { return }
        securityChanged(handle, to: security, waiters: waiters)
    }

    /// Encryption Key Refresh Complete (§7.7.39): the new key is in use.
    func keyRefreshed(_ handle: ConnectionHandle, status: HCIStatus) {
        guard encryption[handle] != nil else { return unknownHandle(handle, in: "Encryption Key Refresh Complete") }
        guard status.isSuccess else { return encryptionFailed(handle, status: status) }
        guard let (security, waiters) = encryption.finish(handle, enabled: true, keySize: nil) else { return }
        securityChanged(handle, to: security, waiters: waiters)
    }

    private func securityChanged(_ handle: ConnectionHandle, to security: LinkSecurity, waiters: [EncryptionLinks.Waiter]) {
        logger.debug("link \(handle) security: \(security)")
        attServer?.securityChanged(security, for: handle)
        bondedClientSecurityChanged(handle, to: security)
        emit(.security(handle: handle, .changed(security)))
        smpEncryptionChanged(handle, security: security)
        for waiter in waiters { waiter.resume(returning: .success(security)) }
    }

    private func encryptionFailed(_ handle: ConnectionHandle, status: HCIStatus) {
        logger.notice("encryption on \(handle) failed: \(status)")
        let waiters = encryption.fail(handle)
        if status == .pinOrKeyMissing, let link = encryption[handle], link.role == .central,
            bond(forPeer: link.peer) != nil
        {
            // The peer lost its bond (Part C §10.3.2): reported; pairing again only if the
            // policy says so.
            emit(.security(handle: handle, .peerLostBond(peer: link.peer)))
            if configuration.security.rePairsWhenPeerLostBond {
                spawn { _ = try? await self.startPairing(handle) }
            }
        }
        smpEncryptionChanged(handle, security: nil)
        for waiter in waiters { waiter.resume(returning: .failure(.encryptionFailed(status))) }
    }
}
