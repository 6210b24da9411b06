import BLEWire
import Testing

@Suite("AD typed values (CSS Part A §1)")
struct ADValueTests {
    static let nus = BluetoothUUID(high: 0x6E40_0001_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E)

    /// One value of every typed case.
    static let samples: [ADValue] = [
        .flags([.leLimitedDiscoverable, .brEdrNotSupported]),
        .serviceUUIDs(complete: false, [0x180D, 0x180F]),
        .serviceUUIDs(complete: true, [BluetoothUUID(uuid32: 0x1234_5678)]),
        .serviceUUIDs(complete: true, [nus]),
        .solicitedServiceUUIDs([0x1812]),
        .solicitedServiceUUIDs([nus]),
        .localName(complete: true, "Thermo"),
        .localName(complete: false, "Cafè"),
        .txPowerLevel(-20),
        .appearance(ADAppearance(category: 3, subcategory: 1)),
        .manufacturerData(companyID: 0x0059, data: [0x01, 0x02]),
        .serviceData(0xFEAA, data: [0x10, 0x00]),
        .serviceData(BluetoothUUID(uuid32: 0xABCD_0001), data: [0x7F]),
        .serviceData(nus, data: []),
        .advertisingInterval(units: 0x0800),
        .advertisingInterval(units: 0x01_0000),
        .advertisingInterval(units: 0x0100_0000),
        .leRole(.bothCentralPreferred),
        .leRole(.reserved(0x42)),
        .uri("https://www.bluetooth.com"),
        .uri("custom:thing"),
        .publicTargetAddresses([BluetoothAddress(0x0011_2233_4455), BluetoothAddress(0xA1B2_C3D4_E5F6)]),
        .randomTargetAddresses([BluetoothAddress(0xC000_0000_0001)]),
        .peripheralConnectionIntervalRange(min: 0x0006, max: 0x0C80),
        .leBluetoothDeviceAddress(LEAddress(BluetoothAddress(0xC1C2_C3C4_C5C6), type: .random)),
        .leBluetoothDeviceAddress(LEAddress(BluetoothAddress(0x0001_0203_0405), type: .public)),
        .other(.classOfDevice, data: [0x0C, 0x02, 0x5A]),
        .other(0x99, data: []),
    ]

    @Test("Every typed value round-trips: value → structure → bytes → structure → value")
    func roundTrips() throws {
        for value in Self.samples {
            let structure = try ADStructure(value)
            try expectRoundTrip(structure)
            let decoded = try ADStructure(decoding: structure.encoded)
            #expect(decoded.value == value, "\(value)")
            let block = AdvertisingData([structure])
            try expectRoundTrip(block)
            #expect(block.values == [value])
        }
    }

    @Test("Byte-exact wire forms of the typed values (CSS Part A §1)")
    func wireForms() throws {
        func bytes(_ value: ADValue) throws -> [UInt8] { try ADStructure(value).encoded }
        #expect(try bytes(.txPowerLevel(-20)) == hex("02 0a ec"))
        #expect(try bytes(.appearance(0x00C1)) == hex("03 19 c1 00"))
        #expect(try bytes(.manufacturerData(companyID: 0x0059, data: [1, 2])) == hex("05 ff 59 00 01 02"))
        #expect(try bytes(.serviceData(0xFEAA, data: [0x10])) == hex("04 16 aa fe 10"))
        #expect(
            try bytes(.serviceData(BluetoothUUID(uuid32: 0xABCD_0001), data: [])) == hex("05 20 01 00 cd ab"))
        #expect(try bytes(.advertisingInterval(units: 0x0800)) == hex("03 1a 00 08"))
        #expect(try bytes(.advertisingInterval(units: 0x01_0000)) == hex("04 2f 00 00 01"))
        #expect(try bytes(.advertisingInterval(units: 0x0100_0000)) == hex("05 2f 00 00 00 01"))
        #expect(try bytes(.leRole(.bothPeripheralPreferred)) == hex("02 1c 02"))
        #expect(
            try bytes(.peripheralConnectionIntervalRange(min: 6, max: 0x0C80)) == hex("05 12 06 00 80 0c"))
        #expect(
            try bytes(.leBluetoothDeviceAddress(LEAddress(BluetoothAddress(0xC1C2_C3C4_C5C6), type: .random)))
                == hex("08 1b c6 c5 c4 c3 c2 c1 01"))
        #expect(
            try bytes(.publicTargetAddresses([BluetoothAddress(0x0011_2233_4455)]))
                == hex("07 17 55 44 33 22 11 00"))
        #expect(try bytes(.localName(complete: false, "Ab")) == hex("03 08 41 62"))
        #expect(try bytes(.solicitedServiceUUIDs([0x1812])) == hex("03 14 12 18"))
        #expect(try bytes(.serviceUUIDs(complete: false, [])) == hex("01 02"))
    }

    @Test("UUIDs take their shortest width; mixed widths become one structure per width")
    func shortestWidths() throws {
        // A 128-bit UUID on the Base UUID travels as 16 bits.
        let onBase = try #require(BluetoothUUID("0000180D-0000-1000-8000-00805F9B34FB"))
        #expect(try ADStructure(.serviceUUIDs(complete: true, [onBase])).encoded == hex("03 03 0d 18"))
        let mixed = ADValue.serviceUUIDs(
            complete: true, [Self.nus, 0x180D, BluetoothUUID(uuid32: 0x1234_5678), 0x180F])
        let structures = try ADStructure.structures(for: mixed)
        #expect(
            structures.map(\.type) == [
                .completeServiceUUIDs16, .completeServiceUUIDs32, .completeServiceUUIDs128,
            ])
        #expect(structures[0].encoded == hex("05 03 0d 18 0f 18"))
        #expect(structures[1].encoded == hex("05 05 78 56 34 12"))
        #expect(
            AdvertisingData(structures).serviceUUIDs == [
                0x180D, 0x180F, BluetoothUUID(uuid32: 0x1234_5678), Self.nus,
            ])
        #expect(throws: AdvertisingDataError.severalStructuresNeeded(count: 3)) { try ADStructure(mixed) }
        let solicited = try ADStructure.structures(for: .solicitedServiceUUIDs([Self.nus, 0x1812]))
        #expect(solicited.map(\.type) == [.solicitedServiceUUIDs16, .solicitedServiceUUIDs128])
    }

    @Test("Convenience accessors merge lists and key data by company and UUID")
    func accessors() throws {
        var builder = AdvertisingDataBuilder()
        try builder.append(.serviceUUIDs(complete: false, [0x180D]))
        try builder.append(.serviceUUIDs(complete: true, [Self.nus]))
        try builder.append(.localName(complete: false, "Short"))
        try builder.append(.manufacturerData(companyID: 0x004C, data: [1]))
        try builder.append(.manufacturerData(companyID: 0x004C, data: [2]))
        try builder.append(.serviceData(0xFEAA, data: [3]))
        try builder.append(.txPowerLevel(4))
        try builder.append(.solicitedServiceUUIDs([0x1812]))
        let data = try builder.build(limit: .extended)
        #expect(data.serviceUUIDs == [0x180D, Self.nus])
        #expect(data.solicitedServiceUUIDs == [0x1812])
        #expect(data.localName == "Short")
        #expect(!data.hasCompleteLocalName)
        #expect(data.manufacturerData == [0x004C: [1]])
        #expect(data.serviceData == [0xFEAA: [3]])
        #expect(data.txPowerLevel == 4)
        #expect(data.flags == nil)
        #expect(data.appearance == nil)
        #expect(data[.txPowerLevel]?.data == [4])
        #expect(data[.uri] == nil)
    }

    @Test("Local names: invalid UTF-8 is shown with U+FFFD, not rejected (CSS Part A §1.2)")
    func lossyNames() throws {
        let data = try AdvertisingData(decoding: hex("04 09 41 ff 42"))
        #expect(data.localName == "A\u{FFFD}B")
        #expect(data.structures.first?.data == [0x41, 0xFF, 0x42])
    }

    @Test("Appearance category and subcategory (Assigned Numbers §2.6)")
    func appearanceHelper() {
        let watch = ADAppearance(category: 3, subcategory: 2)
        #expect(watch.rawValue == 0x00C2)
        #expect(watch.categoryName == "Watch")
        #expect(watch.description == "0x00C2 (Watch, subcategory 2)")
        #expect(ADAppearance(0x0C40).categoryName == "Pulse Oximeter")
        #expect(ADAppearance(0x1440).description == "0x1440 (Outdoor Sports Activity)")
        #expect(ADAppearance(0xFFC0).categoryName == nil)
        #expect(ADAppearance(0x0000).description == "0x0000 (Unknown)")
    }

    @Test("Leaf values round-trip on their own: AD type, Flags, Appearance, LE Role")
    func leafRoundTrips() throws {
        for code in [0x01, 0x09, 0x33, 0xFF] as [UInt8] { try expectRoundTrip(ADType(code)) }
        try expectRoundTrip(ADFlags.leOnlyGeneralDiscoverable)
        try expectRoundTrip(ADFlags(rawValue: 0xE1))
        try expectRoundTrip(ADAppearance(0x0341))
        for raw in [0x00, 0x01, 0x02, 0x03, 0x42] as [UInt8] { try expectRoundTrip(ADLERole(rawValue: raw)) }
        #expect(ADLERole(rawValue: 0x03) == .bothCentralPreferred)
        #expect(
            ADFlags(rawValue: 0x25).description
                == "[leLimitedDiscoverable, brEdrNotSupported, reserved(0x20)]")
        #expect(ADAppearance(0x0341).encoded == [0x41, 0x03])
        expectDecodeError(ADAppearance.self, [0x41], .truncated(needed: 2, available: 1), field: "Appearance")
        expectDecodeError(ADLERole.self, [], .truncated(needed: 1, available: 0), field: "LE Role")
    }

    @Test("AD type names from the Assigned Numbers (§2.3)")
    func typeNames() {
        #expect(ADType.flags.description == "Flags (0x01)")
        #expect(ADType.manufacturerSpecificData.name == "Manufacturer Specific Data")
        #expect(ADType.broadcastName.rawValue == 0x30)
        #expect(ADType.electronicShelfLabel.rawValue == 0x34)
        #expect(ADType.threeDInformationData.rawValue == 0x3D)
        #expect(ADType.deviceID == ADType.securityManagerTKValue)
        #expect(ADType(0x33).name == nil)
        #expect(ADType(0x33).description == "Unknown AD Type (0x33)")
    }
}
