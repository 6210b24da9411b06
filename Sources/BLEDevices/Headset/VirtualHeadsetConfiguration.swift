import BLE
import BLECompanion

/// What a virtual headset is and does: its name and MAC address, its firmware store, the
/// events it generates, its heartbeat, and the faults it injects into incoming OTA packets.
public struct VirtualHeadsetConfiguration: Sendable {
    /// The local name it advertises (in the scan response: the advertising PDU is full).
    public var name: String
    /// The MAC address it advertises in manufacturer specific data and reports (`08`). On the
    /// virtual radio it is also the controller's public address.
    public var macAddress: BluetoothAddress
    /// The image in slot A on first use of the flash.
    public var factoryImage: FirmwareImage
    public var flash: FirmwareFlash.Configuration
    /// Percent, 0…100; below `flash.minimumBatteryLevel` an update is refused.
    public var batteryLevel: Int
    /// The heartbeat tick's period (nil: none until the app sets one with `88`).
    public var heartbeatPeriod: Duration?
    /// Gestures and sensor events sent to subscribed apps.
    public var events: HeadsetEventSource
    /// The chance that an incoming OTA data packet is faulted (half dropped, half corrupted).
    public var faultRate: Double
    /// Seeds the fault injection and random events, so runs repeat exactly.
    public var seed: UInt64
    /// OTA start is refused (`authenticationRequired`) unless the phone's link is encrypted with
    /// an authenticated key: a device that lets only its paired owner flash it.
    public var otaRequiresAuthentication = false
    /// Connection parameters the headset asks its central for once connected (Core 5.4 Vol 3
    /// Part A §4.20, Vol 6 Part B §5.1.7), as wearables do to save power while they only send a
    /// heartbeat; nil keeps what the central chose. Apple's Accessory Design Guidelines
    /// (Bluetooth LE, "Connection Parameters") bound what an iPhone accepts: interval max ×
    /// (latency + 1) ≤ 2 s, interval min ≥ 15 ms, min + 15 ms ≤ max, timeout ≤ 6 s.
    public var preferredConnectionParameters: ConnectionParameters?

    public init(
        name: String = "HEADSET", macAddress: BluetoothAddress = BluetoothAddress(0x0000_5E00_5340),
        factoryImage: FirmwareImage = VirtualHeadsetConfiguration.defaultFactoryImage,
        flash: FirmwareFlash.Configuration = .init(), batteryLevel: Int = 80, heartbeatPeriod: Duration? = .seconds(1),
        events: HeadsetEventSource = .none, faultRate: Double = 0, seed: UInt64 = 1
    ) {
        self.name = name
        self.macAddress = macAddress
        self.factoryImage = factoryImage
        self.flash = flash
        self.batteryLevel = batteryLevel
        self.heartbeatPeriod = heartbeatPeriod
        self.events = events
        self.faultRate = faultRate
        self.seed = seed
    }

    /// A small factory image, version 1.0.0.
    public static let defaultFactoryImage: FirmwareImage = {
        let bytes = Array("swift-ble virtual headset firmware 1.0.0\n".utf8)
        // A literal version and non-empty bytes: cannot fail.
        guard let image = try? FirmwareImage(bytes: bytes, version: FirmwareVersion(major: 1, minor: 0, patch: 0))
        else { preconditionFailure("the factory image is valid") }
        return image
    }()

    /// About a second between connection events (975–990 ms, no latency, 6 s timeout): within
    /// Apple's bounds, for a headset that sends one heartbeat a second.
    public static let heartbeatConnectionParameters = ConnectionParameters(
        connectionIntervalMin: 780, connectionIntervalMax: 792, maxLatency: 0, supervisionTimeout: 600)

    /// The test company identifier its manufacturer data carries (Assigned Numbers: 0xFFFF is
    /// reserved for tests).
    public static let companyIdentifier: UInt16 = 0xFFFF

    /// Manufacturer specific data: the MAC address, least significant octet first (as in the
    /// protocol's `08` message). See docs/headset-protocol.md, "Advertising".
    public static func manufacturerData(for address: BluetoothAddress) -> ManufacturerData {
        ManufacturerData(companyIdentifier: companyIdentifier, data: Array(address.octets.reversed()))
    }

    /// The MAC address in a headset's manufacturer data, or nil when the data is not a headset's.
    public static func macAddress(in data: ManufacturerData?) -> BluetoothAddress? {
        guard let data, data.companyIdentifier == companyIdentifier, data.data.count == 6 else { return nil }
        return BluetoothAddress(data.data.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    /// What the headset advertises: its name, the headset service and its MAC address.
    public var advertisement: AdvertisementData {
        var advertisement = AdvertisementData(
            localName: name, serviceUUIDs: [HeadsetProtocol.serviceUUID],
            manufacturerData: Self.manufacturerData(for: macAddress))
        // Flags (3), the 128-bit service (18) and the MAC (10) fill the PDU's 31 octets.
        advertisement.localNameInScanResponse = true
        return advertisement
    }
}

/// Where a headset's gestures and sensor events come from.
public enum HeadsetEventSource: Sendable {
    /// None.
    case none
    /// These messages, each after its delay from the previous one (from the start), once.
    case scripted([ScriptedHeadsetEvent])
    /// A random gesture, proximity, audio jack, volume or battery event every `interval` on
    /// average, drawn from the headset's seed.
    case random(meanInterval: Duration)
}

/// One event of a script.
public struct ScriptedHeadsetEvent: Sendable, Hashable {
    /// Time since the previous event (or the start).
    public var delay: Duration
    public var message: HeadsetDeviceMessage

    public init(after delay: Duration, _ message: HeadsetDeviceMessage) {
        self.delay = delay
        self.message = message
    }
}

