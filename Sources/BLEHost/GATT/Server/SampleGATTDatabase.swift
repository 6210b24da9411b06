import BLEWire

/// The database the GATT server's tests (Tests/BLEHostTests/GATTServer) and the `gatt-server`
/// fuzz target run against: GAP, GATT, Heart Rate, Battery (read, notify, a presentation
/// format), a custom 128-bit service (a long value with reliable writes and a user description,
/// an authenticated signed-write value; includes Battery and the secondary service) and a
/// secondary service. One definition, so what the tests pin by handle is what fuzzing explores.
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
package enum SampleGATTDatabase {
    package static let customServiceUUID = BluetoothUUID(high: 0x6E40_0001_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E)
    package static let longValueUUID = BluetoothUUID(high: 0x6E40_0002_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E)
    package static let signedWriteUUID = BluetoothUUID(high: 0x6E40_0003_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E)
    package static let secondaryServiceUUID = BluetoothUUID(high: 0x6E40_0010_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E)

    /// 100 octets 0x00, 0x01, … 0x63.
    package static let longValue: [UInt8] = (0..<100).map { UInt8($0) }

    package static let gap = GAPServiceConfiguration(deviceName: "swift-ble test", appearance: 0x0340)

    package static let heartRate = GATTService(
        uuid: 0x180D,
        characteristics: [
            GATTCharacteristic(uuid: 0x2A37, properties: .notify, permissions: [], value: .dynamic),
            GATTCharacteristic(uuid: 0x2A38, properties: .read, permissions: .readable, value: .stored([0x01])),
            GATTCharacteristic(uuid: 0x2A39, properties: .write, permissions: .writeable, value: .dynamic),
        ])

    package static let battery = GATTService(
        uuid: 0x180F,
        characteristics: [
            GATTCharacteristic(
                uuid: 0x2A19, properties: [.read, .notify], permissions: .readable, value: .stored([100]),
                descriptors: [.presentationFormat(format: 0x04, unit: 0x27AD)])
        ])

    package static let secondary = GATTService(
        uuid: secondaryServiceUUID, isPrimary: false,
        characteristics: [
            GATTCharacteristic(
                uuid: 0x2A2B, properties: .read, permissions: .readable,
                value: .stored([0xE8, 0x07, 0x05, 0x11, 0x0C, 0x1E, 0x00, 0x05, 0x00, 0x00]))
        ])

    package static let custom = GATTService(
        uuid: customServiceUUID, includedServices: [battery, secondary],
        characteristics: [
            GATTCharacteristic(
                uuid: longValueUUID, properties: [.read, .write],
                extendedProperties: [.reliableWrite, .writableAuxiliaries], permissions: [.readable, .writeable],
                value: .stored(longValue), descriptors: [.userDescription("Long value")]),
            GATTCharacteristic(
                uuid: signedWriteUUID, properties: [.writeWithoutResponse, .authenticatedSignedWrites],
                permissions: .writeable, value: .dynamic),
        ])

    /// The services after GAP and GATT, in handle order.
    package static let services = [heartRate, battery, custom, secondary]

    package static func database() throws(AttributeDatabaseError) -> AttributeDatabase {
        try AttributeDatabase(gap: gap, services: services)
    }
}
