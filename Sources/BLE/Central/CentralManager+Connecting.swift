import BLEHost
import BLEWire

/// The LE Create Connection in progress (Core 5.4 Vol 4 Part E §7.8.12): one at a time, as the
/// controller allows.
struct ConnectionAttempt {
    enum Outcome {
        case connected(ConnectionHandle)
        case failed(HCIStatus)
    }

    /// Why the host cancelled the attempt (LE Create Connection Cancel, §7.8.13).
    enum Ending {
        case timeout(Duration)
        case cancelled
        case poweredOff
    }

    let id: UInt64
    let peripheral: Peripheral
    /// The outcome, when it came before anyone waited for it.
    var outcome: Outcome?
    var waiter: CheckedContinuation<Outcome, Never>?
    var ending: Ending?
    /// LE Create Connection was accepted: a cancellation must be sent to the controller.
    var commandSent = false
}

/// Connecting and disconnecting (Core 5.4 Vol 3 Part C §9.3; Vol 4 Part E §7.1.6, §7.8.12,
/// §7.8.13), Core Bluetooth's `connect(_:options:)` and `cancelPeripheralConnection(_:)`.
extension CentralManager {
    /// Connects to `peripheral` and negotiates the link as `HostConfiguration.linkPolicy` says
    /// (data length, PHY, ATT_MTU); on return the peripheral is `.connected`. An attempt not answered within `options.timeout` is cancelled
    /// and throws `.connectionTimeout`. Connecting a connected peripheral returns at once.
    public func connect(_ peripheral: Peripheral, options: ConnectOptions = ConnectOptions()) async throws(BLEError) {
        try checkPoweredOn()
        guard known[peripheral.identifier] === peripheral else { throw .unknownPeripheral }
        switch await peripheral.beginConnecting() {
        case .connected: return
        case .connecting, .disconnecting: throw .connectionInProgress
        case .disconnected: break
        }
        // One LE Create Connection at a time (§7.8.12: Command Disallowed while one is pending).
        while attempt != nil {
            await WaiterQueue.wait(unless: { attempt == nil }) { attemptWaiters.append($0) }
        }
        let id = nextAttemptID
        nextAttemptID += 1
        attempt = ConnectionAttempt(id: id, peripheral: peripheral)
        var result = await run(id, peripheral, options)
        attempt = nil
        attemptWaiters.resumeFirst()
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

    /// Cancels a connection attempt, or disconnects (Remote User Terminated Connection, 0x13)
    /// and returns once the link is down.
    public func cancelPeripheralConnection(_ peripheral: Peripheral) async {
        guard known[peripheral.identifier] === peripheral else { return }
        if let current = attempt, current.peripheral === peripheral {
            await endAttempt(current.id, because: .cancelled)
            return
        }
        await disconnect(peripheral, reason: .remoteUserTerminatedConnection)
    }

    /// Disconnects a connected peripheral with `reason` and waits for the link to go down; a
    /// peripheral still waiting its turn to connect is taken out of the queue.
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

    /// Sends LE Create Connection and waits for its outcome, the timeout or a cancellation.
    private func run(_ id: UInt64, _ peripheral: Peripheral, _ options: ConnectOptions) async -> Result<
        ConnectionHandle, BLEError
    > {
        guard await peripheral.state == .connecting else { return .failure(.connectionCancelled) }
        if let ending = attempt?.ending {
            return .failure(Self.error(for: ending, status: .unknownConnectionIdentifier))
        }
        let address = peripheral.address
        do {
            try await sendCreateConnection(
                to: address, scanInterval: Self.scanInterval, scanWindow: Self.scanInterval,
                parameters: options.connectionParameters)
        } catch {
            return .failure(.host(error))
        }
        attempt?.commandSent = true
        // Cancelled while the command was on its way: cancel it now.
        if attempt?.ending != nil { _ = try? await stack.host.send(HCI.LECreateConnectionCancel()) }
        let stack = self.stack
        let timer = stack.spawn { [weak self] in
            guard await stack.sleep(for: options.timeout) else { return }
            await self?.endAttempt(id, because: .timeout(options.timeout))
        }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ConnectionAttempt.Outcome, Never>) in
                if let outcome = attempt?.outcome {
                    continuation.resume(returning: outcome)
                } else {
                    attempt?.waiter = continuation
                }
            }
        } onCancel: { [weak self] in
            guard let manager = self else { return }
            stack.spawn { await manager.endAttempt(id, because: .cancelled) }
        }
        timer.cancel()
        switch outcome {
        case .connected(let handle):
            return .success(handle)
        case .failed(let status):
            return .failure(Self.error(for: attempt?.ending, status: status))
        }
    }

    /// Why an attempt failed: the host's reason for cancelling it, else the controller's status.
    private static func error(for ending: ConnectionAttempt.Ending?, status: HCIStatus) -> BLEError {
        switch ending {
        case .timeout(let timeout): .connectionTimeout(timeout)
        case .cancelled: .connectionCancelled
        case .poweredOff: .notPoweredOn(.poweredOff)
        case nil: .connectionFailed(status)
        }
    }

    /// Cancels the attempt `id` if it is still waiting (§7.8.13); its LE Connection Complete
    /// with Unknown Connection Identifier (0x02) then ends it — or, when the connection was made
    /// meanwhile, the connection does.
    func endAttempt(_ id: UInt64, because ending: ConnectionAttempt.Ending) async {
        guard let current = attempt, current.id == id, current.outcome == nil, current.ending == nil else { return }
        attempt?.ending = ending
        // Before LE Create Connection was accepted, the attempt sees `ending` and cancels itself.
        guard current.commandSent else { return }
        _ = try? await stack.host.send(HCI.LECreateConnectionCancel())
    }

    /// The attempt's outcome arrived.
    func settleAttempt(_ outcome: ConnectionAttempt.Outcome) {
        guard attempt != nil, attempt?.outcome == nil else { return }
        attempt?.outcome = outcome
        if let waiter = attempt?.waiter {
            attempt?.waiter = nil
            waiter.resume(returning: outcome)
        }
    }

    /// LE Connection Complete (§7.7.65.1) in the central role.
    func linkUp(_ info: ConnectionInfo) async {
        guard info.role == .central else { return }
        guard let current = attempt, current.outcome == nil,
            current.peripheral.address.address == info.peerAddress.address,
            current.peripheral.address.type.isRandom == info.peerAddress.type.isRandom
        else {
            // A connection nobody here asked for.
            await stack.host.disconnect(info.handle)
            return
        }
        links[info.handle] = current.peripheral
        await current.peripheral.didConnect(handle: info.handle)
        settleAttempt(.connected(info.handle))
        eventSink.yield(.connected(current.peripheral))
    }

    /// Disconnection Complete (§7.7.5).
    func linkDown(_ handle: ConnectionHandle, reason: HCIStatus) async {
        guard let peripheral = links.removeValue(forKey: handle) else { return }
        await peripheral.didDisconnect()
        eventSink.yield(.disconnected(peripheral, reason: reason))
    }
}
