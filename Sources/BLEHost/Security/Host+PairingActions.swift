import BLEWire

// Running what a `PairingSession` returns (Core 5.4 Vol 3 Part H §2.3–§2.4, §3.4–§3.6): SMP
// commands out on CID 0x0006, questions to the pairing agent, encryption, the SMP timer, and
// the outcome — a bond saved, the peer's identity, events, the callers of `pair` resumed.
extension Host {
    /// Feeds one input to the link's session and runs its actions.
    func runSession(_ handle: ConnectionHandle, _ step: (inout PairingSession) -> [PairingAction]) {
        guard var session = securityManagers[handle]?.session,
            let generation = securityManagers[handle]?.generation
        else { return }
        let actions = step(&session)
        securityManagers[handle]?.session = session
        performPairing(actions, on: handle)
        // A session that ended without reporting it (it always should) is not kept.
        if session.isFinished, let link = securityManagers[handle], link.generation == generation,
            link.session != nil
        {
            pairingFailed(.failed(.unspecifiedReason, byPeer: false), on: handle)
        }
    }

    private func performPairing(_ actions: [PairingAction], on handle: ConnectionHandle) {
        for action in actions {
            switch action {
            case .send(let command):
                sendSMP(command, on: handle)
            case .ask(let question):
                askAgent(question, on: handle)
            case .startEncryption(let key, let security):
                spawn {
                    do throws(PairingError) {
                        _ = try await self.startEncryption(handle, with: key, giving: security)
                    } catch {
                        // Encryption Change reports its own failure (smpEncryptionChanged); a
                        // command the controller refused does not.
                        if case .controller = error { await self.smpEncryptionChanged(handle, security: nil) }
                    }
                }
            case .provideKey(let key, let security):
                securityManagers[handle]?.providedKey = (key, security)
            case .startTimer:
                startSMPTimer(handle)
            case .stopTimer:
                securityManagers[handle]?.deadline = nil
            case .methodChosen(let method):
                securityManagers[handle]?.method = method
                logger.debug("pairing on \(handle): \(method)")
                emit(.security(handle: handle, .pairingStarted(method)))
            case .completed(let keys):
                pairingCompleted(keys, on: handle)
            case .failed(let error):
                pairingFailed(error, on: handle)
            }
        }
    }

    // MARK: The agent

    /// Asks the agent on a task of the host's executor (a person may take seconds); the answer
    /// goes to the session that asked, if it still runs.
    private func askAgent(_ question: PairingAgentQuestion, on handle: ConnectionHandle) {
        guard let link = securityManagers[handle] else { return }
        let generation = link.generation
        let agent = pairingAgent
        var info = PairingRequestInfo(
            connection: handle, peer: link.address, method: link.method ?? .justWorks,
            isInitiator: link.role == .central)
        if case .authorize(let method) = question { info.method = method }
        let request = info
        spawn {
            let info = request
            let answer: PairingAgentAnswer
            switch question {
            case .authorize:
                answer = .authorized(await agent.authorizePairing(info))
            case .displayPasskey(let passkey):
                await agent.displayPasskey(passkey, for: info)
                answer = .displayed
            case .enterPasskey:
                answer = .passkey(await agent.requestPasskey(for: info))
            case .confirmNumber(let value):
                answer = .confirmed(await agent.confirmNumericComparison(value, for: info))
            case .outOfBandData:
                answer = .outOfBand(await agent.outOfBandData(for: info))
            }
            await self.agentAnswered(answer, on: handle, generation: generation)
        }
    }

    private func agentAnswered(_ answer: PairingAgentAnswer, on handle: ConnectionHandle, generation: Int) {
        guard let link = securityManagers[handle], link.generation == generation, link.session != nil else {
            return logger.debug("the pairing agent answered after its pairing on \(handle) ended")
        }
        runSession(handle) { $0.answered(answer) }
    }

    // MARK: Outcomes

    /// Pairing completed (§3.6): the bond when both sides bond, the peer's identity, the events,
    /// and the callers resumed with the link's security.
    private func pairingCompleted(_ keys: PairingKeys, on handle: ConnectionHandle) {
        let linkAddress = securityManagers[handle]?.address ?? encryption[handle]?.peer
        if let linkAddress { securityManagers.attempts?.succeeded(linkAddress) }
        var bond: Bond?
        if keys.bonded, let linkAddress, let local = ownAddress {
            var made = keys.bond(local: local, peerAddress: linkAddress)
            // What the host kept for the peer under an earlier bond stays (its GATT state).
            if let old = self.bond(forPeer: made.peer) {
                made.gattClientState = old.gattClientState
                made.gattDatabase = old.gattDatabase
                made.gattDatabaseHash = old.gattDatabaseHash
            }
            saveBond(made)
            bond = made
        }
        let identity = keys.peerIdentityAddress ?? linkAddress
        if let identity, encryption[handle]?.peer != identity {
            encryption[handle]?.peer = identity
            emit(.security(handle: handle, .identityResolved(identity)))
        }
        logger.debug(
            "paired on \(handle) (\(keys.method), \(keys.security))\(bond == nil ? ", not bonded" : ", bonded")")
        emit(.security(handle: handle, .paired(bond: bond)))
        let security = encryption[handle]?.security ?? keys.security
        let waiters = securityManagers.end(handle)
        if securityManagers[handle]?.role == .central, !acl.isDelivered(handle) {
            // The initiator distributes its keys last (§3.6.1): its callers resume once they are
            // sent, so that one who disconnects at once leaves the peer with its bond.
            return securityManagers.awaitDelivery(handle, security: security, waiters: waiters)
        }
        for waiter in waiters { waiter.resume(returning: .success(security)) }
    }

    /// Resumes the callers of pairings whose last key distribution PDUs are sent.
    func releaseDeliveredPairings() {
        for (security, waiters) in securityManagers.delivered(where: acl.isDelivered) {
            for waiter in waiters { waiter.resume(returning: .success(security)) }
        }
    }

    /// Pairing failed: reported, the callers fail, the peer waits before trying again (§2.3.6).
    func pairingFailed(_ error: PairingError, on handle: ConnectionHandle) {
        logger.notice("pairing on \(handle) failed: \(error)")
        switch error {
        case .disconnected, .notConnected: break
        default: if let address = securityManagers[handle]?.address { recordFailedAttempt(by: address) }
        }
        emit(.security(handle: handle, .pairingFailed(error)))
        for waiter in securityManagers.end(handle) { waiter.resume(returning: .failure(error)) }
    }

    // MARK: Repeated attempts (§2.3.6)

    private func recordFailedAttempt(by peer: LEAddress) {
        if securityManagers.attempts == nil {
            securityManagers.attempts = RepeatedAttempts(policy: configuration.security)
        }
        securityManagers.attempts?.failed(peer, at: timeline.now())
    }
}
