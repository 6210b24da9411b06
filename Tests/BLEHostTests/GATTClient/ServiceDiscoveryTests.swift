import BLEWire
import Testing

@testable import BLEHost

@Suite("GATT client: primary service and relationship discovery")
struct ServiceDiscoveryTests {
    @Test(
        "Vol 3 Part G §4.4.1 Discover All Primary Services goes on after each group until Attribute Not Found"
    )
    func discoverAllUntilNotFound() async throws {
        let bearer = ScriptedBearer([
            .exchange(PDUs.groupType(0x0001), PDUs.services([(0x0001, 0x0005, 0x1800), (0x0006, 0x0009, 0x1801)])),
            .exchange(PDUs.groupType(0x000A), PDUs.services([(0x000A, 0x0020, 0x180D)])),
            .error(PDUs.groupType(0x0021), .attributeNotFound, handle: 0x0021),
        ])
        let services = try await GATTClient(bearer: bearer).discoverPrimaryServices()
        #expect(
            services == [
                DiscoveredService(uuid: 0x1800, handleRange: 0x0001...0x0005),
                DiscoveredService(uuid: 0x1801, handleRange: 0x0006...0x0009),
                DiscoveredService(uuid: 0x180D, handleRange: 0x000A...0x0020),
            ])
        #expect(services.allSatisfy { $0.isPrimary })
        await bearer.finish()
    }

    @Test(
        "Vol 3 Part G §4.4.1 Discover All Primary Services ends with no further request when a service ends at 0xFFFF")
    func discoverAllEndsAtLastHandle() async throws {
        let bearer = ScriptedBearer([
            .exchange(PDUs.groupType(0x0001), PDUs.services([(0x0001, 0x0007, 0x1800)])),
            .exchange(PDUs.groupType(0x0008), PDUs.services([(0x0010, 0xFFFF, vendorUUID)])),
        ])
        let services = try await GATTClient(bearer: bearer).discoverPrimaryServices()
        #expect(services.map(\.uuid) == [0x1800, vendorUUID])
        #expect(services.last?.handleRange == 0x0010...0xFFFF)
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.4.1 128-bit service UUIDs arrive in entries of 20 octets")
    func discoverAll128Bit() async throws {
        // Length 0x14: handle, end group handle, 16-octet UUID.
        let response = attPDU("11 14 1000 1f00 \(hexATT(vendorUUID)) 2000 2f00 \(hexATT(vendorUUID2))")
        let bearer = ScriptedBearer([
            .exchange(PDUs.groupType(0x0001), response),
            .error(PDUs.groupType(0x0030), .attributeNotFound, handle: 0x0030),
        ])
        let services = try await GATTClient(bearer: bearer).discoverPrimaryServices()
        #expect(services.map(\.uuid) == [vendorUUID, vendorUUID2])
        #expect(services.map(\.handleRange) == [0x0010...0x001F, 0x0020...0x002F])
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.4.1 Attribute Not Found at the first request means no primary services")
    func discoverAllEmpty() async throws {
        let bearer = ScriptedBearer([.error(PDUs.groupType(0x0001), .attributeNotFound, handle: 0x0001)])
        #expect(try await GATTClient(bearer: bearer).discoverPrimaryServices().isEmpty)
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.4.1 over a range stops when a service reaches the range's end")
    func discoverInRange() async throws {
        let bearer = ScriptedBearer([
            .exchange(PDUs.groupType(0x0010, 0x0030), PDUs.services([(0x0010, 0x0030, 0x180F)]))
        ])
        let services = try await GATTClient(bearer: bearer).discoverPrimaryServices(in: 0x0010...0x0030)
        #expect(services == [DiscoveredService(uuid: 0x180F, handleRange: 0x0010...0x0030)])
        await bearer.finish()
        // A range holding only the reserved handle 0x0000 sends nothing.
        let silent = ScriptedBearer([])
        #expect(try await GATTClient(bearer: silent).discoverPrimaryServices(in: 0x0000...0x0000).isEmpty)
        await silent.finish()
    }

    @Test("Vol 3 Part G §4.4.1 an Error Response other than Attribute Not Found is the procedure's error")
    func discoverAllError() async {
        let bearer = ScriptedBearer([.error(PDUs.groupType(0x0001), .insufficientAuthentication, handle: 0x0001)])
        let error = await gattError { try await GATTClient(bearer: bearer).discoverPrimaryServices() }
        #expect(error == .att(.insufficientAuthentication, handle: 0x0001, request: .readByGroupTypeRequest))
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.4.1 a Read By Group Type Response length that is not a service UUID is invalid")
    func discoverAllBadLength() async {
        // Length 8: a 4-octet value is no service UUID.
        let bearer = ScriptedBearer([.exchange(PDUs.groupType(0x0001), attPDU("11 08 0100 0500 00180000"))])
        let error = await gattError { try await GATTClient(bearer: bearer).discoverPrimaryServices() }
        guard case .invalidResponse = error else {
            Issue.record("expected invalidResponse, got \(String(describing: error))")
            return
        }
        await bearer.finish()
    }

    @Test(
        "Vol 3 Part G §4.4.2 Discover Primary Service by Service UUID: Find By Type Value after each group"
    )
    func discoverByUUID() async throws {
        func find(_ start: UInt16, _ uuid: BluetoothUUID) -> ATTPDU {
            ATT.FindByTypeValueRequest(
                startingHandle: start, endingHandle: 0xFFFF, attributeType: 0x2800,
                value: FakeGATTServer.octets(uuid)[...]
            ).pdu
        }
        let bearer = ScriptedBearer([
            // The value is the UUID as ATT sends it: 2 octets for 0x180F.
            .exchange(attPDU("06 0100 ffff 0028 0f18"), attPDU("07 0500 0800 1000 1200")),
            .exchange(find(0x0013, 0x180F), attPDU("07 3000 ffff")),
        ])
        let client = GATTClient(bearer: bearer)
        let services = try await client.discoverPrimaryServices(withUUID: 0x180F)
        #expect(services.map(\.handleRange) == [0x0005...0x0008, 0x0010...0x0012, 0x0030...0xFFFF])
        #expect(services.allSatisfy { $0.uuid == 0x180F && $0.isPrimary })
        await bearer.finish()

        let long = ScriptedBearer([
            .exchange(find(0x0001, vendorUUID), attPDU("07 2000 2f00")),
            .error(find(0x0030, vendorUUID), .attributeNotFound, handle: 0x0030),
        ])
        let found = try await GATTClient(bearer: long).discoverPrimaryServices(withUUID: vendorUUID)
        #expect(found == [DiscoveredService(uuid: vendorUUID, handleRange: 0x0020...0x002F)])
        await long.finish()
    }

    @Test(
        "Vol 3 Part G §4.5.1 Find Included Services reads 128-bit UUIDs from the included declaration"
    )
    func findIncludedServices() async throws {
        let service = DiscoveredService(uuid: 0x180D, handleRange: 0x0010...0x0020)
        let bearer = ScriptedBearer([
            // Length 8: include handle, included service range, 16-bit UUID.
            .exchange(PDUs.readByType(0x0010, 0x0020, 0x2802), attPDU("09 08 1100 3000 3400 0f18")),
            // Length 6: no UUID — it is 128-bit and read from the included service's declaration.
            .exchange(PDUs.readByType(0x0012, 0x0020, 0x2802), attPDU("09 06 1200 4000 4500")),
            .exchange(PDUs.read(0x0040), PDUs.readResponse(FakeGATTServer.octets(vendorUUID))),
            .error(PDUs.readByType(0x0013, 0x0020, 0x2802), .attributeNotFound, handle: 0x0013),
        ])
        let includes = try await GATTClient(bearer: bearer).discoverIncludedServices(for: service)
        #expect(
            includes == [
                DiscoveredIncludedService(handle: 0x0011, includedServiceRange: 0x0030...0x0034, uuid: 0x180F),
                DiscoveredIncludedService(handle: 0x0012, includedServiceRange: 0x0040...0x0045, uuid: vendorUUID),
            ])
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.5.1 Find Included Services ends at the service's last handle without another request")
    func findIncludedServicesEndsAtServiceEnd() async throws {
        let service = DiscoveredService(uuid: 0x180D, handleRange: 0x0010...0x0011)
        let bearer = ScriptedBearer([
            .exchange(PDUs.readByType(0x0010, 0x0011, 0x2802), attPDU("09 08 1100 3000 3400 0f18"))
        ])
        let includes = try await GATTClient(bearer: bearer).discoverIncludedServices(for: service)
        #expect(includes.map(\.handle) == [0x0011])
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.5.1 an included service declaration that is not a 128-bit UUID is invalid")
    func includedDeclarationNot128Bit() async {
        let service = DiscoveredService(uuid: 0x180D, handleRange: 0x0010...0x0020)
        let bearer = ScriptedBearer([
            .exchange(PDUs.readByType(0x0010, 0x0020, 0x2802), attPDU("09 06 1200 4000 4500")),
            .exchange(PDUs.read(0x0040), PDUs.readResponse([0x0F, 0x18])),
        ])
        let error = await gattError { try await GATTClient(bearer: bearer).discoverIncludedServices(for: service) }
        #expect(error?.isInvalidResponse == true)
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.5.1 an include whose end handle is before its start, or of the wrong length, is invalid")
    func includeMalformed() async {
        let service = DiscoveredService(uuid: 0x180D, handleRange: 0x0010...0x0020)
        for response in [attPDU("09 08 1100 3400 3000 0f18"), attPDU("09 07 1100 3000 3400 0f")] {
            let bearer = ScriptedBearer([.exchange(PDUs.readByType(0x0010, 0x0020, 0x2802), response)])
            let error = await gattError { try await GATTClient(bearer: bearer).discoverIncludedServices(for: service) }
            #expect(error?.isInvalidResponse == true)
            await bearer.finish()
        }
    }
}

extension GATTError {
    var isInvalidResponse: Bool {
        if case .invalidResponse = self { return true }
        return false
    }
}
