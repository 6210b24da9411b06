import BLEWire

// The Security Manager on the SMP fixed channel (Core 5.4 Vol 3 Part H §3; CID 0x0006, Vol 3
// Part A §2.1): one `PairingSession` per link, fed the peer's commands, the agent's answers,
// the encryption outcome and the SMP timer; `Host+PairingActions` runs what it returns.
extension Host {
    // MARK: Hooks of the link's lifecycle

    func smpLinkUp(_ info: ConnectionInfo) {
        securityManagers.linkUp(info.handle, role: info.role, address: info.peerAddress)
    }

    func smpLinkDown(_ handle: ConnectionHandle, reason: HCIStatus) {
        let pairing = securityManagers[handle].map { $0.session != nil || $0.requestedSecurity } ?? false
        let waiters = securityManagers.linkDown(handle)
        if pairing { emit(.security(handle: handle, .pairingFailed(.disconnected(reason)))) }
        for waiter in waiters { waiter.resume(returning: .failure(.disconnected(reason))) }
    }

    /// The host stops: whoever waits for pairing or encryption fails, the SMP timer ends.
    func securityStopped() {
        securityManagers.watchdog?.cancel()
        securityManagers.watchdog = nil
        for handle in securityManagers.links.keys.sorted() {
            for waiter in securityManagers.linkDown(handle) {
                waiter.resume(returning: .failure(.disconnected(.connectionTerminatedByLocalHost)))
            }
        }
        for handle in encryption.links.keys.sorted() {
            for waiter in encryption.linkDown(handle) {
                waiter.resume(returning: .failure(.disconnected(.connectionTerminatedByLocalHost)))
            }
        }
    }

    // MARK: Starting

    /// Pairs on `handle` as central (Pairing Request, §3.5.1) or peripheral (Security Request,
    /// §3.6.7) and returns the link's security once encrypted with the new key and the keys
    /// are distributed. Callers while a pairing runs wait for the same outcome.
    func startPairing(_ handle: ConnectionHandle) async throws(PairingError) -> LinkSecurity {
        guard let link = securityManagers[handle] else { throw .notConnected }
        guard !link.closed else { throw .securityManagerClosed }
        if link.role == .peripheral, link.session == nil, !link.requestedSecurity,
            case .encrypted(_, let authenticated, _)? = encryption[handle]?.security,
            authenticated || !configuration.security.requiresMITM
        {
            // Encrypted already as well as this host asks: nothing for the central to do.
            return encryption[handle]?.security ?? .none
        }
        let result = await withCheckedContinuation { (waiter: SecurityManagerLinks.Waiter) in
            securityManagers[handle]?.waiters.append(waiter)
            guard link.session == nil, !link.requestedSecurity else { return }
            switch link.role {
            case .central: beginPairing(handle)
            case .peripheral: requestSecurity(handle)
            case .other: pairingFailed(.failed(.unspecifiedReason, byPeer: false), on: handle)
            }
        }
        return try result.get()
    }

    /// A central pairs: the initiator's session starts with the Pairing Request.
    func beginPairing(_ handle: ConnectionHandle, securityRequest: SMP.AuthReq? = nil) {
        guard let session = makeSession(.initiator, on: handle) else { return }
        _ = securityManagers.begin(session, on: handle)
        runSession(handle) { $0.start(securityRequest: securityRequest) }
    }

    /// A peripheral asks the central to pair or encrypt (§3.6.7) and waits for it.
    private func requestSecurity(_ handle: ConnectionHandle) {
        securityManagers[handle]?.requestedSecurity = true
        sendSMP(PairingSession.securityRequest(policy: configuration.security), on: handle)
        // The SMP timer runs from the command queued (§3.4).
        startSMPTimer(handle)
    }

    /// A session for this link, or nil (and the waiters failed) when this host has no
    /// address yet.
    private func makeSession(_ role: PairingSession.Role, on handle: ConnectionHandle) -> PairingSession? {
        guard let link = securityManagers[handle], let own = ownAddress else {
            pairingFailed(.failed(.unspecifiedReason, byPeer: false), on: handle)
            return nil
        }
        var configuration = PairingSession.Configuration(
            policy: self.configuration.security, localAddress: own, peerAddress: link.address,
            localIdentityAddress: own, localIRK: identityResolvingKey)
        configuration.supportsSecureConnections = securityManagers.supportsSecureConnections
        // §2.3.6: the session refuses with Repeated Attempts while the peer must wait.
        let now = timeline.now()
        if let attempts = securityManagers.attempts, attempts.refuses(link.address, at: now),
            let until = attempts.refusedUntil(link.address)
        {
            logger.notice(
                "pairing with \(link.address) on \(handle) refused: repeated attempts, \(until - now) to wait (§2.3.6)")
            configuration.refusesAsRepeatedAttempts = true
        }
        return PairingSession(role: role, configuration: configuration)
    }

    /// Pairs as a device without LE Secure Connections would (legacy pairing only, §2.3.5.2–
    /// §2.3.5.5): for emulating older peers.
    func setSupportsSecureConnections(_ supported: Bool) {
        securityManagers.supportsSecureConnections = supported
    }

    // MARK: Receiving

    /// A PDU on the SMP fixed channel (CID 0x0006).
    func receivedSMP(_ payload: ArraySlice<UInt8>, on handle: ConnectionHandle) {
        guard let link = securityManagers[handle] else {
            statistics.eventsForUnknownHandle += 1
            return logger.notice("dropped an SMP PDU for handle \(handle): no such connection")
        }
        guard !link.closed else {
            // §3.4: after a timeout no further SMP procedure runs on the link.
            statistics.smpPDUsAfterTimeout += 1
            return logger.notice("dropped an SMP PDU on \(handle): SMP is closed on this link after a timeout")
        }
        let command: SMPCommand
        do throws(DecodeError) {
            command = try SMPCommand(decoding: payload)
        } catch {
            statistics.undecodableSMPPDUs += 1
            logger.warning("an SMP PDU on \(handle) does not decode: \(error) [\(Hex.string(payload))]")
            return rejectSMP(on: handle, reason: .invalidParameters)
        }
        if tracesPackets { logger.trace("SMP rx \(handle): \(command)") }
        if case .unknown(let code, _) = command {
            // §3.3: a code this version does not know.
            statistics.undecodableSMPPDUs += 1
            logger.notice("SMP command \(SMPCode(code)) on \(handle) is not supported")
            return rejectSMP(on: handle, reason: .commandNotSupported)
        }
        if link.session != nil { return runSession(handle) { $0.received(command) } }
        receivedWithoutSession(command, link, on: handle)
    }

    /// A command while no pairing runs: a Pairing Request starts the responder, a Security
    /// Request makes the central encrypt or pair; anything else is out of sequence.
    private func receivedWithoutSession(
        _ command: SMPCommand, _ link: SecurityManagerLinks.Link, on handle: ConnectionHandle
    ) {
        switch (command, link.role) {
        case (.pairingRequest, .peripheral):
            guard let session = makeSession(.responder, on: handle) else { return }
            _ = securityManagers.begin(session, on: handle)
            runSession(handle) { $0.received(command) }
        case (.securityRequest(let request), .central):
            securityRequested(request, on: handle)
        case (.pairingFailed(let failed), _) where link.requestedSecurity:
            // The central refused the Security Request.
            pairingFailed(.failed(failed.reason, byPeer: true), on: handle)
        case (.pairingFailed(let failed), _):
            // Never answered (a Pairing Failed for a Pairing Failed would never end).
            statistics.unexpectedSMPCommands += 1
            logger.notice("dropped a Pairing Failed (\(failed.reason)) on \(handle): no pairing in progress")
        case (.pairingRequest, _), (.securityRequest, _):
            // The wrong role's command (§3.3: Pairing Request goes to the responder, Security
            // Request to the initiator).
            statistics.unexpectedSMPCommands += 1
            logger.notice("refused \(command.code) on \(handle): not a command for this link's \(link.role)")
            sendSMP(.pairingFailed(SMP.PairingFailed(reason: .commandNotSupported)), on: handle)
        default:
            statistics.unexpectedSMPCommands += 1
            logger.notice("refused \(command.code) on \(handle): no pairing in progress")
            sendSMP(.pairingFailed(SMP.PairingFailed(reason: .unspecifiedReason)), on: handle)
        }
    }

    /// A Security Request (§3.6.7, §2.4.6; Part C §10.3): encrypt with the bond's key when it
    /// is good enough for the AuthReq asked, pair otherwise; nothing while encryption runs or
    /// when the link is already as secure as asked.
    private func securityRequested(_ request: SMP.SecurityRequest, on handle: ConnectionHandle) {
        guard let link = encryption[handle], link.expected == nil else { return }
        let wantsMITM = request.authReq.contains(.mitm)
        if case .encrypted(_, let authenticated, _) = link.security, authenticated || !wantsMITM {
            return logger.debug("Security Request on \(handle): the link is already as secure as asked")
        }
        if let bond = bond(forPeer: link.peer), bond.peerLongTermKey != nil, bond.authenticated || !wantsMITM,
            case .unencrypted = link.security
        {
            spawn { _ = try? await self.encrypt(handle) }
            return
        }
        beginPairing(handle, securityRequest: request.authReq)
    }

    /// A PDU that cannot be taken: Pairing Failed with `reason`, which ends any pairing.
    private func rejectSMP(on handle: ConnectionHandle, reason: SMP.PairingFailedReason) {
        sendSMP(.pairingFailed(SMP.PairingFailed(reason: reason)), on: handle)
        if let link = securityManagers[handle], link.session != nil || link.requestedSecurity {
            pairingFailed(.failed(reason, byPeer: false), on: handle)
        }
    }

    func sendSMP(_ command: SMPCommand, on handle: ConnectionHandle) {
        if tracesPackets { logger.trace("SMP tx \(handle): \(command)") }
        sendL2CAP(command.encoded, channel: .smp, on: handle, priority: .signaling)
    }

    // MARK: Encryption

    /// The key (and the security it gives) for an LE Long Term Key Request that pairing in
    /// progress answers (the STK of legacy pairing, the LTK of Secure Connections).
    func pairingKey(forLongTermKeyRequestOn handle: ConnectionHandle) -> (LongTermKey, LinkSecurity)? {
        securityManagers[handle]?.providedKey
    }

    /// Encryption started (`security`) or failed (nil) on a link pairing may be waiting for.
    func smpEncryptionChanged(_ handle: ConnectionHandle, security: LinkSecurity?) {
        guard let link = securityManagers[handle] else { return }
        if link.session != nil { return runSession(handle) { $0.encryptionStarted(security) } }
        // A peripheral that sent a Security Request: the central encrypted with its bond's key
        // instead of pairing (§2.4.6).
        guard link.requestedSecurity, let security else { return }
        for waiter in securityManagers.end(handle) { waiter.resume(returning: .success(security)) }
    }
}
