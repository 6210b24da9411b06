import BLE
import BLEHost
import BLEWire
import Foundation

/// The apps' GATT client calls on the system's peripherals, and the notifications the system
/// receives: each goes to every app subscribed to the characteristic.
extension SystemBluetooth {
    /// The system's peripheral, if the app's manager holds it connected (Core Bluetooth: a
    /// peripheral the app has not connected cannot be used).
    func connectedPeripheral(_ identifier: UUID, for app: AppIdentifier, _ id: ManagerID) async throws(BLEError)
        -> Peripheral
    {
        guard apps[app]?.centrals[id] != nil else { throw .closed }
        guard links.hold(of: identifier, by: ClientKey(app, id))?.state == .connected else { throw .notConnected }
        guard let peripheral = await systemPeripheral(identifier) else { throw .unknownPeripheral }
        return peripheral
    }

    /// Runs one of the app's calls on the system's peripheral; the answer goes back through
    /// the phone as a `kind` event (Core Bluetooth's `didDiscoverServices`, `didUpdateValueFor`,
    /// `didWriteValueFor`): a suspended app gets it when it runs again, or is woken for it.
    package func perform<T: Sendable>(
        _ kind: BluetoothEventKind, _ summary: String, on identifier: UUID, for app: AppIdentifier, _ id: ManagerID,
        _ work: @Sendable (isolated Peripheral) async throws(BLEError) -> T
    ) async throws(BLEError) -> T {
        let peripheral = try await connectedPeripheral(identifier, for: app, id)
        let caller = apps[app]?.centrals[id]?.launch
        let result: Result<T, BLEError>
        do {
            result = .success(try await work(peripheral))
        } catch {
            result = .failure(error)
        }
        guard let caller, apps[app]?.centrals[id]?.launch == caller else {
            // The instance that asked is gone: nobody waits for the answer, and it must not
            // relaunch the app.
            return try result.get()
        }
        let slot = AnswerSlot<Result<T, BLEError>>()
        let outcome: String
        switch result {
        case .success: outcome = "done"
        case .failure(let error): outcome = TerminalText.escaped("\(error)")
        }
        let delivery = AppBluetoothDelivery(manager: id, kind: kind, summary: "\(summary) on \(identifier): \(outcome)")
        {
            slot.fulfil(result)
        }
        send(delivery, to: app)
        return try await slot.value().get()
    }

    /// A Write Without Response: no answer comes back (Core Bluetooth calls no delegate).
    package func writeWithoutResponse(
        _ data: [UInt8], for characteristic: Characteristic, on identifier: UUID, for app: AppIdentifier,
        _ id: ManagerID
    ) async throws(BLEError) {
        let peripheral = try await connectedPeripheral(identifier, for: app, id)
        try await peripheral.writeValue(data, for: characteristic, type: .withoutResponse)
    }

    /// Subscribes or unsubscribes the app: the Client Characteristic Configuration is written
    /// by the first app to subscribe and cleared by the last (`LinkTable.setNotify`). The
    /// answer comes back through the phone (`didUpdateNotificationStateFor`).
    package func setNotifyValue(
        _ enabled: Bool, for characteristic: Characteristic, on identifier: UUID, for app: AppIdentifier,
        _ id: ManagerID
    ) async throws(BLEError) {
        let peripheral = try await connectedPeripheral(identifier, for: app, id)
        let client = ClientKey(app, id)
        let key = CharacteristicKey(peripheral: identifier, valueHandle: characteristic.handle)
        let write = links.setNotify(enabled, client, key)
        defer { restorationMayHaveChanged() }
        if enabled { await watch(peripheral) }
        do {
            try await perform(
                .notificationStateUpdate, "\(enabled ? "subscribe to" : "unsubscribe from") \(characteristic.uuid)",
                on: identifier, for: app, id
            ) { peripheral throws(BLEError) in
                if write { try await peripheral.setNotifyValue(enabled, for: characteristic) }
            }
        } catch {
            // The peripheral refused: the app's subscription is as it was.
            _ = links.setNotify(!enabled, client, key)
            throw error
        }
    }

    /// Writes the Client Characteristic Configuration for the system (no app waits for it).
    func writeConfiguration(_ enabled: Bool, _ key: CharacteristicKey, _ peripheral: Peripheral) async {
        guard
            let characteristic = await peripheral.services?.lazy.compactMap({ $0.characteristics }).joined()
                .first(where: { $0.handle == key.valueHandle })
        else { return }
        do {
            try await peripheral.setNotifyValue(enabled, for: characteristic)
        } catch {
            logger.notice(
                "system Bluetooth: cannot \(enabled ? "enable" : "disable") notifications of \(key): \(error)")
        }
    }

    /// Takes the peripheral's values in place (once per peripheral, for the service's lifetime):
    /// the service runs on its central's executor, the peripheral's, so each notification goes
    /// on to the apps in the call that brought it, with no task resumed for it.
    func watch(_ peripheral: Peripheral) async {
        guard watched.insert(peripheral.identifier).inserted else { return }
        let service = WeakReference(self)
        await peripheral.observeValues { peripheral, characteristic, value in
            service.value?.inPlace(passing: (peripheral, characteristic, value, peripheral.name)) {
                $0.valueUpdated($1.0, $1.1, $1.2, name: $1.3)
            }
        }
    }

    /// A notification or indication: to every app subscribed, coalescable per characteristic,
    /// with the NotifyOnNotification alert for the most recently foregrounded app that asked.
    func valueUpdated(_ peripheral: Peripheral, _ characteristic: Characteristic, _ value: [UInt8], name: String?) {
        let identifier = peripheral.identifier
        let key = CharacteristicKey(peripheral: identifier, valueHandle: characteristic.handle)
        let receivers = links.subscribers(of: key)
        guard !receivers.isEmpty else { return }
        let alerted = links.alertReceiver(receivers, identifier, foregroundedAt) { $0.notifyOnNotification }
        let label = notificationLabel(key, characteristic, name: name, octets: value.count)
        // The same for every receiver, and for every value of the same length.
        let summary = label.summary
        let coalescingKey = label.coalescingKey
        for client in receivers {
            let alert = client == alerted ? "\(client.app): notification from \(label.quotedName)" : nil
            guard
                let delivery = centralDelivery(
                    client.app, client.manager, .valueUpdate, summary, coalescingKey: coalescingKey, alert: alert,
                    { manager in .valueUpdated(manager.handle(for: peripheral), characteristic, value) })
            else { continue }
            send(delivery, to: client.app)
        }
    }

    /// The cached words for `key`'s notifications of `octets` octets, made again when the
    /// peripheral's name or the characteristic changed, the summary when the length did.
    private func notificationLabel(
        _ key: CharacteristicKey, _ characteristic: Characteristic, name: String?, octets: Int
    ) -> NotificationLabel {
        if var label = notificationLabels[key], label.name == name, label.uuid == characteristic.uuid {
            guard label.octets != octets else { return label }
            label.describe(octets: octets)
            notificationLabels[key] = label
            return label
        }
        let quotedName = Self.quoted(name)
        let label = NotificationLabel(
            name: name, uuid: characteristic.uuid, quotedName: quotedName,
            summaryPrefix: "\(characteristic.uuid) of \(quotedName) = ", coalescingKey: "\(key.peripheral) \(key.valueHandle)",
            octets: octets)
        notificationLabels[key] = label
        return label
    }
}

/// The words of one characteristic's notifications (`SystemBluetooth.valueUpdated`).
struct NotificationLabel: Sendable {
    /// The peripheral's name and the characteristic they were made with (a handle may name
    /// another characteristic after the peripheral's services changed).
    var name: String?
    var uuid: BluetoothUUID
    var quotedName: String
    var summaryPrefix: String
    var coalescingKey: String
    /// The summary of a value of `octets` octets (a notifying device usually sends one length).
    private(set) var octets: Int
    private(set) var summary: String

    init(
        name: String?, uuid: BluetoothUUID, quotedName: String, summaryPrefix: String, coalescingKey: String,
        octets: Int
    ) {
        self.name = name
        self.uuid = uuid
        self.quotedName = quotedName
        self.summaryPrefix = summaryPrefix
        self.coalescingKey = coalescingKey
        self.octets = octets
        summary = ""
        describe(octets: octets)
    }

    mutating func describe(octets: Int) {
        self.octets = octets
        summary = summaryPrefix + String(octets) + " octets"
    }
}
