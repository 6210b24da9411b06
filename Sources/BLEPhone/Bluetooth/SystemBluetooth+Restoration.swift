import BLE
import Foundation

/// State preservation: what an app's death leaves behind (Core Bluetooth Programming Guide,
/// "Adding Support for State Preservation and Restoration"; TN3115).
extension SystemBluetooth {
    /// The app's process ended. Managers with a (declared) restore identifier stay: their
    /// links, pending connects, subscriptions, scans, services and advertising go on, and the
    /// events that then occur make the phone relaunch the app (or not, per its relaunch rules —
    /// a force-quit keeps the record too; the table decides). Everything else the app held
    /// ends: its connects are cancelled, its subscriptions cleared, links nobody else holds
    /// disconnected, its services removed, and it is forgotten.
    package func appTerminated(_ app: AppIdentifier, reason: TerminationReason) async {
        appStates[app] = .notRunning
        guard let entry = apps[app] else { return }
        for var client in entry.centrals.values.sorted(by: { $0.id.serial < $1.id.serial }) {
            client.mailbox.attach(nil)
            client.launch = nil
            apps[app]?.centrals[client.id] = client
            guard client.id.restoreIdentifier == nil else { continue }
            apps[app]?.centrals[client.id] = nil
            await carryOut(links.clientEnded(ClientKey(app, client.id)))
        }
        for var client in entry.peripherals.values.sorted(by: { $0.id.serial < $1.id.serial }) {
            client.mailbox.attach(nil)
            client.launch = nil
            apps[app]?.peripherals[client.id] = client
            guard client.id.restoreIdentifier == nil else { continue }
            for service in client.services.values {
                do {
                    try await peripheralManager?.remove(service)
                } catch {
                    logger.notice("system Bluetooth: cannot remove \(app)'s \(service): \(error)")
                }
            }
            apps[app]?.peripherals[client.id] = nil
        }
        if apps[app]?.isEmpty == true {
            apps[app] = nil
        } else {
            logger.debug("system Bluetooth: \(app) ended (\(reason)); its preserved managers stay")
        }
        await refreshScan()
        await refreshAdvertising()
    }

    /// The restore identifiers of the app's preserved managers (the launch options'
    /// `.bluetoothCentrals` and `.bluetoothPeripherals`).
    package func restoreIdentifiers(for app: AppIdentifier) -> (centrals: [String], peripherals: [String]) {
        (
            (apps[app]?.centrals.keys.compactMap(\.restoreIdentifier) ?? []).sorted(),
            (apps[app]?.peripherals.keys.compactMap(\.restoreIdentifier) ?? []).sorted()
        )
    }

    /// What the system preserves for the app's managers now, or nil when none is preserved.
    package func restorationRecord(for app: AppIdentifier) async -> RestorationRecord? {
        guard let entry = apps[app] else { return nil }
        var record = RestorationRecord(backgroundModes: entry.declaration.backgroundModes)
        for client in entry.centrals.values.sorted(by: { $0.id.serial < $1.id.serial }) {
            guard let restoreIdentifier = client.id.restoreIdentifier else { continue }
            var preserved = RestorationRecord.Central(restoreIdentifier: restoreIdentifier)
            preserved.scan = client.scan.map {
                RestorationRecord.Scan(services: $0.services?.map(\.description), options: $0.options)
            }
            let key = ClientKey(app, client.id)
            let holds = links.held(by: key)
            let subscriptions = links.subscriptions(of: key)
            for identifier in holds.keys.sorted(by: { $0.uuidString < $1.uuidString }) {
                guard let held = holds[identifier] else { continue }
                preserved.peripherals.append(
                    RestorationRecord.Peripheral(
                        identifier: identifier, state: held.state == .connected ? .connected : .connecting,
                        options: held.options))
                let characteristics =
                    await systemPeripheral(identifier)?.services?.flatMap { $0.characteristics ?? [] } ?? []
                for key in subscriptions where key.peripheral == identifier {
                    let characteristic = characteristics.first { $0.handle == key.valueHandle }
                    preserved.subscriptions.append(
                        RestorationRecord.Subscription(
                            peripheral: identifier, service: characteristic?.serviceUUID.description ?? "",
                            characteristic: characteristic?.uuid.description ?? "", valueHandle: key.valueHandle))
                }
            }
            record.centrals.append(preserved)
        }
        for client in entry.peripherals.values.sorted(by: { $0.id.serial < $1.id.serial }) {
            guard let restoreIdentifier = client.id.restoreIdentifier else { continue }
            let subscribed = client.subscribers.keys.sorted {
                ($0.peripheral.uuidString, $0.valueHandle) < ($1.peripheral.uuidString, $1.valueHandle)
            }.map { key in
                let characteristic = client.services.values.flatMap { $0.characteristics ?? [] }
                    .first { $0.handle == key.valueHandle }
                return RestorationRecord.SubscribedCentral(
                    central: key.peripheral, characteristic: characteristic?.uuid.description ?? "",
                    valueHandle: key.valueHandle)
            }
            record.peripheralManagers.append(
                RestorationRecord.PeripheralManager(
                    restoreIdentifier: restoreIdentifier,
                    services: client.services.keys.sorted().compactMap { client.services[$0]?.uuid.description },
                    localName: client.advertisement?.localName,
                    advertisedServiceUUIDs: client.advertisement?.serviceUUIDs.map(\.description),
                    subscribedCentrals: subscribed))
        }
        return record.isEmpty ? nil : record
    }

    /// Loads a record kept in a file (a daemon's new process): each preserved central manager
    /// waits to be restored with its scan and a pending connect to each of its peripherals
    /// (the links of the old process are gone; the app reconnects and resubscribes after
    /// `willRestoreState`, as phone-rules.md's correction 2 advises); each peripheral manager
    /// with its advertising. Peripherals this system has never seen are left out (logged);
    /// services are not in the record, so the app adds them again.
    package func restore(_ record: RestorationRecord, for app: AppIdentifier) async {
        if apps[app] == nil {
            let identifiers = Set(
                record.centrals.map(\.restoreIdentifier) + record.peripheralManagers.map(\.restoreIdentifier))
            apps[app] = AppBluetooth(
                declaration: AppDeclaration(
                    bundleIdentifier: app.bundleIdentifier, backgroundModes: record.backgroundModes,
                    restoreIdentifiers: identifiers))
        }
        for preserved in record.centrals {
            let id = ManagerID(role: .central, restoreIdentifier: preserved.restoreIdentifier, serial: 0)
            var client = apps[app]?.centrals[id] ?? CentralClient(id: id, launch: nil)
            if let scan = preserved.scan {
                let services = scan.services?.compactMap { BluetoothUUID($0) }
                client.scan = AppScan(services: services, options: scan.options)
            }
            apps[app]?.centrals[id] = client
            for peripheral in preserved.peripherals {
                guard await systemPeripheral(peripheral.identifier) != nil else {
                    logger.warning(
                        "system Bluetooth: \(app)'s restored peripheral \(peripheral.identifier) is unknown here")
                    continue
                }
                await carryOut(links.restore(ClientKey(app, id), peripheral.identifier, options: peripheral.options))
            }
        }
        for preserved in record.peripheralManagers {
            let id = ManagerID(role: .peripheral, restoreIdentifier: preserved.restoreIdentifier, serial: 0)
            var client = apps[app]?.peripherals[id] ?? PeripheralClient(id: id, launch: nil)
            if preserved.localName != nil || preserved.advertisedServiceUUIDs != nil {
                client.advertisement = PhoneAdvertisement(
                    localName: preserved.localName,
                    serviceUUIDs: preserved.advertisedServiceUUIDs?.compactMap { BluetoothUUID($0) } ?? [])
            }
            apps[app]?.peripherals[id] = client
        }
        await refreshScan()
        await refreshAdvertising()
    }
}
