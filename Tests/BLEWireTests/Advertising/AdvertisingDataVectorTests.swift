import BLEWire
import Testing

@Suite("Advertising data vectors (Core 5.4 Vol 3 Part C §11, CSS Part A)")
struct AdvertisingDataVectorTests {
    /// A heart-rate sensor block in the layout of the nRF5 SDK heart-rate example
    /// (ble_advdata_encode: name, appearance, flags, complete 16-bit UUID list).
    static let heartRate = hex(
        "0b 09 4e 6f 72 64 69 63 5f 48 52 4d 03 19 41 03 02 01 06 07 03 0d 18 0f 18 0a 18")

    /// An iBeacon: Flags, then Apple (0x004C) manufacturer data with type 0x02, length 0x15,
    /// the AirLocate sample proximity UUID E2C56DB5-DFFB-48D2-B060-D0F5A71096E0, major 1,
    /// minor 2 (big-endian) and measured power -59 dBm.
    static let iBeacon = hex(
        "02 01 06 1a ff 4c 00 02 15 e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10 96 e0 00 01 00 02 c5")

    /// An Eddystone-URL frame (Eddystone specification layout): Flags, the 16-bit UUID 0xFEAA,
    /// and service data 0xFEAA with frame type 0x10, Tx power -21 dBm, scheme 0x03 ("https://")
    /// and "goo.gl/S6zT6P".
    static let eddystoneURL = hex(
        "02 01 06 03 03 aa fe 13 16 aa fe 10 eb 03 67 6f 6f 2e 67 6c 2f 53 36 7a 54 36 50")

    /// The scan response of the Nordic UART Service examples: its 128-bit UUID
    /// 6E400001-B5A3-F393-E0A9-E50E24DCCA9E, least significant octet first.
    static let nordicUART = hex("11 07 9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 01 00 40 6e")

    @Test("Heart-rate sensor block: name, appearance, flags and UUID list (CSS Part A §1.1–§1.3, §1.12)")
    func heartRateBlock() throws {
        let data = try AdvertisingData(decoding: Self.heartRate)
        #expect(data.count == 4)
        #expect(data.localName == "Nordic_HRM")
        #expect(data.hasCompleteLocalName)
        #expect(data.flags == [.leGeneralDiscoverable, .brEdrNotSupported])
        #expect(data.serviceUUIDs == [0x180D, 0x180F, 0x180A])
        #expect(data.appearance == 0x0341)
        #expect(data.appearance?.category == 13)
        #expect(data.appearance?.subcategory == 1)
        #expect(data.appearance?.categoryName == "Heart Rate Sensor")
        #expect(data.txPowerLevel == nil)
        #expect(
            data.values == [
                .localName(complete: true, "Nordic_HRM"), .appearance(0x0341),
                .flags(.leOnlyGeneralDiscoverable), .serviceUUIDs(complete: true, [0x180D, 0x180F, 0x180A]),
            ])
        #expect(data.encoded == Self.heartRate)
        #expect(
            data.structures.map(\.type) == [.completeLocalName, .appearance, .flags, .completeServiceUUIDs16])
    }

    @Test("iBeacon: Apple manufacturer specific data (CSS Part A §1.4)")
    func iBeaconBlock() throws {
        let data = try AdvertisingData(decoding: Self.iBeacon)
        #expect(data.count == 2)
        #expect(data.flags == .leOnlyGeneralDiscoverable)
        let apple = try #require(data.manufacturerData[0x004C])
        #expect(Array(apple.prefix(2)) == [0x02, 0x15])
        #expect(apple.count == 23)
        let proximity = try #require(BluetoothUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        // iBeacon fields are big-endian, unlike Bluetooth's.
        let uuidOctets = Array(apple.dropFirst(2).prefix(16))
        #expect(uuidOctets == hex("e2c56db5dffb48d2b060d0f5a71096e0"))
        #expect(proximity.uuidString == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
        #expect(Array(apple.suffix(5)) == [0x00, 0x01, 0x00, 0x02, 0xC5])
        guard case .manufacturerData(let company, let payload) = data.values[1] else {
            Issue.record("expected manufacturer data, got \(data.values[1])")
            return
        }
        #expect(company == 0x004C)
        #expect(payload == apple)
    }

    @Test("Eddystone-URL: 16-bit UUID list and 16-bit service data (CSS Part A §1.11)")
    func eddystoneBlock() throws {
        let data = try AdvertisingData(decoding: Self.eddystoneURL)
        #expect(data.serviceUUIDs == [0xFEAA])
        let frame = try #require(data.serviceData[0xFEAA])
        #expect(frame.first == 0x10)
        #expect(Int8(bitPattern: frame[frame.startIndex + 1]) == -21)
        #expect(frame[frame.startIndex + 2] == 0x03)
        #expect(String(decoding: frame.dropFirst(3), as: UTF8.self) == "goo.gl/S6zT6P")
        #expect(data.values.count == 3)
    }

    @Test("Nordic UART scan response: Complete List of 128-bit Service UUIDs (CSS Part A §1.1)")
    func nordicUARTScanResponse() throws {
        let data = try AdvertisingData(decoding: Self.nordicUART)
        let nus = try #require(BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E"))
        #expect(data.values == [.serviceUUIDs(complete: true, [nus])])
        #expect(try ADStructure(.serviceUUIDs(complete: true, [nus])).encoded == Self.nordicUART)
    }

    @Test("URI with the https: code point 0x17 (CSS Part A §1.18, Assigned Numbers §2.7)")
    func uriHTTPS() throws {
        let bytes = hex("15 24 17 2f 2f 77 77 77 2e 62 6c 75 65 74 6f 6f 74 68 2e 63 6f 6d")
        let data = try AdvertisingData(decoding: bytes)
        #expect(data.values == [.uri("https://www.bluetooth.com")])
        #expect(try ADStructure(.uri("https://www.bluetooth.com")).encoded == bytes)
    }

    @Test("URI schemes above 0x7F take two UTF-8 octets; 0x01 keeps the URI as written")
    func uriSchemeEncodings() throws {
        // "bluetooth:" is code point 0xBB: UTF-8 C2 BB.
        let bluetooth = try ADStructure(.uri("bluetooth:00:11"))
        #expect(Array(bluetooth.data.prefix(2)) == [0xC2, 0xBB])
        #expect(bluetooth.value == .uri("bluetooth:00:11"))
        let custom = try ADStructure(.uri("myapp://open"))
        #expect(custom.encoded == [0x0E, 0x24, 0x01] + Array("myapp://open".utf8))
        #expect(custom.value == .uri("myapp://open"))
        // Scheme names are matched exactly, so upper case survives behind 0x01.
        #expect(try ADStructure(.uri("HTTP://X")).data.first == 0x01)
        #expect(ADURIScheme.name(for: 0x16)?.description == "http:")
        #expect(ADURIScheme.name(for: 0xBC)?.description == "bl:")
        #expect(ADURIScheme.name(for: 0xBD) == nil)
        #expect(ADURIScheme.name(for: 0x01) == nil)
    }

    @Test("URI whose scheme code point the table lacks stays raw in the typed view")
    func uriUnknownScheme() throws {
        // U+0200 in UTF-8 is C8 80: well-formed, not assigned.
        let structure = try ADStructure(type: .uri, data: [0xC8, 0x80, 0x41])
        #expect(structure.value == .other(.uri, data: [0xC8, 0x80, 0x41]))
    }

    @Test("Zero Length ends the significant part; the zero padding after it is dropped (§11)")
    func zeroPadding() throws {
        let padded = hex("02 01 06 03 03 0d 18") + Array(repeating: 0, count: 24)
        #expect(padded.count == 31)
        let data = try AdvertisingData(decoding: padded)
        #expect(data.count == 2)
        #expect(data.encoded == hex("02 01 06 03 03 0d 18"))
        #expect(data.padded() == padded)
        #expect(try AdvertisingData(decoding: Array(repeating: 0, count: 31)) == AdvertisingData())
    }

    @Test("Octets after the terminator are ignored even when not zero (decision: not an error)")
    func nonZeroAfterTerminator() throws {
        let data = try AdvertisingData(decoding: hex("02 01 06 00 05 09 41 42 43 44 ff"))
        #expect(data.count == 1)
        #expect(data.values == [.flags(.leOnlyGeneralDiscoverable)])
    }

    @Test("Flags may be zero or more octets; only the first octet has defined bits (CSS Part A §1.3)")
    func flagsLengths() throws {
        #expect(try AdvertisingData(decoding: [0x01, 0x01]).flags == [])
        let long = try AdvertisingData(decoding: [0x03, 0x01, 0x05, 0x00])
        #expect(long.flags == [.leLimitedDiscoverable, .brEdrNotSupported])
        #expect(try ADStructure(.flags([])).encoded == [0x01, 0x01])
        #expect(try ADStructure(.flags(.leOnlyGeneralDiscoverable)).encoded == [0x02, 0x01, 0x06])
    }

    @Test("Rendering: each structure with its type name and typed value; the block as a list")
    func rendering() throws {
        let data = try AdvertisingData(decoding: Self.heartRate)
        #expect(
            data.description
                == "[Complete Local Name (0x09) { complete: true, name: \"Nordic_HRM\" }, "
                + "Appearance (0x19) { appearance: 0x0341 (Heart Rate Sensor, subcategory 1) }, "
                + "Flags (0x01) { flags: [leGeneralDiscoverable, brEdrNotSupported] }, "
                + "Complete List of 16-bit Service UUIDs (0x03) { complete: true, "
                + "uuids: [180D, 180F, 180A] }]"
        )
        #expect(data.json.hasPrefix("[{\"type\":\"Complete Local Name (0x09)\",\"complete\":true,"))
        let unknown = try ADStructure(type: 0x99, data: [0xAB])
        #expect(unknown.description == "Unknown AD Type (0x99) { data: ab }")
        #expect(unknown.json == "{\"type\":\"Unknown AD Type (0x99)\",\"data\":\"ab\"}")
        #expect(
            ADValue.other(0x99, data: [0xAB]).json
                == "{\"type\":\"other\",\"adType\":\"Unknown AD Type (0x99)\",\"data\":\"ab\"}")
        #expect(ADValue.txPowerLevel(-8).description == "txPowerLevel { dBm: -8 }")
        #expect(
            ADValue.advertisingInterval(units: 161).description
                == "advertisingInterval { units: 161, ms: \"100.625\" }")
    }
}
