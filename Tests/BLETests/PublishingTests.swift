import BLEController
import BLEHost
import BLEWire
import Testing

@testable import BLE

@Suite("Publishing services (Core 5.4 Vol 3 Part G §3; CBPeripheralManager add, remove, removeAllServices)")
struct PublishingTests {
    @Test("add gives the service its handles; the snapshot names its characteristics, values and descriptors")
    func add() async throws {
        try await TwoDevices.run { devices in
            let manager = devices.peripheralManager
            let included = try await manager.add(Fixture.includedService)
            let service = try await manager.add(Fixture.service)
            #expect(included.isPrimary == false)
            #expect(service.includedServices?.map(\.uuid) == [Fixture.includedUUID])
            #expect(service.handleRange.lowerBound > included.handleRange.upperBound)
            let characteristics = try #require(service.characteristics)
            #expect(characteristics.count == 5)
            let stored = try #require(characteristics.first)
            #expect(stored.value == [1, 2, 3])
            #expect(stored.descriptors?.map(\.uuid) == [GATTAttributeType.characteristicUserDescription])
            #expect(stored.descriptors?.first?.value == Array("stored value".utf8))
            #expect(characteristics.allSatisfy { service.handleRange.contains($0.handle) && !$0.isNotifying })
            #expect(await manager.services.map(\.uuid) == [Fixture.includedUUID, Fixture.serviceUUID])
        }
    }

    @Test("remove and removeAllServices take services out of the database a central discovers")
    func remove() async throws {
        try await TwoDevices.run { devices in
            let manager = devices.peripheralManager
            let included = try await manager.add(Fixture.includedService)
            let service = try await manager.add(Fixture.service)
            // A service still included by another cannot go first (Vol 3 Part G §3.2).
            await #expect(throws: BLEError.database(.serviceIsIncluded(byServiceAt: service.handleRange.lowerBound))) {
                try await manager.remove(included)
            }
            let battery = try await manager.add(
                MutableService(
                    uuid: 0x180F,
                    characteristics: [
                        MutableCharacteristic(
                            uuid: 0x2A19, properties: .read, permissions: .readable, value: .stored([50]))
                    ]))
            try await manager.remove(battery)
            await #expect(throws: BLEError.unknownAttribute) { try await manager.remove(battery) }
            try await manager.startAdvertising(Fixture.advertisement)
            let peripheral = try await devices.discover().peripheral
            try await devices.central.connect(peripheral)
            #expect(try await peripheral.discoverServices().map(\.uuid) == [0x1800, 0x1801, Fixture.serviceUUID])
            await devices.central.cancelPeripheralConnection(peripheral)

            try await manager.removeAllServices()
            #expect(await manager.services.isEmpty)
            try await devices.central.connect(peripheral)
            #expect(try await peripheral.discoverServices().map(\.uuid) == [0x1800, 0x1801])
        }
    }

    @Test("A service whose definition the database refuses is a typed error")
    func refused() async throws {
        try await TwoDevices.run { devices in
            // An included service must be published first (Vol 3 Part G §3.2).
            await #expect(throws: BLEError.database(.includedServiceNotFound(Fixture.includedUUID))) {
                try await devices.peripheralManager.add(Fixture.service)
            }
        }
    }
}
