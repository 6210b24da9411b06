import BLEWire
import Testing

@testable import BLEHost

/// A headset-like database: GAP and GATT services, Heart Rate including a secondary Battery
/// service, and a vendor service (128-bit UUIDs) including a 128-bit secondary service.
let vendorUUID3 = BluetoothUUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")!
let vendorUUID4 = BluetoothUUID("6E400004-B5A3-F393-E0A9-E50E24DCCA9E")!
let headsetLongValue = ramp(300, from: 7)

func headsetServices(extraVendorCharacteristic: Bool = false) -> [FakeService] {
    let cccd = FakeDescriptor(uuid: 0x2902, value: [0x00, 0x00])
    var vendor = FakeService(
        uuid: vendorUUID, includes: [5],
        characteristics: [
            FakeCharacteristic(
                uuid: vendorUUID2, properties: [.read, .write, .writeWithoutResponse, .authenticatedSignedWrites],
                value: headsetLongValue, descriptors: [FakeDescriptor(uuid: vendorUUID4, value: ramp(40)), cccd]),
            FakeCharacteristic(uuid: 0x2A19, properties: [.read, .notify], value: [0x42], descriptors: [cccd]),
        ])
    if extraVendorCharacteristic {
        vendor.characteristics.append(FakeCharacteristic(uuid: 0x2A3F, properties: [.write], value: []))
    }
    return [
        FakeService(
            uuid: 0x1800,
            characteristics: [
                FakeCharacteristic(uuid: 0x2A00, properties: [.read], value: Array("swift-ble headset".utf8)),
                FakeCharacteristic(uuid: 0x2A01, properties: [.read], value: [0x41, 0x09]),
            ]),
        FakeService(
            uuid: 0x1801,
            characteristics: [
                FakeCharacteristic(
                    uuid: 0x2A05, properties: [.indicate], readable: false, writable: false, descriptors: [cccd])
            ]),
        FakeService(
            uuid: 0x180D, includes: [3],
            characteristics: [
                FakeCharacteristic(
                    uuid: 0x2A37, properties: [.notify], value: [0x00, 0x48], readable: false,
                    descriptors: [cccd, FakeDescriptor(uuid: 0x2901, value: Array("beats".utf8))]),
                FakeCharacteristic(uuid: 0x2A38, properties: [.read], value: [0x01]),
                FakeCharacteristic(uuid: 0x2A39, properties: [.write], value: []),
            ],
            gapBefore: 3),
        FakeService(
            uuid: 0x180F, isPrimary: false,
            characteristics: [
                FakeCharacteristic(uuid: 0x2A19, properties: [.read, .notify], value: [0x64], descriptors: [cccd])
            ]),
        vendor,
        FakeService(
            uuid: vendorUUID3, isPrimary: false,
            characteristics: [FakeCharacteristic(uuid: vendorUUID4, properties: [.read], value: ramp(5))]),
    ]
}

/// Checks that `services` describe exactly the server's database: every declaration, value and
/// descriptor handle where the server put it.
func expectMatches(
    _ services: [GATTDatabaseCache.Service], _ attributes: [FakeGATTServer.Attribute],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let declarations: Set<BluetoothUUID> = [0x2800, 0x2801, 0x2802, 0x2803]
    let serviceAttributes = attributes.filter { $0.type == 0x2800 || $0.type == 0x2801 }
    #expect(
        services.map(\.service)
            == serviceAttributes.map {
                DiscoveredService(
                    uuid: try! BluetoothUUID(decodingLittleEndian: $0.value[...]),
                    handleRange: $0.handle...$0.groupEnd!,
                    isPrimary: $0.type == 0x2800)
            }, sourceLocation: sourceLocation)
    let characteristics = services.flatMap(\.characteristics)
    #expect(
        characteristics.map(\.characteristic.declarationHandle)
            == attributes.filter { $0.type == 0x2803 }.map(\.handle),
        sourceLocation: sourceLocation)
    var describedHandles: [UInt16] = []
    for entry in characteristics {
        let characteristic = entry.characteristic
        let value = attributes.first { $0.handle == characteristic.valueHandle }
        #expect(value?.type == characteristic.uuid, sourceLocation: sourceLocation)
        describedHandles += entry.descriptors.map(\.handle)
        for descriptor in entry.descriptors {
            #expect(
                attributes.first { $0.handle == descriptor.handle }?.type == descriptor.uuid,
                sourceLocation: sourceLocation)
        }
    }
    let valueHandles = Set(characteristics.map(\.characteristic.valueHandle))
    let expectedDescriptors = attributes.filter { !declarations.contains($0.type) && !valueHandles.contains($0.handle) }
    #expect(describedHandles == expectedDescriptors.map(\.handle), sourceLocation: sourceLocation)
    let includes = services.flatMap(\.includedServices)
    #expect(
        includes.map(\.handle) == attributes.filter { $0.type == 0x2802 }.map(\.handle), sourceLocation: sourceLocation)
}

@Suite("GATT client against an in-memory server")
struct EndToEndTests {
    @Test(
        "Vol 3 Part G §4.4–§4.7 a whole discovery finds every service, include, characteristic and descriptor",
        arguments: [23, 247])
    func wholeDiscovery(mtu: Int) async throws {
        let server = FakeGATTServer(mtu: mtu, services: headsetServices())
        let services = try await GATTClient(bearer: server).discoverDatabase()
        expectMatches(services, await server.attributes)
        #expect(services.map(\.service.uuid) == [0x1800, 0x1801, 0x180D, 0x180F, vendorUUID, vendorUUID3])
        #expect(services.map(\.service.isPrimary) == [true, true, true, false, true, false])
        #expect(services[2].includedServices.map(\.uuid) == [0x180F])
        #expect(services[4].includedServices.map(\.uuid) == [vendorUUID3])
        #expect(services[2].includedServices.first?.includedServiceRange == services[3].service.handleRange)
        // Heart Rate Measurement: declaration, value, CCCD, User Description.
        let measurement = services[2].characteristics[0]
        #expect(measurement.characteristic.endHandle == measurement.characteristic.declarationHandle + 3)
        #expect(measurement.descriptors.map(\.uuid) == [0x2902, 0x2901])
    }

    @Test("Vol 3 Part G §4.4.1 a larger ATT_MTU needs fewer requests for the same database")
    func fewerRequestsAtLargerMTU() async throws {
        var services = headsetServices()
        services.append(
            FakeService(
                uuid: 0x1810,
                characteristics: (0..<10).map {
                    FakeCharacteristic(uuid: BluetoothUUID(0x2A40 + UInt16($0)), value: [0x00])
                }
            ))
        var counts: [Int] = []
        for mtu in [23, 247] {
            let server = FakeGATTServer(mtu: mtu, services: services)
            expectMatches(try await GATTClient(bearer: server).discoverDatabase(), await server.attributes)
            counts.append(await server.requests.count)
        }
        #expect(counts[1] < counts[0])
    }

    @Test(
        "Vol 3 Part G §4.4.2 Discover Primary Service by Service UUID finds 16- and 128-bit services",
        arguments: [23, 247])
    func primaryByUUID(mtu: Int) async throws {
        let server = FakeGATTServer(mtu: mtu, services: headsetServices())
        let client = GATTClient(bearer: server)
        let all = try await client.discoverPrimaryServices()
        #expect(try await client.discoverPrimaryServices(withUUID: 0x180D) == all.filter { $0.uuid == 0x180D })
        #expect(try await client.discoverPrimaryServices(withUUID: vendorUUID) == all.filter { $0.uuid == vendorUUID })
        // The secondary service is not primary: not found.
        #expect(try await client.discoverPrimaryServices(withUUID: 0x180F).isEmpty)
    }

    @Test("Vol 3 Part G §4.8.3 Read Long reads a 300-octet value whole", arguments: [23, 247])
    func readLong(mtu: Int) async throws {
        let server = FakeGATTServer(mtu: mtu, services: headsetServices())
        let client = GATTClient(bearer: server)
        var cache = GATTDatabaseCache()
        try await client.refresh(&cache)
        let characteristic = try #require(cache.characteristics(withUUID: vendorUUID2).first)
        #expect(try await client.readLongValue(handle: characteristic.valueHandle) == headsetLongValue)
        // The 40-octet vendor descriptor read long too.
        let descriptor = try #require(cache.descriptors(withUUID: vendorUUID4, of: characteristic).first)
        #expect(try await client.readLongDescriptor(handle: descriptor.handle) == ramp(40))
    }

    @Test(
        "Vol 3 Part G §4.8.3 a value of exactly twice ATT_MTU − 1 octets ends at an empty part or at Invalid Offset",
        arguments: [23, 247], [false, true])
    func readLongExactMultiple(mtu: Int, invalidOffsetAtEnd: Bool) async throws {
        let value = ramp(2 * (mtu - 1))
        var services = headsetServices()
        services[1].characteristics.append(FakeCharacteristic(uuid: 0x2AFF, properties: [.read], value: value))
        let server = FakeGATTServer(mtu: mtu, services: services)
        await server.setInvalidOffsetAtEnd(invalidOffsetAtEnd)
        let client = GATTClient(bearer: server)
        let found = try await client.discoverDatabase().flatMap(\.characteristics).map(\.characteristic)
        let target = try #require(found.first { $0.uuid == 0x2AFF })
        await server.forgetRequests()
        #expect(try await client.readLongValue(handle: target.valueHandle) == value)
        // Read, Read Blob at MTU − 1, Read Blob at the end.
        #expect(await server.requests.count == 3)
    }

    @Test("Vol 3 Part G §4.9 writes of every kind reach the server", arguments: [23, 247])
    func writes(mtu: Int) async throws {
        let server = FakeGATTServer(mtu: mtu, services: headsetServices())
        let client = GATTClient(bearer: server)
        var cache = GATTDatabaseCache()
        try await client.refresh(&cache)
        let vendor = try #require(cache.characteristics(withUUID: vendorUUID2).first).valueHandle
        let controlPoint = try #require(cache.characteristics(withUUID: 0x2A39).first).valueHandle

        let long = ramp(400, from: 3)
        try await client.writeLongValue(long, handle: vendor)
        #expect(try await client.readLongValue(handle: vendor) == long)

        try await client.writeValue([0x01], handle: controlPoint)
        #expect(await server.value(at: controlPoint) == [0x01])

        try await client.writeValueWithoutResponse(ramp(mtu - 3), handle: vendor)
        #expect(await server.value(at: vendor) == ramp(mtu - 3))

        try await client.signedWriteValueWithoutResponse([0x09], handle: vendor) { _ in
            ATT.AuthenticationSignature(signCounter: 1, mac: 2)
        }
        #expect(await server.value(at: vendor) == [0x09])

        try await client.reliableWrite([(vendor, ramp(30)), (controlPoint, [0x02, 0x03])])
        #expect(await server.value(at: vendor) == ramp(30))
        #expect(await server.value(at: controlPoint) == [0x02, 0x03])

        // The server refuses a write to a read-only characteristic.
        let name = try #require(cache.characteristics(withUUID: 0x2A00).first).valueHandle
        await server.setWritable(false, at: name)
        #expect(
            await gattError { try await client.writeLongValue(ramp(50), handle: name) }
                == .att(.writeNotPermitted, handle: name, request: .prepareWriteRequest))
    }

    @Test("Vol 3 Part G §4.8.2, §4.8.4, §4.8.5 reads of several values", arguments: [23, 247])
    func multipleReads(mtu: Int) async throws {
        let server = FakeGATTServer(mtu: mtu, services: headsetServices())
        let client = GATTClient(bearer: server)
        var cache = GATTDatabaseCache()
        try await client.refresh(&cache)
        let battery = cache.characteristics(withUUID: 0x2A19).map(\.valueHandle)
        #expect(battery.count == 2)
        let byUUID = try await client.readValues(ofCharacteristic: 0x2A19, in: 0x0001...0xFFFF)
        #expect(
            byUUID
                == [
                    GATTHandleValue(handle: battery[0], value: [0x64]),
                    GATTHandleValue(handle: battery[1], value: [0x42]),
                ].sorted {
                    $0.handle < $1.handle
                })

        let appearance = try #require(cache.characteristics(withUUID: 0x2A01).first).valueHandle
        let location = try #require(cache.characteristics(withUUID: 0x2A38).first).valueHandle
        #expect(try await client.readMultipleValues(handles: [appearance, location]) == [0x41, 0x09, 0x01])

        let vendor = try #require(cache.characteristics(withUUID: vendorUUID2).first).valueHandle
        let variable = try await client.readMultipleVariableValues(handles: [location, vendor])
        #expect(variable.first == GATTHandleValue(handle: location, value: [0x01]))
        // Opcode, two Value Lengths and the first value: the long value gets what the MTU leaves.
        #expect(
            variable.last
                == GATTHandleValue(handle: vendor, value: Array(headsetLongValue.prefix(mtu - 6)), isTruncated: true))
    }

    @Test("Vol 3 Part G §3.3.3.3 subscribing through the cached CCCD writes it on the server", arguments: [23, 247])
    func subscribe(mtu: Int) async throws {
        let server = FakeGATTServer(mtu: mtu, services: headsetServices())
        let client = GATTClient(bearer: server)
        var cache = GATTDatabaseCache()
        try await client.refresh(&cache)
        let measurement = try #require(cache.characteristics(withUUID: 0x2A37).first)
        let cccd = try #require(cache.clientCharacteristicConfiguration(of: measurement))
        try await client.setNotifyValue(true, for: measurement, descriptorHandle: cccd.handle)
        #expect(try await client.readDescriptor(handle: cccd.handle) == [0x01, 0x00])
        try await client.setNotifyValue(false, for: measurement, descriptorHandle: cccd.handle)
        #expect(try await client.readDescriptor(handle: cccd.handle) == [0x00, 0x00])
        // The measurement itself is not readable: the server's answer comes through.
        #expect(
            await gattError { try await client.readValue(handle: measurement.valueHandle) }
                == .att(.readNotPermitted, handle: measurement.valueHandle, request: .readRequest))
    }

    @Test("Vol 3 Part G §7.1 after Service Changed only the affected range is rediscovered", arguments: [23, 247])
    func serviceChanged(mtu: Int) async throws {
        let server = FakeGATTServer(mtu: mtu, services: headsetServices())
        let client = GATTClient(bearer: server)
        var cache = GATTDatabaseCache()
        try await client.refresh(&cache)
        #expect(cache.isComplete)
        let before = cache.services

        // The vendor service gains a characteristic: it and the secondary service after it move.
        let vendorStart = try #require(cache.services(withUUID: vendorUUID).first).startHandle
        await server.replace(with: headsetServices(extraVendorCharacteristic: true))
        let indication = try ServiceChanged(value: ServiceChanged(affectedRange: vendorStart...0xFFFF).octets)
        cache.invalidate(range: indication.affectedRange)
        #expect(cache.staleRanges == [vendorStart...0xFFFF])
        #expect(cache.services.count == 4)

        await server.forgetRequests()
        try await client.refresh(&cache)
        #expect(cache.isComplete)
        expectMatches(cache.services, await server.attributes)
        #expect(cache.services.prefix(4) == before.prefix(4))
        #expect(cache.characteristics(withUUID: 0x2A3F).count == 1)
        // Every request stayed inside the affected range.
        for request in await server.requests {
            #expect(firstHandle(of: request).map { $0 >= vendorStart } ?? true, "\(request) left the range")
        }
    }

    @Test("Vol 3 Part G §7.1 a range inside one service rediscovers that service only; its secondary stays cached")
    func serviceChangedOneService() async throws {
        let server = FakeGATTServer(mtu: 23, services: headsetServices())
        let client = GATTClient(bearer: server)
        var cache = GATTDatabaseCache()
        try await client.refresh(&cache)
        let heartRate = try #require(cache.services(withUUID: 0x180D).first)
        var changed = headsetServices()
        changed[2].characteristics[1].properties = [.read, .notify]
        await server.replace(with: changed)

        let widened = cache.invalidate(range: (heartRate.startHandle + 4)...(heartRate.startHandle + 4))
        #expect(widened == heartRate.handleRange)
        #expect(cache.services(withUUID: 0x180F).count == 1)
        await server.forgetRequests()
        try await client.refresh(&cache)
        expectMatches(cache.services, await server.attributes)
        #expect(cache.characteristics(withUUID: 0x2A38).first?.properties == [.read, .notify])
        for request in await server.requests {
            let handle = firstHandle(of: request)
            #expect(handle.map { heartRate.handleRange.contains($0) } ?? true, "\(request) left the range")
        }
    }
}

/// The handle a request starts at, for checking where rediscovery went.
func firstHandle(of request: ATTPDU) -> UInt16? {
    switch request {
    case .readByGroupTypeRequest(let r): r.startingHandle
    case .readByTypeRequest(let r): r.startingHandle
    case .findInformationRequest(let r): r.startingHandle
    case .findByTypeValueRequest(let r): r.startingHandle
    case .readRequest(let r): r.handle
    default: nil
    }
}

extension FakeGATTServer {
    func setInvalidOffsetAtEnd(_ value: Bool) { invalidOffsetAtEnd = value }
}
