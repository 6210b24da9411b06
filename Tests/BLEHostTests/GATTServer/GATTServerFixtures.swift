import BLEWire
import Testing

@testable import BLEHost

/// Hex text to octets ("0A 03 00" → [0x0A, 0x03, 0x00]).
func hex(_ text: String) -> [UInt8] {
    Hex.bytes(text) ?? []
}

let client1 = GATTConnectionID(0x0040)
let client2 = GATTConnectionID(0x0041)

let customServiceUUID = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
let longValueUUID = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")!
let signedWriteUUID = BluetoothUUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")!
let secondaryServiceUUID = BluetoothUUID("6E400010-B5A3-F393-E0A9-E50E24DCCA9E")!

/// 100 octets 0x00, 0x01, … 0x63.
let longValue: [UInt8] = (0..<100).map { UInt8($0) }

let batteryService = GATTService(
    uuid: 0x180F,
    characteristics: [
        GATTCharacteristic(
            uuid: 0x2A19, properties: [.read, .notify], permissions: .readable, value: .stored([100]),
            descriptors: [.presentationFormat(format: 0x04, unit: 0x27AD)])
    ])

let secondaryService = GATTService(
    uuid: secondaryServiceUUID, isPrimary: false,
    characteristics: [
        GATTCharacteristic(
            uuid: 0x2A2B, properties: .read, permissions: .readable,
            value: .stored([0xE8, 0x07, 0x05, 0x11, 0x0C, 0x1E, 0x00, 0x05, 0x00, 0x00]))
    ])

/// The test database: GAP, GATT, Heart Rate, Battery, a custom 128-bit service (long value,
/// signed writes; includes Battery and the secondary service) and a secondary service.
///
/// ```
/// 0x0001 «Primary Service» 1800          0x0016 «Primary Service» 180F
/// 0x0002 «Characteristic» 02 0003 2A00   0x0017 «Characteristic» 12 0018 2A19
/// 0x0003 Device Name "swift-ble test"    0x0018 Battery Level [100]
/// 0x0004 «Characteristic» 02 0005 2A01   0x0019 CCCD
/// 0x0005 Appearance 0x0340               0x001A Presentation Format 04 00 AD27 01 0000
/// 0x0006 «Primary Service» 1801          0x001B «Primary Service» 6E400001-…
/// 0x0007 «Characteristic» 20 0008 2A05   0x001C «Include» 0016 001A 180F
/// 0x0008 Service Changed                 0x001D «Include» 0024 0026
/// 0x0009 CCCD                            0x001E «Characteristic» 8A 001F 6E400002-…
/// 0x000A «Characteristic» 0A 000B 2B29   0x001F long value (100 octets)
/// 0x000B Client Supported Features       0x0020 Extended Properties 0003
/// 0x000C «Characteristic» 02 000D 2B2A   0x0021 User Description "Long value"
/// 0x000D Database Hash                   0x0022 «Characteristic» 44 0023 6E400003-…
/// 0x000E «Primary Service» 180D          0x0023 signed-write value (dynamic)
/// 0x000F «Characteristic» 10 0010 2A37   0x0024 «Secondary Service» 6E400010-…
/// 0x0010 Heart Rate Measurement          0x0025 «Characteristic» 02 0026 2A2B
/// 0x0011 CCCD                            0x0026 Current Time (10 octets)
/// 0x0012 «Characteristic» 02 0013 2A38
/// 0x0013 Body Sensor Location [01]
/// 0x0014 «Characteristic» 08 0015 2A39
/// 0x0015 Heart Rate Control Point (dynamic)
/// ```
func testDatabase() throws -> AttributeDatabase {
    let heartRate = GATTService(
        uuid: 0x180D,
        characteristics: [
            GATTCharacteristic(uuid: 0x2A37, properties: .notify, permissions: [], value: .dynamic),
            GATTCharacteristic(uuid: 0x2A38, properties: .read, permissions: .readable, value: .stored([0x01])),
            GATTCharacteristic(uuid: 0x2A39, properties: .write, permissions: .writeable, value: .dynamic),
        ])
    let custom = GATTService(
        uuid: customServiceUUID, includedServices: [batteryService, secondaryService],
        characteristics: [
            GATTCharacteristic(
                uuid: longValueUUID, properties: [.read, .write],
                extendedProperties: [.reliableWrite, .writableAuxiliaries], permissions: [.readable, .writeable],
                value: .stored(longValue), descriptors: [.userDescription("Long value")]),
            GATTCharacteristic(
                uuid: signedWriteUUID, properties: [.writeWithoutResponse, .authenticatedSignedWrites],
                permissions: .writeable, value: .dynamic),
        ])
    return try AttributeDatabase(
        gap: GAPServiceConfiguration(deviceName: "swift-ble test", appearance: 0x0340),
        services: [heartRate, batteryService, custom, secondaryService])
}

func testServer(_ configuration: GATTServer.Configuration = .init()) throws -> GATTServer {
    var server = GATTServer(database: try testDatabase(), configuration: configuration)
    server.connect(client1)
    return server
}

extension GATTServer {
    /// Sends raw request octets from `connection` and returns the response octets, nil when the
    /// outcome carries no response.
    mutating func exchange(_ request: String, on connection: GATTConnectionID = client1) -> [UInt8]? {
        handle(bytes: hex(request), connection: connection).response?.encoded
    }
}

extension GATTServerOutcome {
    /// The PDU to send, whatever the outcome kind.
    var response: ATTPDU? {
        switch self {
        case .respond(let pdu): pdu
        case .mtuExchanged(let pdu, _): pdu
        case .subscriptionChanged(_, let pdu): pdu
        case .none, .read, .write, .writeWithoutResponse, .confirmationReceived: nil
        }
    }

    var readRequest: GATTReadRequest? {
        if case .read(let request) = self { return request }
        return nil
    }

    var writeRequest: GATTWriteRequest? {
        if case .write(let request) = self { return request }
        return nil
    }
}

/// An Error Response's octets.
func errorResponse(_ opcode: UInt8, _ handle: UInt16, _ code: ATTErrorCode) -> [UInt8] {
    [0x01, opcode, UInt8(handle & 0xFF), UInt8(handle >> 8), code.rawValue]
}
