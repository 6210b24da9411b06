import BLEHost
import BLEWire

/// A caller of `connect` waiting for its attempt's outcome.
struct ConnectionWaiter {
    let peripheral: Peripheral
    var outcome: Result<ConnectionHandle, BLEError>?
    var continuation: CheckedContinuation<Result<ConnectionHandle, BLEError>, Never>?
    var timer: Task<Void, Never>?
}

/// The central's connection attempts: the pending set and its initiator (`PendingConnections`,
/// a value), the callers waiting, and whether a task is sending the initiator's commands.
struct Connector {
    var pending = PendingConnections()
    var waiters: [UInt64: ConnectionWaiter] = [:]
    var nextID: UInt64 = 0
    var isDriving = false
}

/// Connecting and disconnecting (Core 5.4 Vol 3 Part C §9.3; Vol 4 Part E §7.1.6, §7.8.12,
/// §7.8.13), Core Bluetooth's `connect(_:options:)` and `cancelPeripheralConnection(_:)`.
extension CentralManager {
    /// Connects to `peripheral` and negotiates the link as `HostConfiguration.linkPolicy` says
    /// (data length, PHY, ATT_MTU); on return the peripheral is `.connected`. As Core
    /// Bluetooth's, the attempt waits until the device appears — however long — unless
    /// `options.timeout` is set (then `.connectionTimeout`), the app cancels it
    /// (`cancelPeripheralConnection`, or cancelling the calling task: `.connectionCancelled`),
    /// or the radio goes. Any number of attempts wait at once, none behind another
    /// (`PendingConnections`). No scan is needed: a peripheral retrieved by identifier is
    /// initiated directly. Connecting a connected peripheral returns at once.
    public func connect(_ peripheral: Peripheral, options: ConnectOptions = ConnectOptions()) async throws(BLEError) {
        try checkPoweredOn()
        guard known[peripheral.identifier] === peripheral else { throw .unknownPeripheral }
        switch await peripheral.beginConnecting() {
        case .connected: return
        case .connecting, .disconnecting: throw .connectionInProgress
        case .disconnected: break
        }
        var result = await waitForConnection(peripheral, options)
        if case .success = result, state != .poweredOn {
            // Powered off while the link came up anyway: it goes down again.
            await disconnect(peripheral, reason: .remoteDeviceTerminatedPowerOff)
            result = .failure(.notPoweredOn(state))
        }
        switch result {
        case .success(let handle):
            // The host negotiates the link as its policy says (data length, PHY, ATT_MTU):
            // the app gets it as a phone's app would.
            await stack.host.waitForLinkNegotiation(handle)
            guard await stack.host.connection(handle) != nil else { throw .notConnected }
            await peripheral.linkSettled()
        case .failure(let error):
            await peripheral.connectionAttemptEnded()
            eventSink.yield(.failedToConnect(peripheral, error))
            throw error
        }
    }

    /// Cancels a pending connection attempt, or disconnects (Remote User Terminated
    /// Connection, 0x13) and returns once the link is down.
    public func cancelPeripheralConnection(_ peripheral: Peripheral) async {
        guard known[peripheral.identifier] === peripheral else { return }
        if let id = connector.waiters.first(where: { $0.value.peripheral === peripheral && $0.value.outcome == nil })?
            .key
        {
            endAttempt(id, with: .connectionCancelled)
            return
        }
        await disconnect(peripheral, reason: .remoteUserTerminatedConnection)
    }

    /// Disconnects a connected peripheral with `reason` and waits for the link to go down.
    func disconnect(_ peripheral: Peripheral, reason: HCIStatus) async {
        switch await peripheral.beginDisconnecting() {
        case .some(let handle):
            do {
                try await stack.host.send(HCI.Disconnect(connectionHandle: handle, reason: reason))
            } catch {
                // The link is already going down, or the controller refused: in the first case its
                // Disconnection Complete settles the peripheral.
                if await stack.host.connection(handle) != nil {
                    await peripheral.setLink(.connected(handle))
                    return
                }
            }
            await peripheral.waitForDisconnection()
        case .none:
            await peripheral.waitForDisconnection()
        }
    }

    /// Adds the attempt to the pending set and waits for its outcome.
    private func waitForConnection(_ peripheral: Peripheral, _ options: ConnectOptions) async -> Result<
        ConnectionHandle, BLEError
    > {
        let id = connector.nextID
        connector.nextID += 1
        connector.pending.add(
            PendingConnections.Attempt(
                id: id, address: peripheral.address, parameters: options.connectionParameters))
        connector.waiters[id] = ConnectionWaiter(peripheral: peripheral)
        let stack = self.stack
        if let timeout = options.timeout {
            connector.waiters[id]?.timer = stack.spawn { [weak self] in
                guard await stack.sleep(for: timeout) else { return }
                await self?.endAttempt(id, with: .connectionTimeout(timeout))
            }
        }
        stack.spawn { [weak self] in await self?.driveInitiator() }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<ConnectionHandle, BLEError>, Never>) in
                if let outcome = connector.waiters[id]?.outcome {
                    continuation.resume(returning: outcome)
                } else {
                    connector.waiters[id]?.continuation = continuation
                }
            }
        } onCancel: { [weak self] in
            guard let manager = self else { return }
            stack.spawn { await manager.endAttempt(id, with: .connectionCancelled) }
        }
        connector.waiters[id]?.timer?.cancel()
        connector.waiters[id] = nil
        return outcome
    }

    /// Ends the pending attempt `id` with `error` (timeout, cancellation): the others go on, the
    /// initiator is restarted without it. A connection made meanwhile is taken down again when
    /// it comes (nobody waits for it).
    func endAttempt(_ id: UInt64, with error: BLEError) {
        guard connector.waiters[id]?.outcome == nil, connector.waiters[id] != nil else { return }
        connector.pending.remove(id)
        resolve(id, .failure(error))
        stack.spawn { [weak self] in await self?.driveInitiator() }
    }

    /// Ends every pending attempt with `error` (the radio went off).
    func endAllAttempts(with error: BLEError) async {
        for id in connector.pending.removeAll() { resolve(id, .failure(error)) }
        await driveInitiator()
    }

    /// The controller is gone: every pending attempt fails (Hardware Failure, 0x03).
    func failAttemptsControllerLost() {
        for id in connector.pending.controllerLost() { resolve(id, .failure(.connectionFailed(.hardwareFailure))) }
    }

    private func resolve(_ id: UInt64, _ outcome: Result<ConnectionHandle, BLEError>) {
        guard connector.waiters[id] != nil, connector.waiters[id]?.outcome == nil else { return }
        connector.waiters[id]?.outcome = outcome
        connector.waiters[id]?.timer?.cancel()
        if let continuation = connector.waiters[id]?.continuation {
            connector.waiters[id]?.continuation = nil
            continuation.resume(returning: outcome)
        }
    }

    /// Sends the initiator's commands, one at a time, until it is as the pending set wants it.
    /// One task drives at a time; an input arriving meanwhile is seen by its next turn.
    func driveInitiator() async {
        guard !connector.isDriving else { return }
        connector.isDriving = true
        defer { connector.isDriving = false }
        while let action = connector.pending.nextAction() {
            do throws(HostError) {
                try await perform(action)
                connector.pending.completed(action)
            } catch {
                let status: HCIStatus
                if case .commandFailed(_, let refused) = error {
                    status = refused
                } else {
                    status = .unspecifiedError
                }
                stack.host.logger.notice("central manager: \(action) failed: \(error)")
                for failure in connector.pending.failed(action, status: status) {
                    resolve(failure.id, .failure(.connectionFailed(failure.status)))
                }
            }
        }
    }

    /// Sends one of the initiator's commands (Vol 4 Part E §7.8.12–§7.8.17).
    private func perform(_ action: PendingConnections.Action) async throws(HostError) {
        let host = stack.host
        switch action {
        case .createConnection(let peer, let parameters):
            try await sendCreateConnection(
                to: peer, scanInterval: Self.scanInterval, scanWindow: Self.scanInterval, parameters: parameters)
        case .cancelCreateConnection:
            try await host.send(HCI.LECreateConnectionCancel())
        case .readFilterAcceptListSize:
            let size = try await host.send(HCI.LEReadFilterAcceptListSize()).filterAcceptListSize
            connector.pending.listSizeRead(Int(size))
        case .clearFilterAcceptList:
            try await host.send(HCI.LEClearFilterAcceptList())
        case .addToFilterAcceptList(let address):
            try await host.send(
                HCI.LEAddDeviceToFilterAcceptList(
                    addressType: address.type.isRandom ? .random : .public, address: address.address))
        case .removeFromFilterAcceptList(let address):
            try await host.send(
                HCI.LERemoveDeviceFromFilterAcceptList(
                    addressType: address.type.isRandom ? .random : .public, address: address.address))
        }
    }

    /// LE Connection Complete with a failure status (§7.7.65.1).
    func initiationFailed(_ status: HCIStatus) async {
        for failure in connector.pending.initiationEnded(status: status) {
            resolve(failure.id, .failure(.connectionFailed(failure.status)))
        }
        await driveInitiator()
    }

    /// LE Connection Complete (§7.7.65.1) in the central role: the attempt for that device is
    /// settled and the initiator restarted for the others.
    func linkUp(_ info: ConnectionInfo) async {
        guard info.role == .central else { return }
        let settled = connector.pending.connected(to: info.peerAddress)
        guard let first = settled.first, let peripheral = connector.waiters[first]?.peripheral else {
            // A connection nobody here asks for (any more).
            await stack.host.disconnect(info.handle)
            await driveInitiator()
            return
        }
        links[info.handle] = peripheral
        await peripheral.didConnect(handle: info.handle)
        for id in settled { resolve(id, .success(info.handle)) }
        eventSink.yield(.connected(peripheral))
        await driveInitiator()
    }

    /// Disconnection Complete (§7.7.5).
    func linkDown(_ handle: ConnectionHandle, reason: HCIStatus) async {
        guard let peripheral = links.removeValue(forKey: handle) else { return }
        await peripheral.didDisconnect(reason: reason)
        eventSink.yield(.disconnected(peripheral, reason: reason))
    }
}
