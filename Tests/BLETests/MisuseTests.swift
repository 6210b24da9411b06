import BLEController
import BLEHost
import BLEWire
import Testing

@testable import BLE

@Suite("Calls that cannot succeed throw at once, before anything is sent")
struct MisuseTests {
    @Test("A characteristic without the property the operation needs (Core 5.4 Vol 3 Part G §3.3.1.1)")
    func missingProperty() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let writeOnly = try #require(characteristics[Fixture.writeOnlyUUID])
            let stored = try #require(characteristics[Fixture.storedUUID])
            let stream = try #require(characteristics[Fixture.streamUUID])
            await #expect(throws: BLEError.propertyNotSupported(required: .read)) {
                try await peripheral.readValue(for: writeOnly)
            }
            await #expect(throws: BLEError.propertyNotSupported(required: .write)) {
                try await peripheral.writeValue([1], for: stored, type: .withResponse)
            }
            await #expect(throws: BLEError.propertyNotSupported(required: .write)) {
                try await peripheral.writeValue([1], for: stream, type: .withResponse)
            }
            await #expect(throws: BLEError.propertyNotSupported(required: .writeWithoutResponse)) {
                try await peripheral.writeValue([1], for: writeOnly, type: .withoutResponse)
            }
            await #expect(throws: BLEError.propertyNotSupported(required: [.notify, .indicate])) {
                try await peripheral.setNotifyValue(true, for: stored)
            }
            let manager = devices.peripheralManager
            let local = try #require(
                await manager.services.first { $0.uuid == Fixture.serviceUUID }?.characteristics?.first {
                    $0.uuid == Fixture.storedUUID
                })
            await #expect(throws: BLEError.propertyNotSupported(required: [.notify, .indicate])) {
                try await manager.updateValue([1], for: local)
            }
        }
    }

    @Test("A value too long: ATT_MTU − 3 without response and for updates, 512 with response (Vol 3 Part F §3.2.9)")
    func valueTooLong() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let stream = try #require(characteristics[Fixture.streamUUID])
            let writeOnly = try #require(characteristics[Fixture.writeOnlyUUID])
            await #expect(throws: BLEError.valueTooLong(length: 245, maximum: 244)) {
                try await peripheral.writeValue([UInt8](repeating: 0, count: 245), for: stream, type: .withoutResponse)
            }
            await #expect(throws: BLEError.valueTooLong(length: 513, maximum: 512)) {
                try await peripheral.writeValue([UInt8](repeating: 0, count: 513), for: writeOnly, type: .withResponse)
            }
            let manager = devices.peripheralManager
            var events = manager.events.makeAsyncIterator()
            try await peripheral.setNotifyValue(true, for: stream)
            var local: Characteristic?
            while local == nil, let event = await events.next() {
                if case .subscribed(_, let characteristic) = event { local = characteristic }
            }
            let characteristic = try #require(local)
            await #expect(throws: BLEError.valueTooLong(length: 245, maximum: 244)) {
                try await manager.updateValue([UInt8](repeating: 0, count: 245), for: characteristic)
            }
        }
    }

    @Test("A read at an offset past the value's end gets Invalid Offset (Vol 3 Part F §3.4.4.5)")
    func invalidOffset() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let dynamic = try #require(characteristics[Fixture.dynamicUUID])
            let stored = try #require(characteristics[Fixture.storedUUID])
            let manager = devices.peripheralManager
            devices.spawn {
                for await request in manager.readRequests {
                    await manager.respond(to: request, withValue: [1, 2, 3, 4])
                }
            }
            // A raw Read Blob from the central's host, past the end of both values.
            guard case .connected(let handle) = await peripheral.link else { throw TestFailure("not connected") }
            let host = devices.central.stack.host
            for (attribute, offset) in [(dynamic.handle, UInt16(5)), (stored.handle, UInt16(4))] {
                let response = try await host.attRequest(
                    .readBlobRequest(.init(handle: attribute, valueOffset: offset)), on: handle)
                guard case .errorResponse(let error) = response else {
                    Issue.record("\(response) is not an Error Response")
                    continue
                }
                #expect(error.errorCode == .invalidOffset)
                #expect(error.handle == attribute)
            }
            // At the end exactly, the part is empty.
            let atEnd = try await host.attRequest(
                .readBlobRequest(.init(handle: dynamic.handle, valueOffset: 4)), on: handle)
            guard case .readBlobResponse(let part) = atEnd else {
                Issue.record("\(atEnd) is not a Read Blob Response")
                return
            }
            #expect(part.partValue.isEmpty)
        }
    }

    @Test("A peripheral of another manager cannot be connected")
    func unknownPeripheral() async throws {
        let radio = VirtualRadio()
        try await radio.simulation.run {
            let manager = try await PeripheralManager(radio: .virtual(radio))
            let first = await CentralManager(radio: .virtual(radio, position: AirPosition(x: 1, y: 0, z: 0)))
            let second = await CentralManager(radio: .virtual(radio, position: AirPosition(x: 0, y: 1, z: 0)))
            try await manager.powerOn()
            try await first.powerOn()
            try await second.powerOn()
            try await manager.startAdvertising(AdvertisementData(localName: "x"))
            var found = try await first.scanForPeripherals().makeAsyncIterator()
            let peripheral = try #require(await found.next()).peripheral
            await first.stopScan()
            await #expect(throws: BLEError.unknownPeripheral) { try await second.connect(peripheral) }
            await first.close()
            await second.close()
            await manager.close()
        }
    }
}
