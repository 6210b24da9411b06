import BLEController
import BLEHost
import BLEWire

@testable import BLE

/// Another peripheral manager on the devices' radio, publishing the fixture's service.
extension TwoDevices {
    func addPeripheralManager(at position: AirPosition) async throws -> PeripheralManager {
        let manager = try await PeripheralManager(
            radio: .virtual(radio, position: position), gap: GAPServiceConfiguration(deviceName: "second"))
        try await manager.powerOn()
        try await manager.add(Fixture.includedService)
        try await manager.add(Fixture.service)
        return manager
    }

    /// Scans until every one of `managers` (advertising) is discovered; their peripherals in
    /// the same order.
    func discover(_ count: Int) async throws -> [Peripheral] {
        let discoveries = try await central.scanForPeripherals(withServices: [Fixture.serviceUUID])
        var found: [Peripheral] = []
        for await discovery in discoveries where !found.contains(discovery.peripheral) {
            found.append(discovery.peripheral)
            if found.count == count { break }
        }
        await central.stopScan()
        guard found.count == count else { throw TestFailure("found \(found.count) of \(count) peripherals") }
        return found
    }
}
