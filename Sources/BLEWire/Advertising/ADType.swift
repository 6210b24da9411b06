/// The type octet of an AD structure: a Common Data Type from the Assigned Numbers (§2.3),
/// whose formats the Core Specification Supplement (CSS) Part A defines
/// (Core 5.4 Vol 3 Part C §11).
///
/// A struct rather than an enum so that every octet is representable: a type this version does
/// not name is carried as it arrived and renders as "Unknown AD Type (0xNN)".
public struct ADType: RawRepresentable, Hashable, Sendable, Comparable, WireCodable, WireRenderable,
    CustomRendering, ExpressibleByIntegerLiteral
{
    public let rawValue: UInt8

    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt8) { self.rawValue = rawValue }
    @inlinable public init(integerLiteral value: UInt8) { self.rawValue = value }

    /// Flags (CSS Part A §1.3).
    public static let flags = ADType(0x01)
    /// Incomplete List of 16-bit Service or Service Class UUIDs (CSS Part A §1.1).
    public static let incompleteServiceUUIDs16 = ADType(0x02)
    /// Complete List of 16-bit Service or Service Class UUIDs (CSS Part A §1.1).
    public static let completeServiceUUIDs16 = ADType(0x03)
    /// Incomplete List of 32-bit Service or Service Class UUIDs (CSS Part A §1.1).
    public static let incompleteServiceUUIDs32 = ADType(0x04)
    /// Complete List of 32-bit Service or Service Class UUIDs (CSS Part A §1.1).
    public static let completeServiceUUIDs32 = ADType(0x05)
    /// Incomplete List of 128-bit Service or Service Class UUIDs (CSS Part A §1.1).
    public static let incompleteServiceUUIDs128 = ADType(0x06)
    /// Complete List of 128-bit Service or Service Class UUIDs (CSS Part A §1.1).
    public static let completeServiceUUIDs128 = ADType(0x07)
    /// Shortened Local Name (CSS Part A §1.2).
    public static let shortenedLocalName = ADType(0x08)
    /// Complete Local Name (CSS Part A §1.2).
    public static let completeLocalName = ADType(0x09)
    /// Tx Power Level (CSS Part A §1.5).
    public static let txPowerLevel = ADType(0x0A)
    /// Class of Device (CSS Part A §1.6).
    public static let classOfDevice = ADType(0x0D)
    /// Simple Pairing Hash C-192 (CSS Part A §1.6).
    public static let simplePairingHashC192 = ADType(0x0E)
    /// Simple Pairing Randomizer R-192 (CSS Part A §1.6).
    public static let simplePairingRandomizerR192 = ADType(0x0F)
    /// Device ID (Device ID Profile); the same code as `securityManagerTKValue`.
    public static let deviceID = ADType(0x10)
    /// Security Manager TK Value (CSS Part A §1.8); the same code as `deviceID`.
    public static let securityManagerTKValue = ADType(0x10)
    /// Security Manager Out of Band Flags (CSS Part A §1.7).
    public static let securityManagerOOBFlags = ADType(0x11)
    /// Peripheral Connection Interval Range (CSS Part A §1.9).
    public static let peripheralConnectionIntervalRange = ADType(0x12)
    /// List of 16-bit Service Solicitation UUIDs (CSS Part A §1.10).
    public static let solicitedServiceUUIDs16 = ADType(0x14)
    /// List of 128-bit Service Solicitation UUIDs (CSS Part A §1.10).
    public static let solicitedServiceUUIDs128 = ADType(0x15)
    /// Service Data - 16-bit UUID (CSS Part A §1.11).
    public static let serviceData16 = ADType(0x16)
    /// Public Target Address (CSS Part A §1.13).
    public static let publicTargetAddress = ADType(0x17)
    /// Random Target Address (CSS Part A §1.14).
    public static let randomTargetAddress = ADType(0x18)
    /// Appearance (CSS Part A §1.12).
    public static let appearance = ADType(0x19)
    /// Advertising Interval (CSS Part A §1.15).
    public static let advertisingInterval = ADType(0x1A)
    /// LE Bluetooth Device Address (CSS Part A §1.16).
    public static let leBluetoothDeviceAddress = ADType(0x1B)
    /// LE Role (CSS Part A §1.17).
    public static let leRole = ADType(0x1C)
    /// Simple Pairing Hash C-256 (CSS Part A §1.6).
    public static let simplePairingHashC256 = ADType(0x1D)
    /// Simple Pairing Randomizer R-256 (CSS Part A §1.6).
    public static let simplePairingRandomizerR256 = ADType(0x1E)
    /// List of 32-bit Service Solicitation UUIDs (CSS Part A §1.10).
    public static let solicitedServiceUUIDs32 = ADType(0x1F)
    /// Service Data - 32-bit UUID (CSS Part A §1.11).
    public static let serviceData32 = ADType(0x20)
    /// Service Data - 128-bit UUID (CSS Part A §1.11).
    public static let serviceData128 = ADType(0x21)
    /// LE Secure Connections Confirmation Value (CSS Part A §1.6).
    public static let leSecureConnectionsConfirmationValue = ADType(0x22)
    /// LE Secure Connections Random Value (CSS Part A §1.6).
    public static let leSecureConnectionsRandomValue = ADType(0x23)
    /// URI (CSS Part A §1.18).
    public static let uri = ADType(0x24)
    /// Indoor Positioning (Indoor Positioning Service).
    public static let indoorPositioning = ADType(0x25)
    /// Transport Discovery Data (Transport Discovery Service).
    public static let transportDiscoveryData = ADType(0x26)
    /// LE Supported Features (CSS Part A §1.19).
    public static let leSupportedFeatures = ADType(0x27)
    /// Channel Map Update Indication (CSS Part A §1.20).
    public static let channelMapUpdateIndication = ADType(0x28)
    /// PB-ADV (Mesh Protocol §3.3.2).
    public static let pbADV = ADType(0x29)
    /// Mesh Message (Mesh Protocol §3.3.1).
    public static let meshMessage = ADType(0x2A)
    /// Mesh Beacon (Mesh Protocol §3.10).
    public static let meshBeacon = ADType(0x2B)
    /// BIGInfo (CSS Part A §1.21).
    public static let bigInfo = ADType(0x2C)
    /// Broadcast_Code (CSS Part A §1.22).
    public static let broadcastCode = ADType(0x2D)
    /// Resolvable Set Identifier (Coordinated Set Identification Profile).
    public static let resolvableSetIdentifier = ADType(0x2E)
    /// Advertising Interval - long (CSS Part A §1.15).
    public static let advertisingIntervalLong = ADType(0x2F)
    /// Broadcast_Name (Public Broadcast Profile).
    public static let broadcastName = ADType(0x30)
    /// Encrypted Advertising Data (CSS Part A §1.23).
    public static let encryptedAdvertisingData = ADType(0x31)
    /// Periodic Advertising Response Timing Information (CSS Part A §1.24).
    public static let periodicAdvertisingResponseTimingInformation = ADType(0x32)
    /// Electronic Shelf Label (Electronic Shelf Label Profile).
    public static let electronicShelfLabel = ADType(0x34)
    /// 3D Information Data (3D Synchronization Profile).
    public static let threeDInformationData = ADType(0x3D)
    /// Manufacturer Specific Data (CSS Part A §1.4).
    public static let manufacturerSpecificData = ADType(0xFF)

    /// The Assigned Numbers name, or nil for a code this version does not know.
    public var name: String? {
        switch rawValue {
        case 0x01: "Flags"
        case 0x02: "Incomplete List of 16-bit Service UUIDs"
        case 0x03: "Complete List of 16-bit Service UUIDs"
        case 0x04: "Incomplete List of 32-bit Service UUIDs"
        case 0x05: "Complete List of 32-bit Service UUIDs"
        case 0x06: "Incomplete List of 128-bit Service UUIDs"
        case 0x07: "Complete List of 128-bit Service UUIDs"
        case 0x08: "Shortened Local Name"
        case 0x09: "Complete Local Name"
        case 0x0A: "Tx Power Level"
        case 0x0D: "Class of Device"
        case 0x0E: "Simple Pairing Hash C-192"
        case 0x0F: "Simple Pairing Randomizer R-192"
        case 0x10: "Device ID / Security Manager TK Value"
        case 0x11: "Security Manager Out of Band Flags"
        case 0x12: "Peripheral Connection Interval Range"
        case 0x14: "List of 16-bit Service Solicitation UUIDs"
        case 0x15: "List of 128-bit Service Solicitation UUIDs"
        case 0x16: "Service Data - 16-bit UUID"
        case 0x17: "Public Target Address"
        case 0x18: "Random Target Address"
        case 0x19: "Appearance"
        case 0x1A: "Advertising Interval"
        case 0x1B: "LE Bluetooth Device Address"
        case 0x1C: "LE Role"
        case 0x1D: "Simple Pairing Hash C-256"
        case 0x1E: "Simple Pairing Randomizer R-256"
        case 0x1F: "List of 32-bit Service Solicitation UUIDs"
        case 0x20: "Service Data - 32-bit UUID"
        case 0x21: "Service Data - 128-bit UUID"
        case 0x22: "LE Secure Connections Confirmation Value"
        case 0x23: "LE Secure Connections Random Value"
        case 0x24: "URI"
        case 0x25: "Indoor Positioning"
        case 0x26: "Transport Discovery Data"
        case 0x27: "LE Supported Features"
        case 0x28: "Channel Map Update Indication"
        case 0x29: "PB-ADV"
        case 0x2A: "Mesh Message"
        case 0x2B: "Mesh Beacon"
        case 0x2C: "BIGInfo"
        case 0x2D: "Broadcast_Code"
        case 0x2E: "Resolvable Set Identifier"
        case 0x2F: "Advertising Interval - long"
        case 0x30: "Broadcast_Name"
        case 0x31: "Encrypted Advertising Data"
        case 0x32: "Periodic Advertising Response Timing Information"
        case 0x34: "Electronic Shelf Label"
        case 0x3D: "3D Information Data"
        case 0xFF: "Manufacturer Specific Data"
        default: nil
        }
    }

    /// "Complete Local Name (0x09)"; "Unknown AD Type (0x99)" for a code without a name.
    public var description: String {
        "\(name ?? "Unknown AD Type") (\(Hex.prefixed(rawValue, width: 2)))"
    }

    public var rendered: RenderedValue { .symbol(description) }

    public init(from reader: inout ByteReader) throws(DecodeError) {
        rawValue = try reader.u8("AD Type")
    }

    public func encode(into writer: inout ByteWriter) { writer.u8(rawValue) }

    public static func < (lhs: ADType, rhs: ADType) -> Bool { lhs.rawValue < rhs.rawValue }
}
