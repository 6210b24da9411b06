import BLEWire
import PropertyBased
import Testing

@Suite("Advertising data builder and limits (Core 5.4 Vol 3 Part C §11, Vol 6 Part B §2.3)")
struct AdvertisingDataBuilderTests {
    static let nus = BluetoothUUID(high: 0x6E40_0001_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E)

    @Test("Over the legacy limit of 31: exact figures, structures largest first")
    func tooLongLegacy() throws {
        var builder = AdvertisingDataBuilder()
        try builder.append(.flags(.leOnlyGeneralDiscoverable))
        try builder.append(.serviceUUIDs(complete: true, [Self.nus]))
        try builder.append(.localName(complete: true, "Heart Rate Sensor 1"))
        #expect(builder.totalLength == 42)
        #expect(builder.remaining(in: .legacy) == -11)
        let expected = AdvertisingDataError.tooLong(
            limit: 31, total: 42, over: 11,
            structures: [(.completeLocalName, 21), (.completeServiceUUIDs128, 18), (.flags, 3)])
        #expect(throws: expected) { try builder.build() }
        do {
            _ = try builder.build(limit: .legacy)
        } catch {
            #expect(
                error.description
                    == "advertising data is 42 octets, 11 over the legacy limit of 31: "
                    + "Complete Local Name 21, Complete List of 128-bit Service UUIDs 18, Flags 3")
        }
        let extended = try builder.build(limit: .extended)
        #expect(extended.bytes.count == 42)
        #expect(extended.localName == "Heart Rate Sensor 1")
        #expect(throws: AdvertisingDataError.self) { try builder.build(limit: .custom(41)) }
        #expect(try builder.build(limit: .custom(42)).count == 3)
    }

    @Test("Over the extended limit of 1650 octets")
    func tooLongExtended() throws {
        var builder = AdvertisingDataBuilder()
        for company in 0..<7 {
            try builder.append(
                .manufacturerData(companyID: UInt16(company), data: ArraySlice(repeating: 0, count: 250)))
        }
        // 7 × (2 + 2 + 250) = 1778.
        do {
            _ = try builder.build(limit: .extended)
            Issue.record("expected tooLong")
        } catch {
            guard case .tooLong(let limit, let total, let over, let structures) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(limit == 1650)
            #expect(total == 1778)
            #expect(over == 128)
            #expect(structures.count == 7)
            #expect(structures.allSatisfy { $0.type == .manufacturerSpecificData && $0.octets == 254 })
            #expect(
                error.description.hasPrefix(
                    "advertising data is 1778 octets, 128 over the extended limit of 1650"))
        }
    }

    @Test("A local name is shortened to the room left, at a character boundary (CSS Part A §1.2)")
    func fitLocalName() throws {
        var builder = AdvertisingDataBuilder()
        try builder.append(.flags(.leOnlyGeneralDiscoverable))
        try builder.append(.serviceUUIDs(complete: true, [Self.nus]))
        try builder.appendLocalName("Heart Rate Sensor 1")
        let data = try builder.build()
        #expect(data.bytes.count == 31)
        #expect(data.values.last == .localName(complete: false, "Heart Ra"))
        #expect(Array(data.bytes.suffix(10)) == hex("09 08 48 65 61 72 74 20 52 61"))

        // The complete name when it fits.
        var roomy = AdvertisingDataBuilder()
        try roomy.appendLocalName("Thermo")
        #expect(try roomy.build().values == [.localName(complete: true, "Thermo")])

        // "é" is two octets: with 4 octets of room "Café" (5 octets) is cut before it.
        #expect(AdvertisingDataBuilder.fittedLocalName("Café", room: 4) == .localName(complete: false, "Caf"))
        #expect(AdvertisingDataBuilder.fittedLocalName("Café", room: 5) == .localName(complete: true, "Café"))
        // A flag emoji is one character of 8 octets: nothing fits in 7.
        #expect(AdvertisingDataBuilder.fittedLocalName("🇫🇷", room: 7) == nil)
        #expect(AdvertisingDataBuilder.fittedLocalName("abc", room: 0) == nil)
    }

    @Test("No room for even one character of the name is a tooLong error")
    func noRoomForName() throws {
        var builder = AdvertisingDataBuilder()
        try builder.append(.manufacturerData(companyID: 0x0059, data: ArraySlice(repeating: 0, count: 25)))
        #expect(builder.totalLength == 29)
        #expect(
            throws: AdvertisingDataError.tooLong(
                limit: 31, total: 38, over: 7,
                structures: [(.manufacturerSpecificData, 29), (.completeLocalName, 9)])
        ) { try builder.appendLocalName("Sensor1") }
        #expect(builder.structures.count == 1)
    }

    @Test("Structures beyond 254 data octets and invalid raw data are refused")
    func structureLimits() throws {
        let long = String(repeating: "x", count: 255)
        #expect(throws: AdvertisingDataError.structureTooLong(type: .completeLocalName, dataOctets: 255)) {
            try ADStructure(.localName(complete: true, long))
        }
        #expect(throws: AdvertisingDataError.self) { try ADStructure(.other(.txPowerLevel, data: [1, 2])) }
        // Raw structures append as they are.
        var builder = AdvertisingDataBuilder()
        builder.append(try ADStructure(type: 0x99, data: [1, 2, 3]))
        #expect(try builder.build().encoded == hex("04 99 01 02 03"))
    }

    @Test("Built blocks decode back to the values appended")
    func builtBlocksDecode() async {
        let names = Gen.letterOrNumber.string(of: 0...40)
        let uuids = Gen.uint16().array(of: 0...6)
        await propertyCheck(count: 300, input: names, uuids) { name, shorts in
            var builder = AdvertisingDataBuilder()
            do {
                try builder.append(.flags(.leOnlyGeneralDiscoverable))
                try builder.append(.serviceUUIDs(complete: true, shorts.map { BluetoothUUID($0) }))
                try builder.appendLocalName(name, limit: .legacy)
            } catch {
                // At most 17 octets precede the name, so at least one character always fits.
                Issue.record("unexpected \(error)")
                return
            }
            guard let data = try? builder.build(limit: .legacy) else {
                Issue.record("fitted data over the limit")
                return
            }
            #expect(data.bytes.count <= 31)
            let decoded = try? AdvertisingData(decoding: data.encoded)
            #expect(decoded == data)
            #expect(decoded?.serviceUUIDs == shorts.map { BluetoothUUID($0) })
            #expect(decoded.flatMap(\.localName).map { name.hasPrefix($0) } == true)
        }
    }
}
