import BLEWire
import Testing

@testable import BLEHost

@Suite("Attribute database layout (Core 5.4 Vol 3 Part G §3, as a client discovers it)")
struct AttributeDatabaseLayoutTests {
    @Test("Part G §4.4.1 Discover All Primary Services: Read By Group Type walks the services, 3 per 23-octet PDU")
    func primaryServices() throws {
        var server = try testServer()
        #expect(
            server.exchange("10 0100 FFFF 0028")
                == hex("11 06  0100 0500 0018  0600 0D00 0118  0E00 1500 0D18"))
        #expect(server.exchange("10 1600 FFFF 0028") == hex("11 06  1600 1A00 0F18"))
        #expect(
            server.exchange("10 1B00 FFFF 0028")
                == hex("11 14  1B00 2300  9ECADC240EE5A9E093F3A3B50100406E"))
        #expect(server.exchange("10 2400 FFFF 0028") == errorResponse(0x10, 0x0024, .attributeNotFound))
    }

    @Test("Part G §3.1: a secondary service is a «Secondary Service» group, not a primary one")
    func secondaryService() throws {
        var server = try testServer()
        #expect(
            server.exchange("10 0100 FFFF 0128")
                == hex("11 14  2400 2600  9ECADC240EE5A9E093F3A3B51000406E"))
    }

    @Test("Part G §4.6.1 Discover All Characteristics: declarations hold properties, value handle, UUID")
    func characteristicDeclarations() throws {
        var server = try testServer()
        #expect(
            server.exchange("08 0100 0500 0328") == hex("09 07  0200 02 0300 002A  0400 02 0500 012A"))
        #expect(
            server.exchange("08 0600 0D00 0328")
                == hex("09 07  0700 20 0800 052A  0A00 0A 0B00 292B  0C00 02 0D00 2A2B"))
        // Three 7-octet entries fill ATT_MTU − 2 = 21 octets exactly.
        #expect(
            server.exchange("08 0E00 1500 0328")
                == hex("09 07  0F00 10 1000 372A  1200 02 1300 382A  1400 08 1500 392A"))
        #expect(server.exchange("08 1600 1A00 0328") == hex("09 07  1700 12 1800 192A"))
        // A 128-bit declaration (21 octets) fills a 23-octet PDU alone; the 0x80 bit is set.
        #expect(
            server.exchange("08 1B00 2300 0328")
                == hex("09 15  1E00 8A 1F00 9ECADC240EE5A9E093F3A3B50200406E"))
        #expect(
            server.exchange("08 1F00 2300 0328")
                == hex("09 15  2200 44 2300 9ECADC240EE5A9E093F3A3B50300406E"))
        #expect(server.exchange("08 2400 2600 0328") == hex("09 07  2500 02 2600 2B2A"))
    }

    @Test("Part G §3.2 include declarations: handle, end group handle, UUID only when 16-bit")
    func includes() throws {
        var server = try testServer()
        // The second include has no UUID (128-bit service): a different length ends the list.
        #expect(server.exchange("08 1B00 2300 0228") == hex("09 08  1C00 1600 1A00 0F18"))
        #expect(server.exchange("08 1D00 2300 0228") == hex("09 06  1D00 2400 2600"))
    }

    @Test("Part G §4.7.1 Discover All Descriptors: Find Information, split where the UUID width changes")
    func descriptors() throws {
        var server = try testServer()
        #expect(
            server.exchange("04 0E00 1500")
                == hex("05 01  0E00 0028  0F00 0328  1000 372A  1100 0229  1200 0328"))
        #expect(server.exchange("04 1300 1500") == hex("05 01  1300 382A  1400 0328  1500 392A"))
        #expect(server.exchange("04 1B00 FFFF") == hex("05 01  1B00 0028  1C00 0228  1D00 0228  1E00 0328"))
        #expect(server.exchange("04 1F00 FFFF") == hex("05 02  1F00 9ECADC240EE5A9E093F3A3B50200406E"))
        #expect(server.exchange("04 2000 2100") == hex("05 01  2000 0029  2100 0129"))
    }

    @Test("Descriptor values: Presentation Format, Extended Properties, User Description")
    func descriptorValues() throws {
        var server = try testServer()
        #expect(server.exchange("0A 1A00") == hex("0B 04 00 AD27 01 0000"))
        #expect(server.exchange("0A 2000") == hex("0B 0300"))
        #expect(server.exchange("0A 2100") == [0x0B] + Array("Long value".utf8))
        #expect(server.exchange("0A 0300") == [0x0B] + Array("swift-ble test".utf8))
        #expect(server.exchange("0A 0500") == hex("0B 4003"))
    }

    @Test("The handles each service received are reported, as Core Bluetooth keeps them in its objects")
    func serviceHandles() throws {
        let database = try testDatabase()
        #expect(database.services.map(\.range) == [1...5, 6...13, 14...21, 22...26, 27...35, 36...38])
        let heartRate = database.services[2]
        #expect(heartRate.characteristics.map(\.valueHandle) == [0x10, 0x13, 0x15])
        #expect(heartRate.characteristics[0].clientConfigurationHandle == 0x11)
        let custom = database.services[4]
        #expect(custom.characteristics[0].extendedPropertiesHandle == 0x20)
        #expect(custom.characteristics[0].descriptorHandles == [0x21])
        #expect(database.serviceChangedHandle == 0x08 && database.serviceChangedConfigurationHandle == 0x09)
        #expect(database.clientSupportedFeaturesHandle == 0x0B && database.databaseHashHandle == 0x0D)
        #expect(database.valueHandle(ofCharacteristic: 0x2A19, inService: 0x180F) == 0x18)
        #expect(database.service(containing: 0x20)?.uuid == customServiceUUID)
        #expect(database.service(containing: 0x27) == nil)
        #expect(database.attributes(in: 0x0E...0x11).map(\.handle) == [0x0E, 0x0F, 0x10, 0x11])
    }

    @Test("Definitions the database refuses: generated descriptors, values over 512 octets, unknown includes")
    func invalidDefinitions() {
        func build(_ service: GATTService) -> AttributeDatabaseError? {
            do {
                _ = try AttributeDatabase(services: [service])
                return nil
            } catch { return error }
        }
        let cccd = GATTDescriptor(uuid: 0x2902, value: .stored([0, 0]))
        #expect(
            build(
                GATTService(
                    uuid: 0x180F,
                    characteristics: [
                        GATTCharacteristic(uuid: 0x2A19, properties: .notify, permissions: [], descriptors: [cccd])
                    ])) == .generatedDescriptorSupplied(0x2902))
        let long = [UInt8](repeating: 0, count: 513)
        #expect(
            build(
                GATTService(
                    uuid: 0x180F,
                    characteristics: [
                        GATTCharacteristic(
                            uuid: 0x2A19, properties: .read, permissions: .readable, value: .stored(long))
                    ])) == .valueTooLong(0x2A19, length: 513))
        #expect(
            build(GATTService(uuid: 0x1808, includedServices: [GATTService(uuid: 0x180A)]))
                == .includedServiceNotFound(0x180A))
    }
}
