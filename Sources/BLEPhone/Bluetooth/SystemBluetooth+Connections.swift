import BLE
import Foundation

/// Links and pending connects: held per app, made and ended by the system's one central
/// manager. A pending connect never times out (Core Bluetooth Programming Guide, "Core
/// Bluetooth Background Processing for iOS Apps": it outlives the app's suspension).
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
        switch apps[app]?.centrals[id]?.held[identifier]?.state {
        case .connected: .connected
        case .connecting: .connecting
        case nil: .disconnected
        }
    }

    /// Every app manager holding the peripheral, with its hold.
    func holders(of identifier: UUID) -> [(AppIdentifier, ManagerID, HeldPeripheral)] {
        apps.keys.sorted().flatMap { app in
            (apps[app]?.centrals.values.sorted { $0.id.serial < $1.id.serial } ?? []).compactMap { client in
                client.held[identifier].map { (app, client.id, $0) }
            }
        }
    }

    package func connect(_ app: AppIdentifier, _ id: ManagerID, _ identifier: UUID, options: PhoneConnectOptions)
        async throws(BLEError)
    {
        let state = await central.state
        guard state == .poweredOn else { throw .notPoweredOn(state) }
        guard apps[app]?.centrals[id] != nil else { throw .closed }
        guard let peripheral = await systemPeripheral(identifier) else { throw .unknownPeripheral }
        if let held = apps[app]?.centrals[id]?.held[identifier] {
            // Asked again: the new options count; the outcome is already on its way or known.
            apps[app]?.centrals[id]?.held[identifier]?.options = options
            _ = held
            return
        }
        if await peripheral.state == .connected, attempts[identifier] == nil {
            // Another app's link: this app has it at once.
            apps[app]?.centrals[id]?.held[identifier] = HeldPeripheral(state: .connected, options: options)
            await announceConnected(peripheral, to: [(app, id)])
            return
        }
        apps[app]?.centrals[id]?.held[identifier] = HeldPeripheral(state: .connecting, options: options)
        startAttempt(peripheral)
    }

    /// The system's connect for `peripheral`, one for every app waiting (no timeout).
    func startAttempt(_ peripheral: Peripheral) {
        let identifier = peripheral.identifier
        guard attempts[identifier] == nil else { return }
        let central = self.central
        attempts[identifier] = spawn { [weak self] in
            let outcome: Result<Void, BLEError>
            do throws(BLEError) {
                try await central.connect(peripheral, options: ConnectOptions())
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            await self?.attemptEnded(peripheral, outcome)
        }
    }

    func attemptEnded(_ peripheral: Peripheral, _ outcome: Result<Void, BLEError>) async {
        let identifier = peripheral.identifier
        attempts[identifier] = nil
        let waiting = holders(of: identifier).filter { $0.2.state == .connecting }
        switch outcome {
        case .success:
            forgetInScans(identifier)
            guard !waiting.isEmpty else {
                // Everyone cancelled while the link came up.
                if holders(of: identifier).isEmpty { await central.cancelPeripheralConnection(peripheral) }
                return
            }
            watch(peripheral)
            for (app, id, _) in waiting { apps[app]?.centrals[id]?.held[identifier]?.state = .connected }
            await announceConnected(peripheral, to: waiting.map { ($0.0, $0.1) })
        case .failure(let error):
            for (app, id, _) in waiting {
                apps[app]?.centrals[id]?.held[identifier] = nil
                await offerCentral(app, id, .connectionFailure, "failed to connect \(identifier): \(error)") { manager in
                    .failedToConnect(manager.handle(for: peripheral), error)
                }
            }
        }
    }

    /// `.connected` to each of `receivers`, with the NotifyOnConnection alert for the most
    /// recently foregrounded app that asked for one.
    func announceConnected(_ peripheral: Peripheral, to receivers: [(AppIdentifier, ManagerID)]) async {
        let identifier = peripheral.identifier
        let name = Self.quoted(await peripheral.name)
        let alerted = alertReceiver(receivers, identifier) { $0.notifyOnConnection }
        for (app, id) in receivers {
            let alert = alerted.map { $0 == (app, id) } == true ? "\(app): connected to \(name)" : nil
            await offerCentral(app, id, .connection, "connected \(name) \(identifier)", alert: alert) { manager in
                .connected(manager.handle(for: peripheral))
            }
        }
    }

    /// Which of `receivers` gets the alert an option asks for: with several apps, only the
    /// most recently foregrounded (Core Bluetooth Programming Guide, "Core Bluetooth Background
    /// Processing for iOS Apps").
    func alertReceiver(
        _ receivers: [(AppIdentifier, ManagerID)], _ identifier: UUID, _ wants: (PhoneConnectOptions) -> Bool
    ) -> (AppIdentifier, ManagerID)? {
        receivers.filter { app, id in
            apps[app]?.centrals[id]?.held[identifier].map { wants($0.options) } ?? false
        }.max { (foregroundedAt[$0.0] ?? 0) < (foregroundedAt[$1.0] ?? 0) }
    }

    /// The app gives up its connect or its hold; the link ends when nobody else holds it.
    package func cancelConnection(_ app: AppIdentifier, _ id: ManagerID, _ identifier: UUID) async {
        guard apps[app]?.centrals[id]?.held.removeValue(forKey: identifier) != nil,
            let peripheral = await systemPeripheral(identifier)
        else { return }
        await release(peripheral, subscriptionsOf: app, id)
        await offerCentral(app, id, .disconnection, "disconnected \(identifier) (cancelled)") { manager in
            .disconnected(manager.handle(for: peripheral), reason: .connectionTerminatedByLocalHost)
        }
    }

    /// Ends what `app`'s manager held of `peripheral` (its subscriptions; the link or the
    /// attempt when no other app holds it). The app's hold is already gone.
    func release(_ peripheral: Peripheral, subscriptionsOf app: AppIdentifier, _ id: ManagerID) async {
        let identifier = peripheral.identifier
        let mine = apps[app]?.centrals[id]?.subscriptions.filter { $0.peripheral == identifier } ?? []
        apps[app]?.centrals[id]?.subscriptions.subtract(mine)
        guard holders(of: identifier).isEmpty else {
            for key in mine where subscribers(of: key).isEmpty { await writeConfiguration(false, key, peripheral) }
            return
        }
        if let attempt = attempts.removeValue(forKey: identifier) {
            attempt.cancel()
        }
        await central.cancelPeripheralConnection(peripheral)
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
        let identifier = peripheral.identifier
        forgetInScans(identifier)
        let receivers = holders(of: identifier).filter { $0.2.state == .connected }.map { ($0.0, $0.1) }
        let alerted = alertReceiver(receivers, identifier) { $0.notifyOnDisconnection }
        let name = Self.quoted(await peripheral.name)
        for (app, id) in receivers {
            apps[app]?.centrals[id]?.held[identifier] = nil
            // Read before the write: `apps` may not be read while its optional-chained
            // assignment holds it (a dynamic exclusivity violation).
            let kept = apps[app]?.centrals[id]?.subscriptions.filter { $0.peripheral != identifier } ?? []
            apps[app]?.centrals[id]?.subscriptions = Set(kept)
            let alert = alerted.map { $0 == (app, id) } == true ? "\(app): \(name) disconnected" : nil
            await offerCentral(app, id, .disconnection, "disconnected \(name) \(identifier) (\(reason))", alert: alert) {
                manager in .disconnected(manager.handle(for: peripheral), reason: reason)
            }
        }
    }
}
