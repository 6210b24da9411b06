import BLEWire
import Foundation
import Testing

@testable import BLE

/// `Characteristic`, `Service`, `Descriptor` and `Central` compare as Core Bluetooth's objects
/// do: by the attribute (handle, owner) or link, not by the snapshot's value.
@Suite("Attribute identity: equality by handle and owner, not by value")
struct AttributeIdentityTests {
    @Test("A characteristic read again with another value is the same characteristic; a Set keeps one")
    func characteristicIdentity() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, service, characteristics) = try await devices.connectAndDiscover()
            let stored = try #require(characteristics[Fixture.storedUUID])
            _ = try await peripheral.readValue(for: stored)
            let after = try #require(
                await peripheral.services?.first { $0.uuid == Fixture.serviceUUID }?.characteristics?.first {
                    $0.uuid == Fixture.storedUUID
                })
            #expect(after.value == [1, 2, 3])
            #expect(stored.value == nil)
            #expect(after == stored)
            #expect(Set([after, stored]).count == 1)
            #expect(stored != characteristics[Fixture.dynamicUUID])
            let again = try #require(await peripheral.services?.first { $0.uuid == Fixture.serviceUUID })
            #expect(again == service)
            #expect(again.characteristics != nil && service.characteristics == nil)
            let descriptors = try await peripheral.discoverDescriptors(for: stored)
            let descriptor = try #require(descriptors.first)
            _ = try await peripheral.readValue(for: descriptor)
            let read = try #require(
                await peripheral.services?.first { $0.uuid == Fixture.serviceUUID }?.characteristics?.first {
                    $0.uuid == Fixture.storedUUID
                }?.descriptors?.first)
            #expect(read.value != descriptor.value)
            #expect(read == descriptor)
        }
    }

    @Test("Attributes of two peripherals with the same handles differ (the owner is part of the identity)")
    func ownerMatters() {
        let properties: CharacteristicProperties = .read
        let one = Characteristic(
            uuid: 0x2A19, properties: properties, declarationHandle: 1, handle: 2, serviceUUID: 0x180F, value: [1],
            isNotifying: false, descriptors: nil, owner: UUID())
        var other = one
        other.value = [2]
        #expect(one == other)
        let elsewhere = Characteristic(
            uuid: 0x2A19, properties: properties, declarationHandle: 1, handle: 2, serviceUUID: 0x180F, value: [1],
            isNotifying: false, descriptors: nil, owner: UUID())
        #expect(one != elsewhere)
    }

    @Test("A central before and after an ATT_MTU change is the same central")
    func centralIdentity() {
        let identifier = UUID()
        let before = Central(identifier: identifier, maximumUpdateValueLength: 20, connection: 1)
        let after = Central(identifier: identifier, maximumUpdateValueLength: 244, connection: 1)
        #expect(before == after)
        #expect(Set([before, after]).count == 1)
        #expect(before != Central(identifier: identifier, maximumUpdateValueLength: 20, connection: 2))
    }
}
