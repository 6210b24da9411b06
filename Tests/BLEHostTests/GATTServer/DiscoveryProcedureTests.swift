import BLEWire
import Testing

@testable import BLEHost

@Suite("Range requests (Core 5.4 Vol 3 Part F §3.4.3–§3.4.4; Part G §4.4–§4.7)")
struct DiscoveryProcedureTests {
    @Test("Part F §3.4.3.1 …: a range starting at 0x0000 or ending before it starts is an Invalid Handle")
    func invalidRanges() throws {
        var server = try testServer()
        for (opcode, tail) in [(UInt8(0x04), ""), (0x06, "0028 0D18"), (0x08, "0328"), (0x10, "0028")] {
            let op = Hex.string([opcode])
            #expect(server.exchange("\(op) 0000 FFFF \(tail)") == errorResponse(opcode, 0x0000, .invalidHandle))
            #expect(server.exchange("\(op) 0500 0400 \(tail)") == errorResponse(opcode, 0x0005, .invalidHandle))
        }
    }

    @Test("Part F §3.4.3.1 …: an empty range, or one past the last handle, is Attribute Not Found")
    func notFound() throws {
        var server = try testServer()
        #expect(server.exchange("04 2700 FFFF") == errorResponse(0x04, 0x0027, .attributeNotFound))
        #expect(server.exchange("06 0100 FFFF 0028 0A18") == errorResponse(0x06, 0x0001, .attributeNotFound))
        #expect(server.exchange("08 0100 FFFF 0A18") == errorResponse(0x08, 0x0001, .attributeNotFound))
        #expect(server.exchange("10 0200 0500 0028") == errorResponse(0x10, 0x0002, .attributeNotFound))
    }

    @Test("Part F §3.4.4.9: only «Primary Service» and «Secondary Service» group, others: Unsupported Group Type")
    func unsupportedGroupType() throws {
        var server = try testServer()
        #expect(server.exchange("10 0100 FFFF 0328") == errorResponse(0x10, 0x0001, .unsupportedGroupType))
        #expect(server.exchange("10 0300 FFFF 0D18") == errorResponse(0x10, 0x0003, .unsupportedGroupType))
        // The handle check comes first.
        #expect(server.exchange("10 0000 FFFF 0328") == errorResponse(0x10, 0x0000, .invalidHandle))
    }

    @Test("Part G §4.4.2 Discover Primary Service By UUID: Find By Type Value gives the group's end")
    func primaryServiceByUUID() throws {
        var server = try testServer()
        #expect(server.exchange("06 0100 FFFF 0028 0F18") == hex("07 1600 1A00"))
        #expect(
            server.exchange("06 0100 FFFF 0028 9ECADC240EE5A9E093F3A3B50100406E") == hex("07 1B00 2300"))
        // A range ending inside the service still reports the whole group (§3.4.3.4 note).
        #expect(server.exchange("06 0100 000F 0028 0D18") == hex("07 0E00 1500"))
        // A range starting inside it does not find it.
        #expect(server.exchange("06 0F00 FFFF 0028 0D18") == errorResponse(0x06, 0x000F, .attributeNotFound))
        // The secondary service is not a «Primary Service».
        #expect(
            server.exchange("06 0100 FFFF 0028 9ECADC240EE5A9E093F3A3B51000406E")
                == errorResponse(0x06, 0x0001, .attributeNotFound))
    }

    @Test("Part F §3.4.3.3: Find By Type Value matches values exactly; non-grouping types end where they start")
    func findByTypeValueOtherTypes() throws {
        var server = try testServer()
        // Characteristic declarations group their characteristic (Part G §2.5.3).
        #expect(server.exchange("06 0100 FFFF 0328 12 1800 192A") == hex("07 1700 1A00"))
        #expect(server.exchange("06 0100 FFFF 382A 01") == hex("07 1300 1300"))
        #expect(server.exchange("06 0100 FFFF 382A 0100") == errorResponse(0x06, 0x0001, .attributeNotFound))
        // Values that cannot be read are never matched (Heart Rate Measurement, Service Changed).
        #expect(server.exchange("06 0100 FFFF 052A 00000000") == errorResponse(0x06, 0x0001, .attributeNotFound))
    }

    @Test("Part F §3.4.3.4: Find By Type Value returns as many handle pairs as fit ATT_MTU − 1")
    func findByTypeValueFillsMTU() throws {
        // Seven identical 0x180F services: five pairs fit 23 octets (1 + 5 × 4 = 21).
        let services = (0..<7).map { _ in GATTService(uuid: 0x1234) }
        var server = GATTServer(database: try AttributeDatabase(services: services))
        #expect(
            server.exchange("06 0100 FFFF 0028 3412")
                == hex("07 0E00 0E00 0F00 0F00 1000 1000 1100 1100 1200 1200"))
        #expect(server.exchange("06 1300 FFFF 0028 3412") == hex("07 1300 1300 1400 1400"))
    }

    @Test("Part G §4.4.1 and §4.6.1 over ranges beginning and ending inside services")
    func rangesInsideServices() throws {
        var server = try testServer()
        // Read By Group Type from inside Heart Rate: the next service declaration is Battery's.
        #expect(server.exchange("10 1000 FFFF 0028") == hex("11 06 1600 1A00 0F18"))
        // Read By Group Type ending inside Battery still gives Battery's whole group.
        #expect(server.exchange("10 1500 1700 0028") == hex("11 06 1600 1A00 0F18"))
        // Read By Type of declarations from inside one characteristic to inside the next.
        #expect(server.exchange("08 1000 1300 0328") == hex("09 07 1200 02 1300 382A"))
        #expect(server.exchange("08 0E00 0F00 0328") == hex("09 07 0F00 10 1000 372A"))
        // Find Information over a range that ends inside a characteristic.
        #expect(server.exchange("04 1700 1800") == hex("05 01 1700 0328 1800 192A"))
    }

    @Test("Part F §3.4.4.10: a larger ATT_MTU holds more groups in one response")
    func largerMTU() throws {
        var server = try testServer()
        _ = server.exchange("02 F700")
        #expect(
            server.exchange("10 0100 FFFF 0028")
                == hex("11 06 0100 0500 0018 0600 0D00 0118 0E00 1500 0D18 1600 1A00 0F18"))
    }

    @Test("Part F §3.4.4.1: Read By Type returns the lowest handles, all as long as the first")
    func readByTypeSameLength() throws {
        var server = try testServer()
        // Every Client Characteristic Configuration: three 4-octet pairs.
        #expect(server.exchange("08 0100 FFFF 0229") == hex("09 04 0900 0000 1100 0000 1900 0000"))
        // Part G §4.8.2 Read Using Characteristic UUID.
        #expect(server.exchange("08 0100 FFFF 192A") == hex("09 03 1800 64"))
    }

    @Test("Part F §3.4.4.2: Read By Type fits ATT_MTU − 2 octets of pairs, then the next request continues")
    func readByTypeFillsMTU() throws {
        let characteristics = (0..<10).map { index in
            GATTCharacteristic(uuid: 0x2A19, properties: .read, permissions: .readable, value: .stored([UInt8(index)]))
        }
        var server = GATTServer(
            database: try AttributeDatabase(services: [GATTService(uuid: 0x180F, characteristics: characteristics)]))
        // Values at 0x0010, 0x0012, …: seven 3-octet pairs fit 21 octets.
        #expect(
            server.exchange("08 0100 FFFF 192A")
                == hex("09 03 1000 00 1200 01 1400 02 1600 03 1800 04 1A00 05 1C00 06"))
        #expect(server.exchange("08 1D00 FFFF 192A") == hex("09 03 1E00 07 2000 08 2200 09"))
    }

    @Test("Part F §3.4.4.2: a long value is cut to ATT_MTU − 4 octets in Read By Type")
    func readByTypeCutsLongValues() throws {
        var server = try testServer()
        #expect(
            server.exchange("08 0100 FFFF 9ECADC240EE5A9E093F3A3B50200406E")
                == hex("09 15 1F00") + longValue.prefix(19))
        _ = server.exchange("02 0001")
        // At ATT_MTU 247 (the server's, below the client's 256) all 100 octets fit.
        #expect(
            server.exchange("08 0100 FFFF 9ECADC240EE5A9E093F3A3B50200406E") == hex("09 66 1F00") + longValue)
    }

    @Test("Part F §3.4.4.1: an attribute that cannot be read is the error when first, ends the list otherwise")
    func readByTypeStopsAtUnreadable() throws {
        let characteristics = [
            GATTCharacteristic(uuid: 0x2A19, properties: .read, permissions: .readable, value: .stored([1])),
            GATTCharacteristic(uuid: 0x2A19, properties: .read, permissions: [], value: .stored([2])),
            GATTCharacteristic(uuid: 0x2A19, properties: .read, permissions: .readable, value: .stored([3])),
        ]
        var server = GATTServer(
            database: try AttributeDatabase(services: [GATTService(uuid: 0x180F, characteristics: characteristics)]))
        #expect(server.exchange("08 0100 FFFF 192A") == hex("09 03 1000 01"))
        #expect(server.exchange("08 1100 FFFF 192A") == errorResponse(0x08, 0x0012, .readNotPermitted))
        #expect(server.exchange("08 1300 FFFF 192A") == hex("09 03 1400 03"))
    }

    @Test("Part F §3.4.4.1: a dynamic value is asked for when first and alone; later it ends the list")
    func readByTypeDynamic() throws {
        let characteristics = [
            GATTCharacteristic(uuid: 0x2A19, properties: .read, permissions: .readable, value: .stored([1])),
            GATTCharacteristic(uuid: 0x2A19, properties: .read, permissions: .readable, value: .dynamic),
        ]
        var server = GATTServer(
            database: try AttributeDatabase(services: [GATTService(uuid: 0x180F, characteristics: characteristics)]))
        #expect(server.exchange("08 0100 FFFF 192A") == hex("09 03 1000 01"))
        let outcome = server.handle(bytes: hex("08 1100 FFFF 192A"), connection: client1)
        let request = try #require(outcome.readRequest)
        #expect(request.attribute.handle == 0x0012 && request.offset == 0)
        #expect(request.attribute.serviceUUID == 0x180F && request.attribute.characteristicUUID == 0x2A19)
        #expect(server.complete(request, with: .value([7, 8])).response?.encoded == hex("09 04 1200 0708"))
        // A second answer to the same request is stale.
        #expect(server.complete(request, with: .value([7, 8])) == .none)
        let again = try #require(server.handle(bytes: hex("08 1100 FFFF 192A"), connection: client1).readRequest)
        #expect(
            server.complete(again, with: .error(.insufficientAuthorization)).response?.encoded
                == errorResponse(0x08, 0x0012, .insufficientAuthorization))
    }
}
