import BLEController
import BLEHost
import BLEWire
import Testing

@testable import BLE

@Suite("Discovery through the public API (Core 5.4 Vol 3 Part G §4.4–§4.7)")
struct DiscoveryTests {
    @Test("discoverServices finds every primary service (§4.4.1), or those asked for (§4.4.2)")
    func services() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            #expect(await peripheral.services == nil)
            let all = try await peripheral.discoverServices()
            #expect(all.map(\.uuid) == [0x1800, 0x1801, Fixture.serviceUUID])
            #expect(all.allSatisfy { $0.isPrimary })
            #expect(await peripheral.services?.map(\.uuid) == [0x1800, 0x1801, Fixture.serviceUUID])
            let some = try await peripheral.discoverServices([Fixture.serviceUUID, 0xAAAA])
            #expect(some.map(\.uuid) == [Fixture.serviceUUID])
            #expect(some.first?.characteristics == nil)
        }
    }

    @Test("discoverIncludedServices finds the secondary service the fixture includes (§4.5.1)")
    func includedServices() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            let service = try #require(try await peripheral.discoverServices([Fixture.serviceUUID]).first)
            let included = try await peripheral.discoverIncludedServices(for: service)
            #expect(included.map(\.uuid) == [Fixture.includedUUID])
            #expect(included.first?.isPrimary == false)
            #expect(try await peripheral.discoverIncludedServices([0xAAAA], for: service).isEmpty)
            let secondary = try #require(included.first)
            let level = try await peripheral.discoverCharacteristics(for: secondary)
            #expect(level.map(\.uuid) == [Fixture.levelUUID])
            #expect(try await peripheral.readValue(for: try #require(level.first)) == [42])
            let listed = try #require(await peripheral.services?.first { $0.uuid == Fixture.serviceUUID })
            #expect(listed.includedServices?.map(\.uuid) == [Fixture.includedUUID])
            // A secondary service is not listed among the peripheral's services.
            #expect(await peripheral.services?.map(\.uuid) == [Fixture.serviceUUID])
        }
    }

    @Test("discoverCharacteristics reports each declaration's properties (§4.6.1), filtered by UUID on request")
    func characteristics() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            let service = try #require(try await peripheral.discoverServices([Fixture.serviceUUID]).first)
            let some = try await peripheral.discoverCharacteristics([Fixture.streamUUID], for: service)
            #expect(some.map(\.uuid) == [Fixture.streamUUID])
            let all = try await peripheral.discoverCharacteristics(for: service)
            #expect(
                all.map(\.uuid) == [
                    Fixture.storedUUID, Fixture.dynamicUUID, Fixture.streamUUID, Fixture.indicatedUUID,
                    Fixture.writeOnlyUUID,
                ])
            #expect(
                all.map(\.properties) == [
                    .read, [.read, .write], [.notify, .writeWithoutResponse], .indicate, .write,
                ])
            #expect(all.allSatisfy { $0.serviceUUID == Fixture.serviceUUID && !$0.isNotifying && $0.value == nil })
            let stored = await peripheral.services?.first { $0.uuid == Fixture.serviceUUID }?.characteristics
            #expect(stored?.count == 5)
        }
    }

    @Test("discoverDescriptors finds the user description and the Client Characteristic Configuration (§4.7.1)")
    func descriptors() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let stored = try #require(characteristics[Fixture.storedUUID])
            let descriptors = try await peripheral.discoverDescriptors(for: stored)
            #expect(descriptors.map(\.uuid) == [GATTAttributeType.characteristicUserDescription])
            let description = try #require(descriptors.first)
            #expect(try await peripheral.readValue(for: description) == Array("stored value".utf8))
            let stream = try #require(characteristics[Fixture.streamUUID])
            #expect(try await peripheral.discoverDescriptors(for: stream).map(\.uuid) == [0x2902])
            let writeOnly = try #require(characteristics[Fixture.writeOnlyUUID])
            #expect(try await peripheral.discoverDescriptors(for: writeOnly).isEmpty)
            // The snapshot now carries the descriptor and the value read.
            let service = await peripheral.services?.first { $0.uuid == Fixture.serviceUUID }
            let snapshot = service?.characteristics?.first { $0.uuid == Fixture.storedUUID }
            #expect(snapshot?.descriptors?.first?.value == Array("stored value".utf8))
        }
    }

    @Test("Attributes of another peripheral, or never discovered, are refused")
    func unknownAttributes() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, service, characteristics) = try await devices.connectAndDiscover()
            let published = try #require(
                await devices.peripheralManager.services.first { $0.uuid == Fixture.serviceUUID })
            // The peripheral manager's own snapshot is not this peripheral's.
            await #expect(throws: BLEError.unknownAttribute) {
                try await peripheral.discoverCharacteristics(for: published)
            }
            let local = try #require(published.characteristics?.first { $0.uuid == Fixture.storedUUID })
            await #expect(throws: BLEError.unknownAttribute) { try await peripheral.readValue(for: local) }
            _ = (service, characteristics)
        }
    }
}
