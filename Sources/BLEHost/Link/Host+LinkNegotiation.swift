import BLEWire

/// Link negotiation after a connection (`LinkNegotiation` performed) and the link procedures
/// the central and the peripheral ask for (Core 5.4 Vol 4 Part E §7.8.18, §7.8.33, §7.8.49).
extension Host {
    /// The policy's ATT_MTU for a new bearer: the host's preferred one, capped by the policy's.
    var bearerMTU: Int {
        configuration.linkPolicy.attMTU.map { min($0, configuration.preferredATTMTU) }
            ?? configuration.preferredATTMTU
    }

    /// LE Connection Complete in the central role: negotiates the link as the policy says,
    /// on a task of its own; `waitForLinkNegotiation` returns once it is over.
    func startLinkNegotiation(_ info: ConnectionInfo) {
        guard info.role == .central else { return }
        var negotiation = LinkNegotiation(
            policy: configuration.linkPolicy, localFeatures: controllerInfo.leFeatures,
            hostMTU: configuration.preferredATTMTU)
        for step in negotiation.skipped {
            logger.debug("link \(info.handle): \(step) not asked, the controller lacks the feature")
        }
        let first = negotiation.start()
        guard case .perform = first else { return }
        let handle = info.handle
        let machine = negotiation
        linkControl.negotiating[handle] = WaiterQueue()
        spawn { await self.negotiate(handle, machine, first) }
    }

    private func negotiate(_ handle: ConnectionHandle, _ machine: LinkNegotiation, _ first: LinkNegotiation.Action)
        async
    {
        var machine = machine
        var action = first
        while case .perform(let step) = action {
            let outcome: LinkNegotiation.Outcome
            if connections[handle] == nil {
                outcome = .linkLost
            } else {
                outcome = await perform(step, on: handle)
            }
            if case .refused(let status) = outcome {
                logger.debug("link \(handle): \(step) ended with \(status); the link keeps what it had")
            }
            action = machine.completed(step, outcome)
        }
        if var waiters = linkControl.negotiating.removeValue(forKey: handle) { waiters.resumeAll() }
    }

    private func perform(_ step: LinkNegotiation.Step, on handle: ConnectionHandle) async -> LinkNegotiation.Outcome {
        do throws(HostError) {
            switch step {
            case .setDataLength(let length):
                try await send(
                    HCI.LESetDataLength(connectionHandle: handle, txOctets: length.octets, txTime: length.time))
                return .done
            case .setPHY2M:
                let status = try await setPHY(handle, tx: .le2M, rx: .le2M)
                return status.isSuccess ? .done : .refused(status)
            case .exchangeMTU:
                do throws(ATTBearerError) {
                    _ = try await exchangeMTU(on: handle)
                    return .done
                } catch {
                    return connections[handle] == nil ? .linkLost : .refused(.unspecifiedError)
                }
            case .updateConnection(let parameters):
                let status = try await updateConnection(handle, parameters)
                return status.isSuccess ? .done : .refused(status)
            }
        } catch {
            if connections[handle] == nil { return .linkLost }
            if case .commandFailed(_, let status) = error { return .refused(status) }
            return .refused(.unspecifiedError)
        }
    }

    /// Returns once the link's negotiation is over (at once when none runs).
    public func waitForLinkNegotiation(_ handle: ConnectionHandle) async {
        await WaiterQueue.wait(unless: { linkControl.negotiating[handle] == nil }) {
            linkControl.negotiating[handle]?.append($0)
        }
    }

    // MARK: Link procedures

    /// LE Connection Update (§7.8.18) and its LE Connection Update Complete (§7.7.65.3): as
    /// central the controller updates the link; as peripheral it asks the central with the LL
    /// Connection Parameters Request procedure. Returns the event's status (the link's state is
    /// then in `connection(_:)`); a refused command throws.
    @discardableResult
    public func updateConnection(_ handle: ConnectionHandle, _ parameters: HCI.ConnectionParameters)
        async throws(HostError) -> HCIStatus
    {
        try await runProcedure(.connectionUpdate, on: handle, opcode: HCI.LEConnectionUpdate.opcode) {
            () async throws(HostError) in
            try await self.send(HCI.LEConnectionUpdate(connectionHandle: handle, connectionParameters: parameters))
        }
    }

    /// LE Set PHY (§7.8.49) and its LE PHY Update Complete (§7.7.65.12). Returns the event's status.
    @discardableResult
    public func setPHY(_ handle: ConnectionHandle, tx: HCI.LEPHYs, rx: HCI.LEPHYs) async throws(HostError)
        -> HCIStatus
    {
        try await runProcedure(.phyUpdate, on: handle, opcode: HCI.LESetPHY.opcode) { () async throws(HostError) in
            try await self.send(HCI.LESetPHY(connectionHandle: handle, txPHYs: tx, rxPHYs: rx))
        }
    }

    /// Sends a command whose procedure ends with an LE event of the link, and waits for that
    /// event's status. One procedure of a kind at a time on a link (§7.8.18: Command Disallowed).
    private func runProcedure(
        _ procedure: LinkControl.Procedure, on handle: ConnectionHandle, opcode: HCIOpcode,
        _ command: () async throws(HostError) -> Void
    ) async throws(HostError) -> HCIStatus {
        let key = LinkControl.ProcedureKey(handle: handle, procedure: procedure)
        guard connections[handle] != nil else { throw .commandFailed(opcode, .unknownConnectionIdentifier) }
        guard linkControl.procedures[key] == nil else { throw .commandFailed(opcode, .commandDisallowed) }
        linkControl.procedures[key] = .expecting
        do throws(HostError) {
            try await command()
        } catch {
            linkControl.procedures[key] = nil
            throw error
        }
        return await procedureEnd(procedure, on: handle)
    }

    /// Waits for the completion event of `procedure`, expected on `handle` (its slot set).
    /// A controller that never reports the end would hold the caller (and a negotiation) for
    /// ever: the LL procedure response timeout, 40 s (Vol 6 Part B §5.2), bounds the wait.
    func procedureEnd(_ procedure: LinkControl.Procedure, on handle: ConnectionHandle) async -> HCIStatus {
        let key = LinkControl.ProcedureKey(handle: handle, procedure: procedure)
        let clock = self.clock
        let watchdog = spawn {
            do {
                try await clock.sleep(for: Self.linkProcedureTimeout)
            } catch {
                return
            }
            await self.linkProcedureTimedOut(procedure, on: handle)
        }
        defer { watchdog.cancel() }
        return await withCheckedContinuation { (waiter: CheckedContinuation<HCIStatus, Never>) in
            switch linkControl.procedures[key] {
            case .arrived(let status)?:
                linkControl.procedures[key] = nil
                waiter.resume(returning: status)
            case .expecting?:
                linkControl.procedures[key] = .waiting(waiter)
            case nil, .waiting?:
                // The link went down meanwhile.
                waiter.resume(returning: .unknownConnectionIdentifier)
            }
        }
    }

    /// How long the host waits for a link procedure's completion event.
    static let linkProcedureTimeout = Duration.seconds(40)

    private func linkProcedureTimedOut(_ procedure: LinkControl.Procedure, on handle: ConnectionHandle) {
        guard linkControl.complete(procedure, on: handle, status: .llResponseTimeout) else { return }
        statistics.linkProcedureTimeouts += 1
        logger.warning("link \(handle): no completion of \(procedure) within \(Self.linkProcedureTimeout)")
    }

    /// An LE event that ends a procedure arrived (before the connection's state is updated).
    func linkProcedureEnded(_ procedure: LinkControl.Procedure, on handle: ConnectionHandle, status: HCIStatus) {
        _ = linkControl.complete(procedure, on: handle, status: status)
    }
}
