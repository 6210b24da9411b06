import BLE
import BLELocking
import BLESimulation
import Foundation
import Testing

@testable import BLEPhone

/// A test that cannot go on.
struct BedFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What the system Bluetooth service offered, as the phone would see it; plays the phone's
/// part: delivers at once, or holds an app's deliveries until released (what the runtime does
/// for a suspended or dead app).
final class DeliveryLog: Sendable {
    struct Entry: Sendable {
        var app: AppIdentifier
        var manager: ManagerID
        var kind: BluetoothEventKind
        var summary: String
        var coalescingKey: String?
        var alert: String?
    }

    private struct State {
        var entries: [Entry] = []
        var holding: Set<AppIdentifier> = []
        var held: [AppIdentifier: [AppBluetoothDelivery]] = [:]
    }

    private let state = Locked(State())

    func take(_ delivery: AppBluetoothDelivery, for app: AppIdentifier) {
        let deliverNow = state.withLock { state -> Bool in
            state.entries.append(
                Entry(
                    app: app, manager: delivery.manager, kind: delivery.kind, summary: delivery.summary,
                    coalescingKey: delivery.coalescingKey, alert: delivery.alert))
            guard state.holding.contains(app) else { return true }
            state.held[app, default: []].append(delivery)
            return false
        }
        if deliverNow { delivery.deliver() }
    }

    var entries: [Entry] { state.withLock { $0.entries } }

    func entries(of app: AppIdentifier, _ kind: BluetoothEventKind) -> [Entry] {
        entries.filter { $0.app == app && $0.kind == kind }
    }

    /// From now on, `app`'s deliveries wait.
    func hold(_ app: AppIdentifier) {
        state.withLock { _ = $0.holding.insert(app) }
    }

    /// Delivers what waits for `app`, in order, and stops holding.
    func release(_ app: AppIdentifier) {
        let held = state.withLock { state -> [AppBluetoothDelivery] in
            state.holding.remove(app)
            return state.held.removeValue(forKey: app) ?? []
        }
        for delivery in held { delivery.deliver() }
    }
}

/// A phone and a headset-like device (BLE's own peripheral manager) 2 m apart on one virtual
/// radio; apps are contexts whose executors the test opens and holds.
struct BluetoothTestBed: Sendable {
    static let serviceUUID: BluetoothUUID = 0xFFF0
    /// notify, write; stored.
    static let streamUUID: BluetoothUUID = 0xFFF3
    /// write with response; stored.
    static let controlUUID: BluetoothUUID = 0xFFF5
    static let deviceName = "headset"

    let radio: VirtualRadio
    let phone: Phone
    let device: PeripheralManager
    let log: DeliveryLog
    let system: SystemBluetooth

    var simulation: Simulation { radio.simulation }

    static let service = MutableService(
        uuid: serviceUUID,
        characteristics: [
            MutableCharacteristic(
                uuid: streamUUID, properties: [.notify, .write], permissions: [.readable, .writeable],
                value: .stored([])),
            MutableCharacteristic(
                uuid: controlUUID, properties: [.write, .read], permissions: [.readable, .writeable],
                value: .stored([0])),
        ])

    /// Runs `body` on the simulation with the phone and the device advertising.
    static func run(
        profile: PhoneProfile = .ios17, advertising: Bool = true,
        _ body: @escaping @Sendable (BluetoothTestBed) async throws -> Void
    ) async throws {
        let radio = VirtualRadio()
        try await radio.simulation.run {
            let device = try await PeripheralManager(radio: .virtual(radio, position: AirPosition(x: 2, y: 0, z: 0)))
            try await device.powerOn()
            // The device accepts every write (its stored values take them).
            let writes = device.writeRequests
            Task(executorPreference: radio.simulation.executor) {
                for await requests in writes {
                    if let first = requests.first { await device.respond(to: first, withResult: .success) }
                }
            }
            let phone = await Phone(profile: profile, radio: radio)
            let log = DeliveryLog()
            let system = await phone.bluetooth
            await system.interceptDeliveries { delivery, app in log.take(delivery, for: app) }
            let bed = BluetoothTestBed(radio: radio, phone: phone, device: device, log: log, system: system)
            if advertising {
                try await device.add(service)
                try await device.startAdvertising(AdvertisementData(localName: deviceName, serviceUUIDs: [serviceUUID]))
            }
            try await body(bed)
        }
    }

    /// An app instance in front (its executor open, the system told it is active).
    func launch(
        _ bundle: String, modes: Set<BackgroundMode> = [], restoreIdentifiers: Set<String> = [], launchNumber: Int = 1
    ) async -> AppContext {
        let declaration = AppDeclaration(
            bundleIdentifier: bundle, backgroundModes: modes, restoreIdentifiers: restoreIdentifiers)
        let context = AppContext(
            app: AppIdentifier(bundle), declaration: declaration, executor: AppExecutor(simulation: simulation),
            storageDirectory: nil, launchNumber: launchNumber, phone: phone)
        context.executor.open()
        await system.appStateChanged(context.app, to: .active)
        return context
    }

    /// Moves the app to `state` as the phone would tell the system (the test keeps the
    /// executor open: the rules under test are the system's, not the executor's).
    func set(_ context: AppContext, _ state: AppState) async {
        await system.appStateChanged(context.app, to: state)
    }

    func sleep(for duration: Duration) async throws {
        try await simulation.clock.sleep(for: duration)
    }

    /// The next event of `events` that `match` accepts (others are skipped).
    func next<T>(
        _ events: inout EventStream<PhoneCentralManagerEvent>.Iterator,
        _ match: (PhoneCentralManagerEvent) -> T?
    ) async throws -> T {
        while let event = await events.next() {
            if let found = match(event) { return found }
        }
        throw BedFailure("events ended")
    }

    /// Scans for the device in front, connects and finds its stream characteristic.
    func connectToDevice(_ central: PhoneCentralManager, options: PhoneConnectOptions = .init()) async throws -> (
        PhonePeripheral, Characteristic, EventStream<PhoneCentralManagerEvent>.Iterator
    ) {
        var events = central.events.makeAsyncIterator()
        try await central.scanForPeripherals(withServices: [Self.serviceUUID])
        let peripheral = try await next(&events) { event -> PhonePeripheral? in
            if case .discovered(let peripheral, _, _) = event { return peripheral }
            return nil
        }
        await central.stopScan()
        try await central.connect(peripheral, options: options)
        _ = try await next(&events) { event -> Bool? in
            if case .connected = event { return true }
            return nil
        }
        let stream = try await peripheral.characteristic(Self.streamUUID, inService: Self.serviceUUID)
        return (peripheral, stream, events)
    }

    /// The device's stream characteristic, once a central subscribed to it.
    func waitForSubscription(_ events: inout EventStream<PeripheralManagerEvent>.Iterator) async throws
        -> Characteristic
    {
        while let event = await events.next() {
            if case .subscribed(_, let characteristic) = event { return characteristic }
        }
        throw BedFailure("device events ended")
    }
}
