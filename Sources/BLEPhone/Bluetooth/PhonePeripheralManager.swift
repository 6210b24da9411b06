import BLE
import Foundation

/// An app's peripheral manager (Core Bluetooth's `CBPeripheralManager`), made by
/// `AppContext.peripheralManager(restoreIdentifier:)`: a client of the phone's system
/// Bluetooth service, whose one GATT server publishes every app's services and whose one
/// advertisement carries what the apps ask, as the background rules allow.
///
/// Requests and subscriptions for the app's characteristics come out on `events`, through the
/// phone (queued, waking or relaunching the app as its rules say). An actor on the app's
/// executor.
public actor PhonePeripheralManager {
    package nonisolated let id: ManagerID
    package nonisolated let app: AppIdentifier
    nonisolated let system: SystemBluetooth
    nonisolated let executor: AppExecutor
    /// Every delegate callback, in the order the phone delivers them. One listener.
    public nonisolated let events: EventStream<PhonePeripheralManagerEvent>
    nonisolated let sink: EventStream<PhonePeripheralManagerEvent>.Continuation

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    package init(id: ManagerID, app: AppIdentifier, executor: AppExecutor, system: SystemBluetooth) {
        self.id = id
        self.app = app
        self.executor = executor
        self.system = system
        (events, sink) = EventStream.makeStream(of: PhonePeripheralManagerEvent.self)
    }

    public nonisolated var restoreIdentifier: String? { id.restoreIdentifier }

    public var state: ManagerState {
        get async { await system.peripheralManagerState }
    }

    /// Publishes `service` on the phone's GATT server, for this app.
    @discardableResult
    public func add(_ service: MutableService) async throws(BLEError) -> Service {
        try await system.add(service, for: app, id)
    }

    public func remove(_ service: Service) async throws(BLEError) {
        try await system.remove(service, for: app, id)
    }

    /// This app's services as published.
    public var services: [Service] {
        get async { await system.services(of: app, id) }
    }

    /// Advertises the local name and the service UUIDs — the two keys Core Bluetooth
    /// supports. In the background (with `bluetooth-peripheral`) the name is dropped and the
    /// UUIDs move to the overflow area; without the mode, nothing is advertised until the app
    /// is in front again.
    public func startAdvertising(_ advertisement: PhoneAdvertisement) async throws(BLEError) {
        try await system.startAdvertising(advertisement, for: app, id)
    }

    public func startAdvertising(localName: String?, serviceUUIDs: [BluetoothUUID]) async throws(BLEError) {
        try await startAdvertising(PhoneAdvertisement(localName: localName, serviceUUIDs: serviceUUIDs))
    }

    public func stopAdvertising() async {
        await system.stopAdvertising(for: app, id)
    }

    /// Whether this app asked to advertise (its advertising may be reduced or paused by the
    /// background rules).
    public var isAdvertising: Bool {
        get async { await system.isAdvertising(app, id) }
    }

    public func respond(to request: ATTRequest, withResult result: ATTResult) async {
        await system.respond(to: request, withResult: result)
    }

    public func respond(to request: ATTRequest, withValue value: [UInt8]) async {
        await system.respond(to: request, withValue: value)
    }

    /// Sends `value` to the centrals subscribed to the app's characteristic; false when the
    /// transmit queue is full (`.readyToUpdateSubscribers` follows).
    @discardableResult
    public func updateValue(
        _ value: [UInt8], for characteristic: Characteristic, onSubscribedCentrals centrals: [Central]? = nil
    ) async throws(BLEError) -> Bool {
        try await system.updateValue(value, for: characteristic, onSubscribedCentrals: centrals, from: app, id)
    }

    /// Hands an event to the app (called by the phone's delivery, never directly).
    package nonisolated func yield(_ event: PhonePeripheralManagerEvent) {
        sink.yield(event)
    }
}
