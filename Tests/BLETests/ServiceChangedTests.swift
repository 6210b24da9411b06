import BLEController
import BLEHost
import BLELocking
import BLEWire
import Testing

@testable import BLE

@Suite("Service Changed while connected (Core 5.4 Vol 3 Part G §7.1, §2.5.2)")
struct ServiceChangedTests {
    static let addedUUID: BluetoothUUID = 0xFEE0
    static let addedValueUUID: BluetoothUUID = 0xFEE1

    static let added = MutableService(
        uuid: addedUUID,
        characteristics: [
            MutableCharacteristic(uuid: addedValueUUID, properties: .read, permissions: .readable, value: .stored([7]))
        ])

    @Test("§7.1 a service added while connected is indicated; the central forgets overlapping services and finds it")
    func serviceAdded() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            var events = await peripheral.events().makeAsyncIterator()
            // The first full discovery enables Service Changed indications, as Core Bluetooth does.
            let before = try await peripheral.discoverServices()
            #expect(before.map(\.uuid) == [0x1800, 0x1801, Fixture.serviceUUID])
            #expect(await peripheral.serviceChangedHandle != nil)

            let added = try await devices.peripheralManager.add(Self.added)
            guard case .servicesModified(let invalidated)? = await events.next() else {
                Issue.record("no servicesModified event")
                return
            }
            // The new service's range held nothing discovered: no listed service is invalidated.
            #expect(invalidated.isEmpty)
            #expect(await peripheral.services?.map(\.uuid) == [0x1800, 0x1801, Fixture.serviceUUID])

            let after = try await peripheral.discoverServices()
            #expect(after.map(\.uuid) == [0x1800, 0x1801, Fixture.serviceUUID, Self.addedUUID])
            let service = try #require(after.last)
            #expect(service.handleRange == added.handleRange)
            let characteristic = try #require(try await peripheral.discoverCharacteristics(for: service).first)
            #expect(try await peripheral.readValue(for: characteristic) == [7])
        }
    }

    @Test("§7.1 a service removed while connected is indicated with its range and reported as invalidated")
    func serviceRemoved() async throws {
        try await TwoDevices.run { devices in
            let service = try await devices.publish()
            let peripheral = try await devices.discover().peripheral
            try await devices.central.connect(peripheral)
            var events = await peripheral.events().makeAsyncIterator()
            _ = try await peripheral.discoverServices()

            try await devices.peripheralManager.remove(service)
            guard case .servicesModified(let invalidated)? = await events.next() else {
                Issue.record("no servicesModified event")
                return
            }
            #expect(invalidated.map(\.uuid) == [Fixture.serviceUUID])
            #expect(invalidated.first?.handleRange == service.handleRange)
            #expect(await peripheral.services?.map(\.uuid) == [0x1800, 0x1801])
            #expect(try await peripheral.discoverServices().map(\.uuid) == [0x1800, 0x1801])
        }
    }

    @Test("§2.5.2.1 a central that did not enable Service Changed gets no indication and no event")
    func notSubscribedGetsNothing() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            let events = await peripheral.events()
            // Discovery by UUID does not enable Service Changed.
            _ = try await peripheral.discoverServices([Fixture.serviceUUID])
            #expect(await peripheral.serviceChangedHandle == nil)
            let seen = Locked<[PeripheralEvent]>([])
            let listener = devices.spawn {
                for await event in events { seen.withLock { $0.append(event) } }
            }
            try await devices.peripheralManager.add(Self.added)
            // Two virtual seconds: many connection events for an indication to arrive in.
            try await devices.sleep(for: .seconds(2))
            listener.cancel()
            #expect(seen.withLock { $0.isEmpty })
        }
    }
}
