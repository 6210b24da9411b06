import BLEWire

/// Where an attribute's value comes from.
public enum GATTValue: Hashable, Sendable {
    /// Kept by the server and answered without asking the application. A successful write
    /// (which the application still approves) replaces it.
    case stored([UInt8])
    /// Produced by the application for each read (`GATTServerOutcome.read`), as Core
    /// Bluetooth does for a characteristic created with a nil value.
    case dynamic
}

/// A service to publish (Core 5.4 Vol 3 Part G §3.1), Core Bluetooth's `CBMutableService`.
///
/// A value: `includedServices` names other services by value; each must equal a service of the
/// same database (the first equal one is included, §3.2).
public struct GATTService: Hashable, Sendable {
    public var uuid: BluetoothUUID
    /// Primary (discoverable, «Primary Service» 0x2800) or secondary (only reachable through an
    /// include, «Secondary Service» 0x2801).
    public var isPrimary: Bool
    public var includedServices: [GATTService]
    public var characteristics: [GATTCharacteristic]

    public init(
        uuid: BluetoothUUID, isPrimary: Bool = true, includedServices: [GATTService] = [],
        characteristics: [GATTCharacteristic] = []
    ) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.includedServices = includedServices
        self.characteristics = characteristics
    }
}

/// A characteristic to publish (Core 5.4 Vol 3 Part G §3.3), Core Bluetooth's
/// `CBMutableCharacteristic`.
///
/// The database adds a Client Characteristic Configuration descriptor (0x2902, one value per
/// connection) when `properties` holds `notify` or `indicate`, and a Characteristic Extended
/// Properties descriptor (0x2900) when `extendedProperties` is set or `properties` holds
/// `extendedProperties` (then the 0x80 bit is set in the declaration, §3.3.1.1).
public struct GATTCharacteristic: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var properties: CharacteristicProperties
    /// Nil: no Extended Properties descriptor (unless `properties` asks for one, then empty).
    public var extendedProperties: CharacteristicExtendedProperties?
    public var permissions: AttributePermissions
    public var value: GATTValue
    /// Descriptors other than the two the database generates (0x2900 and 0x2902 are refused).
    public var descriptors: [GATTDescriptor]

    public init(
        uuid: BluetoothUUID, properties: CharacteristicProperties,
        extendedProperties: CharacteristicExtendedProperties? = nil, permissions: AttributePermissions,
        value: GATTValue = .dynamic, descriptors: [GATTDescriptor] = []
    ) {
        self.uuid = uuid
        self.properties = properties
        self.extendedProperties = extendedProperties
        self.permissions = permissions
        self.value = value
        self.descriptors = descriptors
    }

    /// Whether the Extended Properties descriptor is generated.
    var hasExtendedPropertiesDescriptor: Bool {
        extendedProperties != nil || properties.contains(.extendedProperties)
    }

    /// Whether the Client Characteristic Configuration descriptor is generated.
    var hasClientConfiguration: Bool {
        !properties.isDisjoint(with: .subscribable)
    }

    /// The properties of the characteristic declaration (§3.3.1.1): an encryption-required
    /// subscription declares `notify` / `indicate` (and keeps its own bit for the server).
    var declaredProperties: CharacteristicProperties {
        var declared = hasExtendedPropertiesDescriptor ? properties.union(.extendedProperties) : properties
        if declared.contains(.notifyEncryptionRequired) { declared.insert(.notify) }
        if declared.contains(.indicateEncryptionRequired) { declared.insert(.indicate) }
        return declared
    }
}

/// A characteristic descriptor to publish (Core 5.4 Vol 3 Part G §3.3.3), Core Bluetooth's
/// `CBMutableDescriptor` (which allows the user description and presentation format; any other
/// type is accepted here too).
public struct GATTDescriptor: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var permissions: AttributePermissions
    public var value: GATTValue

    public init(uuid: BluetoothUUID, permissions: AttributePermissions = .readable, value: GATTValue) {
        self.uuid = uuid
        self.permissions = permissions
        self.value = value
    }

    /// A Characteristic User Description (0x2901, §3.3.3.2): UTF-8 text. Made writable by the
    /// database when the characteristic has the `writableAuxiliaries` extended property.
    public static func userDescription(_ text: String) -> GATTDescriptor {
        GATTDescriptor(uuid: GATTAttributeType.characteristicUserDescription, value: .stored(Array(text.utf8)))
    }

    /// A Characteristic Presentation Format (0x2904, §3.3.3.5): seven octets.
    public static func presentationFormat(
        format: UInt8, exponent: Int8 = 0, unit: UInt16, namespace: UInt8 = 0x01, description: UInt16 = 0
    ) -> GATTDescriptor {
        var writer = ByteWriter(capacity: 7)
        writer.u8(format)
        writer.i8(exponent)
        writer.u16(unit)
        writer.u8(namespace)
        writer.u16(description)
        return GATTDescriptor(uuid: GATTAttributeType.characteristicPresentationFormat, value: .stored(writer.bytes))
    }
}

/// The GAP service every server exposes (Core 5.4 Vol 3 Part C §12): Device Name (0x2A00,
/// §12.1) and Appearance (0x2A01, §12.2).
public struct GAPServiceConfiguration: Hashable, Sendable {
    public var deviceName: String
    /// Appearance value from the Assigned Numbers (0x0000: unknown).
    public var appearance: UInt16
    /// Lets clients write the Device Name (writes reach the application, §12.1).
    public var deviceNameWritable: Bool

    public init(deviceName: String = "swift-ble", appearance: UInt16 = 0, deviceNameWritable: Bool = false) {
        self.deviceName = deviceName
        self.appearance = appearance
        self.deviceNameWritable = deviceNameWritable
    }

    /// The longest Device Name value, in octets of UTF-8 (§12.1).
    public static let maximumDeviceNameLength = 248

    /// The Device Name characteristic value: the name's UTF-8, cut to 248 octets (§12.1) on a
    /// character boundary — never inside a character, which would leave invalid UTF-8 or half
    /// of a combined character.
    public var deviceNameValue: [UInt8] {
        let limit = Self.maximumDeviceNameLength
        guard deviceName.utf8.count > limit else { return Array(deviceName.utf8) }
        var value: [UInt8] = []
        value.reserveCapacity(limit)
        for character in deviceName {
            let octets = character.utf8
            guard value.count + octets.count <= limit else { break }
            value += octets
        }
        return value
    }
}

/// Attribute types GATT defines (Core 5.4 Vol 3 Part G §3; Assigned Numbers §3.5–§3.8).
public enum GATTAttributeType {
    public static let primaryService: BluetoothUUID = 0x2800
    public static let secondaryService: BluetoothUUID = 0x2801
    public static let include: BluetoothUUID = 0x2802
    public static let characteristic: BluetoothUUID = 0x2803
    public static let characteristicExtendedProperties: BluetoothUUID = 0x2900
    public static let characteristicUserDescription: BluetoothUUID = 0x2901
    public static let clientCharacteristicConfiguration: BluetoothUUID = 0x2902
    public static let serverCharacteristicConfiguration: BluetoothUUID = 0x2903
    public static let characteristicPresentationFormat: BluetoothUUID = 0x2904
    public static let characteristicAggregateFormat: BluetoothUUID = 0x2905

    public static let gapService: BluetoothUUID = 0x1800
    public static let gattService: BluetoothUUID = 0x1801
    public static let deviceName: BluetoothUUID = 0x2A00
    public static let appearance: BluetoothUUID = 0x2A01
    public static let serviceChanged: BluetoothUUID = 0x2A05
    public static let clientSupportedFeatures: BluetoothUUID = 0x2B29
    public static let databaseHash: BluetoothUUID = 0x2B2A
}
