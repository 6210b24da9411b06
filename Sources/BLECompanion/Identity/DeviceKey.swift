import BLE
import BLEWire

/// The MAC address a device states about itself — in its manufacturer specific data or in a
/// protocol message — as opposed to the address it advertises with, which may change.
public typealias DeviceMAC = BluetoothAddress

/// What names one device across address changes, app restarts and new `Peripheral`
/// identifiers: the key of a `KnownDevices` record.
public enum DeviceKey: Hashable, Sendable, CustomStringConvertible {
    /// The MAC address the device puts in its advertising data.
    case mac(DeviceMAC)
    /// Its identity address (Core 5.4 Vol 6 Part B §1.3): public, or random static — both
    /// stay the same for as long as the device keeps them.
    case identityAddress(LEAddress)
    /// Its Identity Resolving Key (Core 5.4 Vol 3 Part H §2.4.2.1), learned by bonding; the
    /// key of a device that advertises with resolvable private addresses.
    case irk([UInt8])

    public var description: String { storageKey }

    /// The text stored in the registry's key column: `mac:…`, `public:…`, `static:…`, `irk:…`.
    public var storageKey: String {
        switch self {
        case .mac(let mac): "mac:\(mac)"
        case .identityAddress(let address):
            address.type.isRandom ? "static:\(address.address)" : "public:\(address.address)"
        case .irk(let key): "irk:" + Hex.string(key)
        }
    }

    /// Parses a stored key; nil when the text is not one.
    public init?(storageKey text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let kind = text[..<colon]
        let rest = text[text.index(after: colon)...]
        switch kind {
        case "mac":
            guard let mac = BluetoothAddress(rest) else { return nil }
            self = .mac(mac)
        case "public":
            guard let address = BluetoothAddress(rest) else { return nil }
            self = .identityAddress(LEAddress(address, type: .public))
        case "static":
            guard let address = BluetoothAddress(rest), address.topBits == 0b11 else { return nil }
            self = .identityAddress(LEAddress(address, type: .random))
        case "irk":
            guard let octets = Hex.bytes(rest), octets.count == 16 else { return nil }
            self = .irk(octets)
        default:
            return nil
        }
    }
}

/// How a device is recognised from what a scan sees: first the MAC in its advertising data
/// (`macExtractor`), else its address when that is an identity address (public or random
/// static, Core 5.4 Vol 6 Part B §1.3). A device advertising with private addresses and no MAC
/// is not recognised (until bonding gives its IRK).
public struct DeviceIdentification: Sendable {
    /// Reads the device's MAC from its advertisement, nil when it carries none.
    public var macExtractor: @Sendable (AdvertisementData) -> DeviceMAC?
    /// Whether a public or random static address identifies a device without a MAC.
    public var usesIdentityAddress: Bool
    /// Scan only for these services when looking for known devices (nil: every advertiser).
    public var scanServices: [BluetoothUUID]?

    public init(
        macExtractor: @escaping @Sendable (AdvertisementData) -> DeviceMAC? = Self.manufacturerDataMAC(),
        usesIdentityAddress: Bool = true, scanServices: [BluetoothUUID]? = nil
    ) {
        self.macExtractor = macExtractor
        self.usesIdentityAddress = usesIdentityAddress
        self.scanServices = scanServices
    }

    /// The octet order of a MAC inside manufacturer data.
    public enum OctetOrder: Sendable, Hashable {
        /// Least significant octet first, as addresses travel in HCI and on air.
        case leastSignificantFirst
        /// Most significant first, as addresses are printed.
        case mostSignificantFirst
    }

    /// The default extractor: manufacturer specific data (CSS Part A §1.4) whose payload after
    /// the company identifier is exactly six octets — the MAC, least significant octet first
    /// unless told otherwise — optionally only from one company.
    public static func manufacturerDataMAC(
        companyIdentifier: UInt16? = nil, order: OctetOrder = .leastSignificantFirst
    ) -> @Sendable (AdvertisementData) -> DeviceMAC? {
        { advertisement in
            guard let data = advertisement.manufacturerData, data.data.count == 6 else { return nil }
            if let companyIdentifier, data.companyIdentifier != companyIdentifier { return nil }
            let octets = order == .leastSignificantFirst ? data.data.reversed() : data.data
            return BluetoothAddress(octets.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }
    }

    /// The key of the device behind an advertisement seen from `address`, nil when it cannot be
    /// told apart from others.
    public func key(for advertisement: AdvertisementData, address: LEAddress) -> DeviceKey? {
        if let mac = macExtractor(advertisement) { return .mac(mac) }
        guard usesIdentityAddress else { return nil }
        switch address.kind {
        case .public: return .identityAddress(LEAddress(address.address, type: .public))
        case .randomStatic: return .identityAddress(LEAddress(address.address, type: .random))
        case .resolvablePrivate, .nonResolvablePrivate, .reservedRandom: return nil
        }
    }

    /// The key of a scan's discovery.
    public func key(for discovery: Discovery) -> DeviceKey? {
        key(for: discovery.advertisementData, address: discovery.peripheral.address)
    }
}
