import BLEWire
import Testing

@testable import BLEHost

@Suite("GATT client: characteristic and descriptor discovery")
struct CharacteristicDiscoveryTests {
    let heartRate = DiscoveredService(uuid: 0x180D, handleRange: 0x0010...0x001F)

    @Test(
        "Vol 3 Part G §4.6.1 Discover All Characteristics reads until Attribute Not Found; each ends before the next"
    )
    func discoverAll() async throws {
        let bearer = ScriptedBearer([
            .exchange(
                PDUs.readByType(0x0010, 0x001F, 0x2803),
                PDUs.declarations([(0x0011, [.notify], 0x0012, 0x2A37), (0x0014, [.read], 0x0015, 0x2A38)])),
            .exchange(PDUs.readByType(0x0015, 0x001F, 0x2803), PDUs.declarations([(0x0016, [.write], 0x0017, 0x2A39)])),
            .error(PDUs.readByType(0x0017, 0x001F, 0x2803), .attributeNotFound, handle: 0x0017),
        ])
        let found = try await GATTClient(bearer: bearer).discoverCharacteristics(for: heartRate)
        #expect(found.map(\.uuid) == [0x2A37, 0x2A38, 0x2A39])
        #expect(found.map(\.declarationHandle) == [0x0011, 0x0014, 0x0016])
        #expect(found.map(\.valueHandle) == [0x0012, 0x0015, 0x0017])
        // Ends: the handle before the next declaration; the last one ends with the service.
        #expect(found.map(\.endHandle) == [0x0013, 0x0015, 0x001F])
        #expect(found.map(\.properties) == [[.notify], [.read], [.write]])
        #expect(found[0].descriptorRange == 0x0013...0x0013)
        #expect(found[1].descriptorRange == nil)
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.6.1 128-bit characteristic UUIDs arrive in entries of 21 octets")
    func discoverAll128Bit() async throws {
        let service = DiscoveredService(uuid: vendorUUID, handleRange: 0x0020...0x0024)
        let bearer = ScriptedBearer([
            .exchange(
                PDUs.readByType(0x0020, 0x0024, 0x2803),
                attPDU("09 15 2100 0c 2200 \(hexATT(vendorUUID2))")),
            .error(PDUs.readByType(0x0022, 0x0024, 0x2803), .attributeNotFound, handle: 0x0022),
        ])
        let found = try await GATTClient(bearer: bearer).discoverCharacteristics(for: service)
        #expect(found.count == 1)
        #expect(found.first?.uuid == vendorUUID2)
        #expect(found.first?.properties == [.write, .writeWithoutResponse])
        #expect(found.first?.endHandle == 0x0024)
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.6.1 a service without characteristics answers Attribute Not Found at once")
    func discoverAllEmpty() async throws {
        let bearer = ScriptedBearer([
            .error(PDUs.readByType(0x0010, 0x001F, 0x2803), .attributeNotFound, handle: 0x0010)
        ])
        #expect(try await GATTClient(bearer: bearer).discoverCharacteristics(for: heartRate).isEmpty)
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.6.1 a Read By Type Response whose length fits no characteristic declaration is invalid")
    func declarationLengthMismatch() async {
        // Length 9: properties, value handle and a 6-octet "UUID".
        let bearer = ScriptedBearer([
            .exchange(PDUs.readByType(0x0010, 0x001F, 0x2803), attPDU("09 09 1100 02 1200 371a0000"))
        ])
        let error = await gattError { try await GATTClient(bearer: bearer).discoverCharacteristics(for: heartRate) }
        #expect(error?.isInvalidResponse == true)
        await bearer.finish()
    }

    @Test(
        "Vol 3 Part G §3.3 a value handle not after its declaration and before the next is invalid",
        arguments: [UInt16(0x0011), 0x0014, 0x0030])
    func valueHandleOutOfPlace(valueHandle: UInt16) async {
        let bearer = ScriptedBearer([
            .exchange(
                PDUs.readByType(0x0010, 0x001F, 0x2803),
                PDUs.declarations([(0x0011, [.read], valueHandle, 0x2A37), (0x0014, [.read], 0x0015, 0x2A38)])),
            .error(PDUs.readByType(0x0015, 0x001F, 0x2803), .attributeNotFound, handle: 0x0015),
        ])
        let error = await gattError { try await GATTClient(bearer: bearer).discoverCharacteristics(for: heartRate) }
        #expect(error?.isInvalidResponse == true)
        await bearer.finish()
    }

    @Test(
        "Vol 3 Part G §4.6.2 Discover Characteristics by UUID filters; any next declaration ends a match")
    func discoverByUUID() async throws {
        let bearer = ScriptedBearer([
            .exchange(
                PDUs.readByType(0x0010, 0x001F, 0x2803),
                PDUs.declarations([
                    (0x0011, [.notify], 0x0012, 0x2A37), (0x0014, [.read], 0x0015, 0x2A38),
                    (0x0016, [.notify], 0x0017, 0x2A37),
                ])),
            .error(PDUs.readByType(0x0017, 0x001F, 0x2803), .attributeNotFound, handle: 0x0017),
        ])
        let found = try await GATTClient(bearer: bearer).discoverCharacteristics(withUUID: 0x2A37, for: heartRate)
        #expect(found.map(\.declarationHandle) == [0x0011, 0x0016])
        #expect(found.map(\.endHandle) == [0x0013, 0x001F])
        await bearer.finish()
    }

    func characteristic(value: UInt16, end: UInt16) -> DiscoveredCharacteristic {
        DiscoveredCharacteristic(
            uuid: 0x2A37, declarationHandle: value - 1, valueHandle: value, properties: [.notify], endHandle: end)!
    }

    @Test(
        "Vol 3 Part G §4.7.1 Find Information from value + 1 until Attribute Not Found"
    )
    func descriptorsUntilNotFound() async throws {
        let bearer = ScriptedBearer([
            .exchange(PDUs.findInformation(0x0013, 0x0018), PDUs.information([(0x0013, 0x2902), (0x0014, 0x2901)])),
            .exchange(PDUs.findInformation(0x0015, 0x0018), PDUs.information([(0x0015, vendorUUID)])),
            .error(PDUs.findInformation(0x0016, 0x0018), .attributeNotFound, handle: 0x0016),
        ])
        let found = try await GATTClient(bearer: bearer).discoverDescriptors(
            for: characteristic(value: 0x0012, end: 0x0018))
        #expect(
            found == [
                DiscoveredDescriptor(uuid: 0x2902, handle: 0x0013), DiscoveredDescriptor(uuid: 0x2901, handle: 0x0014),
                DiscoveredDescriptor(uuid: vendorUUID, handle: 0x0015),
            ])
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.7.1 descriptor discovery ends at the characteristic's last handle without another request")
    func descriptorsEndAtLastHandle() async throws {
        let bearer = ScriptedBearer([
            .exchange(PDUs.findInformation(0x0013, 0x0014), PDUs.information([(0x0013, 0x2902), (0x0014, 0x2901)]))
        ])
        let found = try await GATTClient(bearer: bearer).discoverDescriptors(
            for: characteristic(value: 0x0012, end: 0x0014))
        #expect(found.map(\.handle) == [0x0013, 0x0014])
        await bearer.finish()

        // A characteristic ending at 0xFFFF: the walk ends without wrapping past the last handle.
        let last = ScriptedBearer([
            .exchange(PDUs.findInformation(0xFFFF, 0xFFFF), PDUs.information([(0xFFFF, 0x2902)]))
        ])
        let lastFound = try await GATTClient(bearer: last).discoverDescriptors(
            for: characteristic(value: 0xFFFE, end: 0xFFFF))
        #expect(lastFound.map(\.handle) == [0xFFFF])
        await last.finish()
    }

    @Test("Vol 3 Part G §4.7.1 no request when the value handle is the characteristic's last handle")
    func noDescriptorRoom() async throws {
        let bearer = ScriptedBearer([])
        let found = try await GATTClient(bearer: bearer).discoverDescriptors(
            for: characteristic(value: 0x0012, end: 0x0012))
        #expect(found.isEmpty)
        await bearer.finish()
    }
}
