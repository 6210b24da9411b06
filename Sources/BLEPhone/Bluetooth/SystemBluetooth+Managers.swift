import BLE
import BLEWire
import Foundation

/// Making an app's managers: a new client, or — for a restore identifier the system preserved
/// from an earlier instance — the preserved one, handed back with `willRestoreState` first
/// (Core Bluetooth Programming Guide, "Adding Support for State Preservation and Restoration").
extension SystemBluetooth {
    /// The manager's identity: a declared restore identifier names it across launches (serial
    /// 0); otherwise the app's next serial. An undeclared identifier, or one this instance
    /// already uses, is ignored with a warning.
    func managerID(
        _ role: ManagerRole, for context: AppContext, restoreIdentifier: String?
    ) -> (ManagerID, preservedLaunch: Int??) {
        let app = context.app
        if let restoreIdentifier {
            if !context.declaration.restoreIdentifiers.contains(restoreIdentifier) {
                statistics.undeclaredRestoreIdentifiers += 1
                logger.warning(
                    "\(app): restore identifier \(TerminalText.quoted(restoreIdentifier)) is not in the app's declaration; the \(role) manager is not preserved"
                )
            } else {
                let id = ManagerID(role: role, restoreIdentifier: restoreIdentifier, serial: 0)
                let launch: Int?? =
                    switch role {
                    case .central: apps[app]?.centrals[id].map(\.launch)
                    case .peripheral: apps[app]?.peripherals[id].map(\.launch)
                    }
                if launch == .some(.some(context.launchNumber)) {
                    logger.warning(
                        "\(app): a second \(role) manager with restore identifier \(TerminalText.quoted(restoreIdentifier)) is not preserved"
                    )
                } else {
                    return (id, launch)
                }
            }
        }
        let serial = apps[app]?.nextSerial ?? 1
        apps[app]?.nextSerial = serial + 1
        return (ManagerID(role: role, restoreIdentifier: nil, serial: serial), nil)
    }

    /// Registers the app (its declaration may have changed since its last launch).
    func register(_ context: AppContext) async {
        if apps[context.app] == nil {
            apps[context.app] = AppBluetooth(declaration: context.declaration)
        } else {
            apps[context.app]?.declaration = context.declaration
        }
        if appStates[context.app] == nil, let phone {
            let state = await phone.state(of: context.app)
            // An app making a manager runs; a phone that does not say how is taken as in front.
            appStates[context.app] = state == .notRunning ? .active : state
            if isInFront(context.app) {
                foregroundClock += 1
                foregroundedAt[context.app] = foregroundClock
            }
        }
    }

    package func makeCentralManager(for context: AppContext, restoreIdentifier: String?) async -> PhoneCentralManager {
        await register(context)
        let app = context.app
        let (id, preserved) = managerID(.central, for: context, restoreIdentifier: restoreIdentifier)
        let manager = PhoneCentralManager(id: id, app: app, executor: context.executor, system: self)
        let restoring = preserved != nil
        if !restoring { apps[app]?.centrals[id] = CentralClient(id: id, launch: context.launchNumber) }
        apps[app]?.centrals[id]?.launch = context.launchNumber
        guard let client = apps[app]?.centrals[id] else { return manager }
        // Everything awaited first: from attaching to the first two events nothing suspends, so
        // no delivery can come between them (willRestoreState first, then the state).
        let restored = restoring ? await restoredState(client, for: manager) : nil
        let state = await central.state
        client.mailbox.attach(manager)
        if let restored { manager.yield(.willRestoreState(restored)) }
        manager.yield(.stateUpdated(state))
        if restoring {
            await phone?.record(
                .restored(restoreIdentifier: restoreIdentifier ?? "", summary: summary(of: client, of: app)), app: app)
            await phone?.record(.eventDelivered(.willRestoreState, summary: "\(id)"), app: app)
        }
        await phone?.record(.eventDelivered(.stateUpdate, summary: "\(id): \(state)"), app: app)
        await phone?.managerAttached(id, of: app)
        await refreshScan()
        return manager
    }

    package func makePeripheralManager(for context: AppContext, restoreIdentifier: String?) async
        -> PhonePeripheralManager
    {
        await register(context)
        let app = context.app
        let (id, preserved) = managerID(.peripheral, for: context, restoreIdentifier: restoreIdentifier)
        let manager = PhonePeripheralManager(id: id, app: app, executor: context.executor, system: self)
        let restoring = preserved != nil
        if !restoring { apps[app]?.peripherals[id] = PeripheralClient(id: id, launch: context.launchNumber) }
        apps[app]?.peripherals[id]?.launch = context.launchNumber
        guard let client = apps[app]?.peripherals[id] else { return manager }
        let restored = restoring ? await restoredState(client) : nil
        let state = await peripheralManagerState
        client.mailbox.attach(manager)
        if let restored { manager.yield(.willRestoreState(restored)) }
        manager.yield(.stateUpdated(state))
        if restoring {
            await phone?.record(
                .restored(restoreIdentifier: restoreIdentifier ?? "", summary: Self.summary(of: client)), app: app)
            await phone?.record(.eventDelivered(.willRestoreState, summary: "\(id)"), app: app)
        }
        await phone?.record(.eventDelivered(.stateUpdate, summary: "\(id): \(state)"), app: app)
        await phone?.managerAttached(id, of: app)
        await refreshAdvertising()
        return manager
    }

    /// `willRestoreState`'s content for a central manager, with the new manager's handles.
    func restoredState(_ client: CentralClient, for manager: PhoneCentralManager) async -> RestoredState {
        var peripherals: [PhonePeripheral] = []
        var subscriptions: [(peripheral: PhonePeripheral, characteristic: Characteristic)] = []
        let key = ClientKey(manager.app, client.id)
        let subscribed = links.subscriptions(of: key)
        for identifier in links.held(by: key).keys.sorted(by: { $0.uuidString < $1.uuidString }) {
            guard let peripheral = await systemPeripheral(identifier) else { continue }
            let handle = manager.handle(for: peripheral)
            peripherals.append(handle)
            let characteristics = await peripheral.services?.flatMap { $0.characteristics ?? [] } ?? []
            for key in subscribed where key.peripheral == identifier {
                if let characteristic = characteristics.first(where: { $0.handle == key.valueHandle }) {
                    subscriptions.append((handle, characteristic))
                }
            }
        }
        return RestoredState(
            peripherals: peripherals, scanServices: client.scan?.services, scanOptions: client.scan?.options,
            subscriptions: subscriptions)
    }

    func restoredState(_ client: PeripheralClient) async -> RestoredPeripheralManagerState {
        let published = client.services.keys.sorted().compactMap { client.services[$0] }
        let services = await peripheralManager?.services ?? []
        let mine = services.filter { service in published.contains { $0.handleRange == service.handleRange } }
        let characteristics = mine.flatMap { $0.characteristics ?? [] }
        let subscribed = client.subscribers.keys.sorted {
            ($0.peripheral.uuidString, $0.valueHandle) < ($1.peripheral.uuidString, $1.valueHandle)
        }
        .compactMap { key -> (central: Central, characteristic: Characteristic)? in
            guard let central = client.subscribers[key],
                let characteristic = characteristics.first(where: { $0.handle == key.valueHandle })
            else { return nil }
            return (central, characteristic)
        }
        return RestoredPeripheralManagerState(
            services: mine.isEmpty ? published : mine, advertisement: client.advertisement,
            subscribedCentrals: subscribed)
    }

    func summary(of client: CentralClient, of app: AppIdentifier) -> String {
        var parts: [String] = []
        let key = ClientKey(app, client.id)
        let held = links.held(by: key)
        let connected = held.values.filter { $0.state == .connected }.count
        parts.append("\(connected) connected, \(held.count - connected) pending")
        let subscriptions = links.subscriptions(of: key).count
        parts.append("\(subscriptions) subscription\(subscriptions == 1 ? "" : "s")")
        if let scan = client.scan {
            parts.append("scanning for \(scan.services.map { $0.map(\.description).joined(separator: ", ") } ?? "all")")
        }
        return parts.joined(separator: "; ")
    }

    static func summary(of client: PeripheralClient) -> String {
        "\(client.services.count) service\(client.services.count == 1 ? "" : "s"); "
            + (client.advertisement == nil ? "not advertising" : "advertising")
            + "; \(client.subscribers.count) subscribed"
    }
}
