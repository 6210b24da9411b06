import BLE
import BLELocking
import Foundation

/// An app's central manager (Core Bluetooth's `CBCentralManager`), made by
/// `AppContext.centralManager(restoreIdentifier:)`: a client of the phone's system Bluetooth
/// service, which owns the scan, the links, the pending connects and the subscriptions — so
/// they outlive the app's suspension and, with a restore identifier, its death.
///
/// Calls go in as async methods; every delegate callback comes out on `events`, one ordered
/// stream, fed only through the phone (`Phone.offer`): while the app is suspended its events
/// wait, or wake it, or relaunch it, as the phone's rules say. An actor on the app's executor:
/// none of it runs while the app is suspended.
public actor PhoneCentralManager {
    /// The app's manager as the system names it.
    package nonisolated let id: ManagerID
    package nonisolated let app: AppIdentifier
    nonisolated let system: SystemBluetooth
    nonisolated let executor: AppExecutor
    /// Every delegate callback, in the order the phone delivers them. One listener.
    public nonisolated let events: EventStream<PhoneCentralManagerEvent>
    nonisolated let sink: EventStream<PhoneCentralManagerEvent>.Continuation
    /// One handle per system peripheral, as Core Bluetooth gives one `CBPeripheral` per
    /// manager (made on the deliverer's thread, hence the lock).
    private nonisolated let handles = Locked<[UUID: PhonePeripheral]>([:])

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    package init(id: ManagerID, app: AppIdentifier, executor: AppExecutor, system: SystemBluetooth) {
        self.id = id
        self.app = app
        self.executor = executor
        self.system = system
        (events, sink) = EventStream.makeStream(of: PhoneCentralManagerEvent.self)
    }

    /// The restore identifier it was made with (nil when none, or when the app's declaration
    /// does not list it).
    public nonisolated var restoreIdentifier: String? { id.restoreIdentifier }

    /// The system's state (`CBManager.state`).
    public var state: ManagerState {
        get async { await system.centralState }
    }

    /// Whether this manager's scan is on (it may be paused while the app is in the background
    /// without `bluetooth-central`).
    public var isScanning: Bool {
        get async { await system.isScanning(app, id) }
    }

    /// Scans for peripherals advertising one of `serviceUUIDs` (every peripheral when nil);
    /// discoveries come as `.discovered`. A new scan replaces this manager's scan in progress.
    /// In the background a scan needs service UUIDs, duplicates are not reported and each
    /// peripheral is reported once (Core Bluetooth Programming Guide, "Core Bluetooth
    /// Background Processing for iOS Apps").
    public func scanForPeripherals(withServices serviceUUIDs: [BluetoothUUID]?, options: PhoneScanOptions = .init())
        async throws(BLEError)
    {
        try await system.scan(app, id, services: serviceUUIDs, options: options)
    }

    /// `scanForPeripherals(withServices:options:)` with `CBCentralManagerScanOptionAllowDuplicatesKey`.
    public func scanForPeripherals(withServices serviceUUIDs: [BluetoothUUID]?, allowDuplicates: Bool)
        async throws(BLEError)
    {
        try await scanForPeripherals(
            withServices: serviceUUIDs, options: PhoneScanOptions(allowDuplicates: allowDuplicates))
    }

    public func stopScan() async {
        await system.stopScan(app, id)
    }

    /// Asks the system to connect (`.connected` or `.failedToConnect` follows). As Core
    /// Bluetooth's, the attempt never times out and outlives the app's suspension; it throws
    /// only when it cannot start (not powered on, a peripheral the system does not know).
    public func connect(_ peripheral: PhonePeripheral, options: PhoneConnectOptions = .init()) async throws(BLEError) {
        try await system.connect(app, id, peripheral.identifier, options: options)
    }

    /// Cancels the app's pending connect or its hold on the link (`.disconnected` follows).
    /// The link itself ends only when no other app holds it.
    public func cancelPeripheralConnection(_ peripheral: PhonePeripheral) async {
        await system.cancelConnection(app, id, peripheral.identifier)
    }

    /// The peripherals with these identifiers the system knows.
    public func retrievePeripherals(withIdentifiers identifiers: [UUID]) async -> [PhonePeripheral] {
        await system.known(identifiers).map { handle(for: $0) }
    }

    /// The peripherals connected to the phone (by any app) offering one of `serviceUUIDs`
    /// among their discovered services (all connected ones when the list is empty).
    public func retrieveConnectedPeripherals(withServices serviceUUIDs: [BluetoothUUID]) async -> [PhonePeripheral] {
        await system.connected(withServices: serviceUUIDs).map { handle(for: $0) }
    }

    // MARK: Plumbing

    /// This manager's handle for the system's peripheral.
    package nonisolated func handle(for peripheral: Peripheral) -> PhonePeripheral {
        handles.withLock { handles in
            if let existing = handles[peripheral.identifier] { return existing }
            let made = PhonePeripheral(peripheral: peripheral, manager: self)
            handles[peripheral.identifier] = made
            return made
        }
    }

    /// Hands an event to the app (called by the phone's delivery, never directly).
    package nonisolated func yield(_ event: PhoneCentralManagerEvent) {
        sink.yield(event)
    }
}
