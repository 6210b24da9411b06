import BLEWire
import Testing

@Suite("Malformed advertising data (Core 5.4 Vol 3 Part C §11, CSS Part A)")
struct AdvertisingDataMalformedTests {
    /// Decodes with the detailed entry point and returns the error, or records an issue.
    func decodeError(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation)
        -> AdvertisingDataDecodeError?
    {
        do {
            let data = try AdvertisingData.decode(bytes)
            Issue.record("expected an error, decoded \(data)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    @Test("A structure running past the end names its index, offset and type (§11)")
    func structureOverrun() throws {
        let error = try #require(decodeError(hex("02 01 06 05 09 41 42")))
        #expect(error.structureIndex == 1)
        #expect(error.structureOffset == 3)
        #expect(error.type == .completeLocalName)
        #expect(error.error.field.description == "Length")
        #expect(error.error.offset == 3)
        #expect(error.error.reason == .truncated(needed: 5, available: 3))
        #expect(
            error.description
                == "AD structure 1 (Complete Local Name (0x09)) at offset 3: Advertising Data: Length at "
                + "offset 3: truncated: needs 5 octets, 3 left")
        expectDecodeError(
            AdvertisingData.self, hex("02 01 06 05 09 41 42"), .truncated(needed: 5, available: 3),
            field: "Length")
    }

    @Test("A Length octet with nothing after it is truncated and has no type")
    func lengthAtEnd() throws {
        let error = try #require(decodeError(hex("02 01 06 01")))
        #expect(error.structureIndex == 1)
        #expect(error.type == nil)
        #expect(error.error.reason == .truncated(needed: 1, available: 0))
    }

    @Test("Service UUID lists are whole 2-, 4- or 16-octet UUIDs (CSS Part A §1.1)")
    func serviceUUIDLists() throws {
        expectDecodeError(
            AdvertisingData.self, hex("04 03 0d 18 0f"), .truncated(needed: 2, available: 1),
            field: "Service UUID")
        expectDecodeError(
            AdvertisingData.self, hex("04 05 01 02 03"), .truncated(needed: 4, available: 3),
            field: "Service UUID")
        expectDecodeError(
            AdvertisingData.self, [0x12, 0x07] + Array(repeating: 0xAA, count: 17),
            .truncated(needed: 16, available: 1), field: "Service UUID")
        // The partial UUID is reported where it starts.
        let error = try #require(
            decodeError([0x02, 0x01, 0x06, 0x12, 0x06] + Array(repeating: 0, count: 17)))
        #expect(error.structureIndex == 1)
        #expect(error.error.offset == 3 + 2 + 16)
    }

    @Test("Service Solicitation lists are whole UUIDs (CSS Part A §1.10)")
    func solicitationLists() {
        expectDecodeError(
            AdvertisingData.self, hex("02 14 01"), .truncated(needed: 2, available: 1),
            field: "Solicited Service UUID")
        expectDecodeError(
            AdvertisingData.self, hex("03 1f 01 02"), .truncated(needed: 4, available: 2),
            field: "Solicited Service UUID")
        expectDecodeError(
            AdvertisingData.self, [0x04, 0x15, 1, 2, 3], .truncated(needed: 16, available: 3),
            field: "Solicited Service UUID")
    }

    @Test("Tx Power Level is exactly one octet (CSS Part A §1.5)")
    func txPowerLevel() throws {
        expectDecodeError(
            AdvertisingData.self, hex("01 0a"), .truncated(needed: 1, available: 0), field: "Tx Power Level")
        expectDecodeError(
            AdvertisingData.self, hex("03 0a 01 02"), .trailingBytes(count: 1), field: "Tx Power Level")
        let error = try #require(decodeError(hex("03 0a 01 02")))
        #expect(error.error.offset == 3)
    }

    @Test("Appearance is exactly two octets (CSS Part A §1.12)")
    func appearance() {
        expectDecodeError(
            AdvertisingData.self, hex("02 19 41"), .truncated(needed: 2, available: 1), field: "Appearance")
        expectDecodeError(
            AdvertisingData.self, hex("04 19 41 03 00"), .trailingBytes(count: 1), field: "Appearance")
    }

    @Test("Manufacturer Specific Data starts with a 2-octet company identifier (CSS Part A §1.4)")
    func manufacturerData() throws {
        expectDecodeError(
            AdvertisingData.self, hex("02 ff 4c"), .truncated(needed: 2, available: 1),
            field: "Company Identifier")
        expectDecodeError(
            AdvertisingData.self, hex("01 ff"), .truncated(needed: 2, available: 0),
            field: "Company Identifier")
        // The company identifier alone is valid: empty data follows.
        let data = try AdvertisingData(decoding: hex("03 ff 59 00"))
        #expect(data.manufacturerData[0x0059]?.isEmpty == true)
    }

    @Test("Service Data starts with a UUID of its type's width (CSS Part A §1.11)")
    func serviceData() {
        expectDecodeError(
            AdvertisingData.self, hex("02 16 aa"), .truncated(needed: 2, available: 1),
            field: "Service Data UUID")
        expectDecodeError(
            AdvertisingData.self, hex("04 20 01 02 03"), .truncated(needed: 4, available: 3),
            field: "Service Data UUID")
        expectDecodeError(
            AdvertisingData.self, [0x10, 0x21] + Array(repeating: 1, count: 15),
            .truncated(needed: 16, available: 15), field: "Service Data UUID")
    }

    @Test("Target Address lists are whole 6-octet addresses (CSS Part A §1.13, §1.14)")
    func targetAddresses() {
        expectDecodeError(
            AdvertisingData.self, hex("06 17 01 02 03 04 05"), .truncated(needed: 6, available: 5),
            field: "Target Address")
        expectDecodeError(
            AdvertisingData.self, hex("08 18 01 02 03 04 05 06 07"), .truncated(needed: 6, available: 1),
            field: "Target Address")
    }

    @Test("Advertising Interval is 2 octets; the long form 3 or 4 (CSS Part A §1.15)")
    func advertisingInterval() {
        expectDecodeError(
            AdvertisingData.self, hex("02 1a 20"), .truncated(needed: 2, available: 1),
            field: "Advertising Interval")
        expectDecodeError(
            AdvertisingData.self, hex("04 1a 20 00 00"), .trailingBytes(count: 1),
            field: "Advertising Interval")
        expectDecodeError(
            AdvertisingData.self, hex("03 2f 01 02"), .truncated(needed: 3, available: 2),
            field: "Advertising Interval")
        expectDecodeError(
            AdvertisingData.self, hex("06 2f 01 02 03 04 05"), .trailingBytes(count: 1),
            field: "Advertising Interval")
    }

    @Test("LE Role is one octet; reserved values are kept (CSS Part A §1.17)")
    func leRole() throws {
        expectDecodeError(
            AdvertisingData.self, hex("01 1c"), .truncated(needed: 1, available: 0), field: "LE Role")
        expectDecodeError(
            AdvertisingData.self, hex("03 1c 00 01"), .trailingBytes(count: 1), field: "LE Role")
        let reserved = try AdvertisingData(decoding: hex("02 1c 07"))
        #expect(reserved.values == [.leRole(.reserved(0x07))])
    }

    @Test("Peripheral Connection Interval Range is 4 octets (CSS Part A §1.9)")
    func connectionIntervalRange() {
        expectDecodeError(
            AdvertisingData.self, hex("04 12 06 00 80"), .truncated(needed: 4, available: 3),
            field: "Peripheral Connection Interval Range")
        expectDecodeError(
            AdvertisingData.self, hex("06 12 06 00 80 0c 00"), .trailingBytes(count: 1),
            field: "Peripheral Connection Interval Range")
    }

    @Test("LE Bluetooth Device Address is 7 octets (CSS Part A §1.16)")
    func leDeviceAddress() {
        expectDecodeError(
            AdvertisingData.self, hex("07 1b 01 02 03 04 05 06"), .truncated(needed: 7, available: 6),
            field: "LE Bluetooth Device Address")
    }

    @Test("URI starts with a well-formed UTF-8 scheme code point (CSS Part A §1.18)")
    func uriScheme() throws {
        expectDecodeError(
            AdvertisingData.self, hex("01 24"), .truncated(needed: 1, available: 0), field: "URI Scheme")
        expectDecodeError(AdvertisingData.self, hex("02 24 ff"), .invalidValue(0xFF), field: "URI Scheme")
        expectDecodeError(AdvertisingData.self, hex("02 24 80"), .invalidValue(0x80), field: "URI Scheme")
        expectDecodeError(
            AdvertisingData.self, hex("02 24 c2"), .truncated(needed: 2, available: 1), field: "URI Scheme")
        expectDecodeError(AdvertisingData.self, hex("03 24 c2 41"), .invalidValue(0x41), field: "URI Scheme")
        let error = try #require(decodeError(hex("03 24 c2 41")))
        #expect(error.error.offset == 3)
    }

    @Test("A raw structure is checked like a decoded one")
    func rawStructureChecks() throws {
        #expect(throws: DecodeError.self) { try ADStructure(type: .txPowerLevel, data: [1, 2]) }
        #expect(throws: DecodeError.self) {
            try ADStructure(type: 0x99, data: Array(repeating: 0, count: 255))
        }
        #expect(try ADStructure(type: 0x99, data: Array(repeating: 0, count: 254)).encodedLength == 256)
        expectDecodeError(ADStructure.self, [0x00], .outOfRange(value: 0, allowed: 1...255), field: "Length")
        expectDecodeError(
            ADStructure.self, [0x03, 0x09, 0x41], .truncated(needed: 2, available: 1), field: "AD Data")
        expectDecodeError(
            ADStructure.self, [0x02, 0x19, 0x41], .truncated(needed: 2, available: 1), field: "Appearance")
    }
}
