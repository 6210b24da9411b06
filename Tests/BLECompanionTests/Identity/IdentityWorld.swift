import BLE
import BLECompanion
import BLEHost
import BLELocking
import BLESimulation
import Foundation

/// A phone (a central) and a wearable that advertises its MAC in manufacturer data (company
/// 0xFFFF, six octets least significant first), each with its own controller on one virtual
/// radio 2 m apart. The wearable can be replaced by one at another controller address.
final class IdentityWorld: Sendable {
    static let mac = BluetoothAddress(0xC4_7C_8D_6A_12_34)
    static let serviceUUID: BluetoothUUID = 0xFE00

    let radio: VirtualRadio
    let central: CentralManager
    private let wearables = Locked<[PeripheralManager]>([])

    var simulation: Simulation { radio.simulation }
    var clock: VirtualClock { radio.simulation.clock }
    var now: VirtualInstant { radio.simulation.now }

    private init(radio: VirtualRadio, central: CentralManager) {
        self.radio = radio
        self.central = central
    }

    /// Runs `body` on the simulation with a powered-on central (made after `wearableAddress`'s
    /// wearable when one is given, so the wearable's radio is the air's first); closes
    /// everything after.
    static func run<T: Sendable>(
        wearableAddress: BluetoothAddress? = BluetoothAddress(0x00_1B_DC_00_00_01),
        _ body: @escaping @Sendable (IdentityWorld) async throws -> T
    ) async throws -> T {
        let radio = VirtualRadio()
        return try await radio.simulation.run {
            var first: PeripheralManager?
            if let wearableAddress { first = try await makeWearable(radio: radio, address: wearableAddress) }
            let central = await CentralManager(radio: .virtual(radio, position: AirPosition(x: 2, y: 0, z: 0)))
            try await central.powerOn()
            let world = IdentityWorld(radio: radio, central: central)
            if let first { world.wearables.withLock { $0.append(first) } }
            do {
                let result = try await body(world)
                await world.close()
                return result
            } catch {
                await world.close()
                throw error
            }
        }
    }

    static var advertisement: AdvertisementData {
        AdvertisementData(
            localName: "wearable", serviceUUIDs: [serviceUUID],
            manufacturerData: ManufacturerData(companyIdentifier: 0xFFFF, data: Array(mac.octets.reversed())))
    }

    private static func makeWearable(radio: VirtualRadio, address: BluetoothAddress) async throws
        -> PeripheralManager
    {
        let manager = try await PeripheralManager(
            radio: .virtual(radio, controller: VirtualController.Configuration(publicAddress: address)),
            gap: GAPServiceConfiguration(deviceName: "wearable"))
        try await manager.powerOn()
        try await manager.startAdvertising(advertisement)
        return manager
    }

    /// The wearable now advertising.
    var wearable: PeripheralManager? { wearables.withLock { $0.last } }

    /// The same wearable back at another controller address (a new controller on the air).
    @discardableResult
    func replaceWearable(address: BluetoothAddress) async throws -> PeripheralManager {
        if let old = wearable { await old.close() }
        let manager = try await Self.makeWearable(radio: radio, address: address)
        wearables.withLock { $0.append(manager) }
        return manager
    }

    /// Moves the first wearable's radio (the air's first).
    func moveWearable(to position: AirPosition) async {
        await radio.withAir { air in
            guard let first = air.radioIDs.first else { return }
            air.move(first, to: position)
        }
    }

    func close() async {
        await central.close()
        for manager in wearables.withLock({ $0 }) { await manager.close() }
    }

    /// Scans until the wearable is seen.
    func discoverWearable() async throws -> Discovery {
        var discoveries = try await central.scanForPeripherals(withServices: [Self.serviceUUID]).makeAsyncIterator()
        guard let found = await discoveries.next() else { throw TestFailure("the scan ended without a discovery") }
        await central.stopScan()
        return found
    }

    /// Starts a task on the simulation.
    @discardableResult
    func spawn<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        Task(executorPreference: simulation.executor) { try await body() }
    }
}

/// A clock of dates for the registry that moves only when told.
final class ManualDates: Sendable {
    private let current = Locked(Date(timeIntervalSince1970: 1_700_000_000))

    var now: @Sendable () -> Date { { self.current.withLock { $0 } } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// Random numbers read from a script (then repeated from its start): jitter tests know each
/// draw exactly.
struct ScriptedRandom: RandomNumberGenerator, Sendable {
    let values: [UInt64]
    var index = 0

    init(_ values: [UInt64]) { self.values = values }

    mutating func next() -> UInt64 {
        defer { index += 1 }
        return values[index % values.count]
    }

    /// The output whose `ReconnectPolicy.unit` is `unit` (exact for multiples of 2⁻⁵³).
    static func output(forUnit unit: Double) -> UInt64 { UInt64(unit * 0x1p53) << 11 }
}
