import BLE
import BLEWire
import Foundation

/// Links and pending connects: the apps' holds in `links` (`LinkTable`, which decides), the
/// system's one central manager doing what it decides. A pending connect never times out
/// (Core Bluetooth Programming Guide, "Core Bluetooth Background Processing for iOS Apps": it
/// outlives the app's suspension).
extension SystemBluetooth {
    /// The system's peripheral with this identifier, if it has seen it.
    func systemPeripheral(_ identifier: UUID) async -> Peripheral? {
        await central.retrievePeripherals(withIdentifiers: [identifier]).first
    }

    package func known(_ identifiers: [UUID]) async -> [Peripheral] {
        await central.retrievePeripherals(withIdentifiers: identifiers)
    }

    package func connected(withServices services: [BluetoothUUID]) async -> [Peripheral] {
        await central.retrieveConnectedPeripherals(withServices: services)
    }

    /// The peripheral's state as the app's manager sees it: its own hold, not the link's.
    package func state(of identifier: UUID, for app: AppIdentifier, _ id: ManagerID) -> PeripheralState {
        switch links.hold(of: identifier, by: ClientKey(app, id))?.state {
        case .connected: .connected
        case .connecting: .connecting
        case nil: .disconnected
        }
    }

    package func connect(_ app: AppIdentifier, _ id: ManagerID, _ identifier: UUID, options: PhoneConnectOptions)
        async throws(BLEError)
    {
        let state = await central.state
        guard state == .poweredOn else { throw .notPoweredOn(state) }
        guard apps[app]?.centrals[id] != nil else { throw .closed }
        guard let peripheral = await systemPeripheral(identifier) else { throw .unknownPeripheral }
        let linkUp = await peripheral.state == .connected
        await carryOut(links.connect(ClientKey(app, id), to: identifier, options: options, linkUp: linkUp))
    }

    /// The app gives up its connect or its hold; the link ends when nobody else holds it.
    package func cancelConnection(_ app: AppIdentifier, _ id: ManagerID, _ identifier: UUID) async {
        await carryOut(links.cancel(ClientKey(app, id), identifier))
    }

    /// Does what the link table decided, in order. `error` and `reason` are the outcome the
    /// input carried (a failed attempt's error, a lost link's reason).
    func carryOut(_ actions: [LinkTable.Action], error: BLEError? = nil, reason: HCIStatus? = nil) async {
        defer { restorationMayHaveChanged() }
        for action in actions {
            switch action {
            case .startAttempt(let identifier):
                guard let peripheral = await systemPeripheral(identifier) else {
                    await carryOut(links.attemptFailed(identifier), error: .unknownPeripheral)
                    continue
                }
                startAttempt(peripheral)
            case .endLink(let identifier):
                attempts.removeValue(forKey: identifier)?.task.cancel()
                if let peripheral = await systemPeripheral(identifier) {
                    await central.cancelPeripheralConnection(peripheral)
                }
            case .writeConfiguration(let key, let enabled):
                if let peripheral = await systemPeripheral(key.peripheral) {
                    await writeConfiguration(enabled, key, peripheral)
                }
            case .connected(let client, let identifier, let alert):
                guard let peripheral = await systemPeripheral(identifier) else { continue }
                await watch(peripheral)
                let name = Self.quoted(await peripheral.name)
                offerCentral(
                    client.app, client.manager, .connection, "connected \(name) \(identifier)",
                    alert: alert ? "\(client.app): connected to \(name)" : nil
                ) { manager in .connected(manager.handle(for: peripheral)) }
            case .failedToConnect(let client, let identifier):
                guard let peripheral = await systemPeripheral(identifier) else { continue }
                let error = error ?? .connectionFailed(.unspecifiedError)
                offerCentral(
                    client.app, client.manager, .connectionFailure,
                    "failed to connect \(identifier): \(TerminalText.escaped("\(error)"))"
                ) { manager in .failedToConnect(manager.handle(for: peripheral), error) }
            case .disconnected(let client, let identifier, let alert, let cancelled):
                guard let peripheral = await systemPeripheral(identifier) else { continue }
                // The app's own cancel: this side ended its hold (0x16, Core 5.4 Vol 4 Part E §7.7.5).
                let reason = cancelled ? HCIStatus.connectionTerminatedByLocalHost : reason ?? .unspecifiedError
                let name = Self.quoted(await peripheral.name)
                offerCentral(
                    client.app, client.manager, .disconnection,
                    "disconnected \(name) \(identifier) (\(cancelled ? "cancelled" : "\(reason)"))",
                    alert: alert ? "\(client.app): \(name) disconnected" : nil
                ) { manager in .disconnected(manager.handle(for: peripheral), reason: reason) }
            }
        }
    }

    /// The system's connect for `peripheral`, one for every app waiting (no timeout). An
    /// outcome of an attempt since replaced is ignored.
    func startAttempt(_ peripheral: Peripheral) {
        let identifier = peripheral.identifier
        nextAttempt += 1
        let token = nextAttempt
        let central = self.central
        let task = spawn { [weak self] in
            let outcome: Result<Void, BLEError>
            do throws(BLEError) {
                try await central.connect(peripheral, options: ConnectOptions())
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            await self?.attemptEnded(peripheral, token: token, outcome)
        }
        attempts[identifier] = (token, task)
    }

    func attemptEnded(_ peripheral: Peripheral, token: UInt64, _ outcome: Result<Void, BLEError>) async {
        let identifier = peripheral.identifier
        guard attempts[identifier]?.token == token else { return }
        attempts[identifier] = nil
        switch outcome {
        case .success:
            forgetInScans(identifier)
            await carryOut(links.attemptSucceeded(identifier, rank: foregroundedAt))
        case .failure(let error):
            await carryOut(links.attemptFailed(identifier), error: error)
        }
    }

    // MARK: Link events

    /// Reads the central manager's events: a link lost goes to every app holding it.
    func watchCentralEvents() -> Task<Void, Never> {
        let events = central.events
        return spawn { [weak self] in
            for await event in events {
                guard let self else { return }
                if case .disconnected(let peripheral, let reason) = event {
                    await self.linkLost(peripheral, reason: reason)
                }
            }
        }
    }

    func linkLost(_ peripheral: Peripheral, reason: HCIStatus) async {
        forgetInScans(peripheral.identifier)
        await carryOut(links.linkLost(peripheral.identifier, rank: foregroundedAt), reason: reason)
    }
}
