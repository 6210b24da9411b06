import BLEWire
import Testing

@testable import BLEHost

@Suite("Database Hash and run-time changes (Core 5.4 Vol 3 Part G §7.3, §7.1)")
struct DatabaseHashTests {
    /// The database of Part G Appendix B (GAP, GATT, Glucose including a secondary Battery
    /// service): its hash input and result. The message and the expected hash
    /// F1CA2D48ECF58BAC8A8830BBB9FBA990 are the Appendix's, as BTstack's database-hash test
    /// script reproduces them.
    static func appendixB() throws -> AttributeDatabase {
        let battery = GATTService(
            uuid: 0x180F, isPrimary: false,
            characteristics: [
                GATTCharacteristic(uuid: 0x2A19, properties: .read, permissions: .readable, value: .stored([50]))
            ])
        let glucose = GATTService(
            uuid: 0x1808, includedServices: [battery],
            characteristics: [
                GATTCharacteristic(
                    uuid: 0x2A18, properties: [.read, .indicate, .extendedProperties], permissions: .readable,
                    value: .stored([0]))
            ])
        return try AttributeDatabase(
            gap: GAPServiceConfiguration(deviceName: "Appendix B", deviceNameWritable: true),
            services: [glucose, battery])
    }

    static let appendixBMessage = hex(
        """
        010000280018 020003280a0300002a 04000328020500012a 060000280118 07000328200800052a 09000229
        0a0003280a0b00292b 0c000328020d002a2b 0e0000280818 0f000228140016000f18 10000328a21100182a
        12000229 1300002900 00 140001280f18 1500032802160019 2a
        """)

    @Test("Part G Appendix B: the hash input concatenates handle, type and value as §7.3.1 says")
    func appendixBMessageMatches() throws {
        let database = try Self.appendixB()
        #expect(DatabaseHash.message(over: database.attributes) == Self.appendixBMessage)
    }

    @Test("Part G Appendix B: the hash is F1CA2D48ECF58BAC8A8830BBB9FBA990, read least significant octet first")
    func appendixBHash() throws {
        let database = try Self.appendixB()
        let expected = hex("F1CA2D48ECF58BAC8A8830BBB9FBA990")
        #expect(SecurityFunctions.aesCMAC(key: [UInt8](repeating: 0, count: 16), Self.appendixBMessage) == expected)
        #expect(database.hash == expected.reversed())
        // Part G §7.3: read with Read Using Characteristic UUID over the whole range.
        var server = GATTServer(database: database)
        #expect(server.exchange("08 0100 FFFF 2A2B") == hex("09 12 0D00") + expected.reversed())
    }

    @Test("RFC 4493 §4 example 2 checks the AES-CMAC the hash uses")
    func rfc4493() {
        let key = hex("2b7e151628aed2a6abf7158809cf4f3c")
        #expect(
            SecurityFunctions.aesCMAC(key: key, hex("6bc1bee22e409f96e93d7e117393172a"))
                == hex("070a16b46b4d4144f79bdd9dd04a287c"))
    }

    @Test("Part G §7.3: the hash changes when a service is added or removed, and comes back after")
    func hashFollowsChanges() throws {
        var database = try testDatabase()
        let before = database.hash
        let added = try database.add(GATTService(uuid: 0x180A))
        #expect(database.hash != before)
        try database.removeService(at: added.range.lowerBound)
        #expect(database.hash == before)
    }

    @Test("Run-time add keeps every handle and takes the range after the last one")
    func addKeepsHandles() throws {
        var database = try testDatabase()
        let attributesBefore = database.attributes
        let added = try database.add(
            GATTService(
                uuid: 0x180A,
                characteristics: [
                    GATTCharacteristic(uuid: 0x2A29, properties: .read, permissions: .readable, value: .stored([0x41]))
                ]))
        #expect(added.range == 0x0027...0x0029)
        let unchanged = { (attribute: ServerAttribute) in attribute.handle != database.databaseHashHandle }
        #expect(
            Array(database.attributes.prefix(attributesBefore.count)).filter(unchanged)
                == attributesBefore.filter(unchanged))
        #expect(database.attribute(at: 0x0028)?.storage == .value(hex("02 2900 292A")))
    }

    @Test("Run-time remove leaves a gap that later additions fill only when nothing fits after the end")
    func removeLeavesGap() throws {
        var database = try testDatabase()
        let removed = try database.removeService(at: 0x000E)
        #expect(removed == 0x000E...0x0015)
        #expect(database.attribute(at: 0x000E) == nil && database.attribute(at: 0x0016) != nil)
        // The next service goes after the end while room remains.
        let next = try database.add(GATTService(uuid: 0x180A))
        #expect(next.range == 0x0027...0x0027)
        // Fill up to 0xFFFF (0x0028…0xFFFF is 65 496 handles), then the gap is used.
        let plain = GATTCharacteristic(uuid: 0x2A00, properties: .read, permissions: .readable, value: .stored([]))
        let notifying = GATTCharacteristic(uuid: 0x2A01, properties: .notify, permissions: [], value: .stored([]))
        let filler = GATTService(uuid: 0x1234, characteristics: Array(repeating: plain, count: 32_746) + [notifying])
        let big = try database.add(filler)
        #expect(big.range == 0x0028...0xFFFF)
        let inGap = try database.add(GATTService(uuid: 0x1811))
        #expect(inGap.range == 0x000E...0x000E)
        // Seven handles remain free (0x000F…0x0015): nine do not fit anywhere, seven do.
        #expect(throws: AttributeDatabaseError.databaseFull(needed: 9)) {
            try database.add(GATTService(uuid: 0x1812, characteristics: [plain, plain, plain, plain]))
        }
        let fits = try database.add(GATTService(uuid: 0x1813, characteristics: [plain, plain, plain]))
        #expect(fits.range == 0x000F...0x0015)
        #expect(database.services.map(\.range.lowerBound) == [1, 6, 0x0E, 0x0F, 0x16, 0x1B, 0x24, 0x27, 0x28])
        try database.removeService(at: big.range.lowerBound)
        #expect(database.lastHandle == 0x0027)
    }

    @Test("Services still included, and the GAP and GATT services, cannot be removed")
    func removalRules() throws {
        var database = try testDatabase()
        #expect(throws: AttributeDatabaseError.serviceIsIncluded(byServiceAt: 0x001B)) {
            try database.removeService(at: 0x0024)
        }
        #expect(throws: AttributeDatabaseError.mandatoryService(0x1800)) { try database.removeService(at: 0x0001) }
        #expect(throws: AttributeDatabaseError.mandatoryService(0x1801)) { try database.removeService(at: 0x0006) }
        #expect(throws: AttributeDatabaseError.serviceNotFound(handle: 0x0002)) {
            try database.removeService(at: 0x0002)
        }
        // Removing the including service first frees the included one.
        try database.removeService(at: 0x001B)
        try database.removeService(at: 0x0024)
    }

    @Test("A run-time service may include a service already in the database")
    func addWithInclude() throws {
        var database = try testDatabase()
        let added = try database.add(GATTService(uuid: 0x1808, includedServices: [batteryService]))
        #expect(database.attribute(at: added.range.lowerBound + 1)?.storage == .value(hex("1600 1A00 0F18")))
    }
}
