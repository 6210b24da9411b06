import BLEController
import BLEHost
import BLESimulation
import BLEWire
import Foundation
import Testing

@testable import BLE

/// A test that cannot go on.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A central manager and a peripheral manager, each with its own controller, on one virtual
/// radio 2 m apart.
struct TwoDevices: Sendable {
    let radio: VirtualRadio
    let central: CentralManager
    let peripheralManager: PeripheralManager
    /// The central's radio (captured when `run` was given a capture path).
    let centralRadio: Radio

    var simulation: Simulation { radio.simulation }
    var now: VirtualInstant { radio.simulation.now }

    /// Runs `body` on the simulation with both managers (powered on unless told otherwise), and
    /// closes them afterwards so that no link or advertising keeps the air busy.
    @discardableResult
    static func run<T: Sendable>(
        poweredOn: Bool = true, capturingCentralTo capturePath: String? = nil,
        _ body: @escaping @Sendable (TwoDevices) async throws -> T
    ) async throws -> T {
        let radio = VirtualRadio()
        let centralRadio = try Radio.virtual(radio, position: AirPosition(x: 2, y: 0, z: 0))
            .capturing(toFile: capturePath)
        return try await radio.simulation.run {
            let peripheralManager = try await PeripheralManager(
                radio: .virtual(radio), gap: GAPServiceConfiguration(deviceName: "swift-ble sensor"))
            let central = await CentralManager(radio: centralRadio)
            let devices = TwoDevices(
                radio: radio, central: central, peripheralManager: peripheralManager, centralRadio: centralRadio)
            do {
                if poweredOn {
                    try await peripheralManager.powerOn()
                    try await central.powerOn()
                }
                let result = try await body(devices)
                await devices.close()
                return result
            } catch {
                await devices.close()
                throw error
            }
        }
    }

    func close() async {
        await central.close()
        await peripheralManager.close()
    }

    /// Starts a task on the simulation (so virtual time waits for it).
    @discardableResult
    func spawn<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        Task(executorPreference: simulation.executor) { try await body() }
    }

    /// Sleeps for `duration` of virtual time.
    func sleep(for duration: Duration) async throws {
        try await simulation.clock.sleep(for: duration)
    }

    // MARK: Scenario steps

    /// Publishes the fixture's services and advertises them.
    @discardableResult
    func publish(advertising: AdvertisementData = Fixture.advertisement) async throws -> Service {
        try await peripheralManager.add(Fixture.includedService)
        let service = try await peripheralManager.add(Fixture.service)
        try await peripheralManager.startAdvertising(advertising)
        return service
    }

    /// Scans until the first discovery, then stops scanning.
    func discover(withServices services: [BluetoothUUID]? = [Fixture.serviceUUID]) async throws -> Discovery {
        let discoveries = try await central.scanForPeripherals(withServices: services)
        var iterator = discoveries.makeAsyncIterator()
        guard let found = await iterator.next() else { throw TestFailure("the scan ended without a discovery") }
        await central.stopScan()
        return found
    }

    /// Publishes, advertises, discovers and connects; returns the connected peripheral.
    func publishAndConnect() async throws -> Peripheral {
        try await publish()
        let peripheral = try await discover().peripheral
        try await central.connect(peripheral)
        return peripheral
    }

    /// Publishes, connects and discovers the fixture service's characteristics.
    func connectAndDiscover() async throws -> (Peripheral, Service, [BluetoothUUID: Characteristic]) {
        let peripheral = try await publishAndConnect()
        let services = try await peripheral.discoverServices([Fixture.serviceUUID])
        guard let service = services.first else { throw TestFailure("fixture service not found") }
        let characteristics = try await peripheral.discoverCharacteristics(for: service)
        return (peripheral, service, Dictionary(uniqueKeysWithValues: characteristics.map { ($0.uuid, $0) }))
    }

    /// Collects what `stream` yields during `duration` of virtual time, then calls `stop`.
    func collect<Element: Sendable>(
        _ stream: EventStream<Element>, for duration: Duration, stop: @escaping @Sendable () async -> Void
    ) async throws -> [Element] {
        let clock = simulation.clock
        let stopper = spawn {
            try await clock.sleep(for: duration)
            await stop()
        }
        var found: [Element] = []
        for await element in stream { found.append(element) }
        try await stopper.value
        return found
    }
}

/// The test peripheral's GATT database.
enum Fixture {
    static let serviceUUID: BluetoothUUID = 0xFFF0
    static let includedUUID: BluetoothUUID = 0xFFE0
    /// read; stored [1, 2, 3]; a user description.
    static let storedUUID: BluetoothUUID = 0xFFF1
    /// read and write; the app answers.
    static let dynamicUUID: BluetoothUUID = 0xFFF2
    /// notify and write without response; stored.
    static let streamUUID: BluetoothUUID = 0xFFF3
    /// indicate only.
    static let indicatedUUID: BluetoothUUID = 0xFFF4
    /// write only; the app answers.
    static let writeOnlyUUID: BluetoothUUID = 0xFFF5
    static let levelUUID: BluetoothUUID = 0xFFE1

    static let includedService = MutableService(
        uuid: includedUUID, isPrimary: false,
        characteristics: [
            MutableCharacteristic(uuid: levelUUID, properties: .read, permissions: .readable, value: .stored([42]))
        ])

    static let service = MutableService(
        uuid: serviceUUID, includedServices: [includedService],
        characteristics: [
            MutableCharacteristic(
                uuid: storedUUID, properties: .read, permissions: .readable, value: .stored([1, 2, 3]),
                descriptors: [.userDescription("stored value")]),
            MutableCharacteristic(
                uuid: dynamicUUID, properties: [.read, .write], permissions: [.readable, .writeable], value: .dynamic),
            MutableCharacteristic(
                uuid: streamUUID, properties: [.notify, .writeWithoutResponse],
                permissions: [.readable, .writeable], value: .stored([])),
            MutableCharacteristic(uuid: indicatedUUID, properties: .indicate, permissions: .readable, value: .dynamic),
            MutableCharacteristic(uuid: writeOnlyUUID, properties: .write, permissions: .writeable, value: .dynamic),
        ])

    static let advertisement = AdvertisementData(
        localName: "sensor", serviceUUIDs: [serviceUUID],
        manufacturerData: ManufacturerData(companyIdentifier: 0x05F1, data: [0xAB, 0xCD]),
        serviceData: [0x180F: [87]], txPowerLevel: -4)
}
