import BLE

/// The definitions of the virtual neighbourhood's devices.
enum SampleDevices {
    /// Test company identifier (Assigned Numbers: 0xFFFF is reserved for tests).
    static let testCompany: UInt16 = 0xFFFF

    // MARK: HRS-1

    static let heartRate = BluetoothUUID(0x180D)
    static let battery = BluetoothUUID(0x180F)
    static let deviceInformation = BluetoothUUID(0x180A)

    /// A heart-rate sensor (Heart Rate Service 1.0; Battery Service; Device Information Service).
    static let heartRateSensor = SampleDevice(
        name: "HRS-1", address: BluetoothAddress(0x0000_5E00_5310), position: AirPosition(x: 1),
        appearance: 0x0341,
        services: [
            MutableService(
                uuid: heartRate,
                characteristics: [
                    MutableCharacteristic(uuid: 0x2A37, properties: .notify, permissions: [], value: .dynamic),
                    MutableCharacteristic(
                        uuid: 0x2A38, properties: .read, permissions: .readable, value: .stored([0x01])),
                    MutableCharacteristic(uuid: 0x2A39, properties: .write, permissions: .writeable, value: .dynamic),
                ]),
            MutableService(
                uuid: battery,
                characteristics: [
                    MutableCharacteristic(
                        uuid: 0x2A19, properties: [.read, .notify], permissions: .readable, value: .stored([87]))
                ]),
            MutableService(
                uuid: deviceInformation,
                characteristics: [
                    text(0x2A29, "swift-ble"), text(0x2A24, "HRS-1"), text(0x2A26, "1.0.0"),
                ]),
        ],
        advertisement: AdvertisementData(
            localName: "HRS-1", serviceUUIDs: [heartRate, battery],
            manufacturerData: ManufacturerData(companyIdentifier: testCompany, data: [0x48, 0x52]),
            serviceData: [battery: [87]]),
        // Flags 0x00: an 8-bit heart rate value (Heart Rate Service §3.1).
        updates: [BluetoothUUID(0x2A37): { tick in [0x00, UInt8(70 + tick % 10)] }],
        // Heart Rate Control Point: only 0x01 (Reset Energy Expended) is defined; anything else
        // gets Control Point Not Supported (0x80, Heart Rate Service §3.3.1).
        checkWrite: { uuid, value in
            uuid == BluetoothUUID(0x2A39) && value != [0x01] ? .error(ATTErrorCode(0x80)) : .success
        })

    // MARK: LOG-2

    static let loggerService = logger(0x9C5A_0001)
    static let loggerLog = logger(0x9C5A_0002)
    static let loggerConfiguration = logger(0x9C5A_0003)
    static let loggerCommand = logger(0x9C5A_0004)
    static let loggerEvent = logger(0x9C5A_0005)
    static let loggerSecret = logger(0x9C5A_0006)

    /// The log: 300 octets, longer than one ATT_MTU − 3 of 244, so a read takes Read Blob
    /// requests (Core 5.4 Vol 3 Part G §4.8.3).
    static let logText: [UInt8] = Array(
        (0..<10).map { "entry \($0): temperature 21.\($0) C, ok;\n" }.joined().utf8.prefix(300))

    /// A data logger with a custom 128-bit service; it echoes SDUs on L2CAP PSM 0x0080.
    static let dataLogger = SampleDevice(
        name: "LOG-2", address: BluetoothAddress(0x0000_5E00_5320), position: AirPosition(x: 2),
        services: [
            MutableService(
                uuid: loggerService,
                characteristics: [
                    MutableCharacteristic(
                        uuid: loggerLog, properties: .read, permissions: .readable, value: .stored(logText),
                        descriptors: [.userDescription("Log")]),
                    MutableCharacteristic(
                        uuid: loggerConfiguration, properties: [.read, .write], permissions: [.readable, .writeable],
                        value: .stored([0x01]), descriptors: [.userDescription("Configuration")]),
                    MutableCharacteristic(
                        uuid: loggerCommand, properties: .writeWithoutResponse, permissions: .writeable,
                        value: .dynamic, descriptors: [.userDescription("Command")]),
                    MutableCharacteristic(
                        uuid: loggerEvent, properties: .indicate, permissions: [], value: .dynamic,
                        descriptors: [.userDescription("Event")]),
                    MutableCharacteristic(
                        uuid: loggerSecret, properties: .read, permissions: .readEncryptionRequired,
                        value: .stored([0x42]), descriptors: [.userDescription("Secret")]),
                ])
        ],
        advertisement: AdvertisementData(localName: "LOG-2", serviceUUIDs: [loggerService]),
        // The event counter, little-endian.
        updates: [loggerEvent: { tick in [UInt8(truncatingIfNeeded: tick), UInt8(truncatingIfNeeded: tick >> 8)] }],
        // The configuration is one octet.
        checkWrite: { uuid, value in
            uuid == loggerConfiguration && value.count != 1 ? .error(.invalidAttributeValueLength) : .success
        },
        // `ble l2cap connect 00:00:5E:00:53:20 0x80` has a channel to talk to.
        echoPSM: 0x0080)

    // MARK: TAG-3

    /// A tag with a Battery service only.
    static let tag = SampleDevice(
        name: "TAG-3", address: BluetoothAddress(0x0000_5E00_5330), position: AirPosition(x: 3),
        services: [
            MutableService(
                uuid: battery,
                characteristics: [
                    MutableCharacteristic(
                        uuid: 0x2A19, properties: .read, permissions: .readable, value: .stored([100]))
                ])
        ],
        advertisement: AdvertisementData(
            localName: "TAG-3", manufacturerData: ManufacturerData(companyIdentifier: testCompany, data: [0x03])))

    /// 9C5Axxxx-7A3E-4B8F-9D6C-2F1E0B5A4C3D: the logger's own 128-bit UUIDs.
    private static func logger(_ first: UInt32) -> BluetoothUUID {
        BluetoothUUID(high: UInt64(first) << 32 | 0x7A3E_4B8F, low: 0x9D6C_2F1E_0B5A_4C3D)
    }

    private static func text(_ uuid: UInt16, _ value: String) -> MutableCharacteristic {
        MutableCharacteristic(
            uuid: BluetoothUUID(uuid), properties: .read, permissions: .readable, value: .stored(Array(value.utf8)))
    }
}
