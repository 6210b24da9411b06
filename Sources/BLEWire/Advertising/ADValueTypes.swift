/// The Flags data type's first octet (CSS Part A §1.3; Core 5.4 Vol 3 Part C §9.2, §9.3).
///
/// The CSS lets Flags be zero or more octets, trailing zero octets left out; only the first
/// octet has defined bits, so only it is kept here (later octets stay in the raw structure).
/// As a `WireCodable` value it is that one octet.
public struct ADFlags: OptionSet, Hashable, Sendable, WireCodable, WireRenderable, CustomRendering {
    public let rawValue: UInt8

    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public init(from reader: inout ByteReader) throws(DecodeError) {
        rawValue = try reader.u8("Flags")
    }

    public func encode(into writer: inout ByteWriter) { writer.u8(rawValue) }

    /// LE Limited Discoverable Mode (bit 0).
    public static let leLimitedDiscoverable = ADFlags(rawValue: 1 << 0)
    /// LE General Discoverable Mode (bit 1).
    public static let leGeneralDiscoverable = ADFlags(rawValue: 1 << 1)
    /// BR/EDR Not Supported (bit 2).
    public static let brEdrNotSupported = ADFlags(rawValue: 1 << 2)
    /// Simultaneous LE and BR/EDR to Same Device Capable (Controller) (bit 3).
    public static let simultaneousLEAndBREDRController = ADFlags(rawValue: 1 << 3)
    /// Simultaneous LE and BR/EDR to Same Device Capable (Host) (bit 4; "previously used" in
    /// later CSS versions).
    public static let simultaneousLEAndBREDRHost = ADFlags(rawValue: 1 << 4)

    /// The usual flags of an LE-only peripheral that is generally discoverable (0x06).
    public static let leOnlyGeneralDiscoverable: ADFlags = [.leGeneralDiscoverable, .brEdrNotSupported]

    private static let names: [(ADFlags, String)] = [
        (.leLimitedDiscoverable, "leLimitedDiscoverable"),
        (.leGeneralDiscoverable, "leGeneralDiscoverable"),
        (.brEdrNotSupported, "brEdrNotSupported"),
        (.simultaneousLEAndBREDRController, "simultaneousLEAndBREDRController"),
        (.simultaneousLEAndBREDRHost, "simultaneousLEAndBREDRHost"),
    ]

    /// The set bits by name; reserved bits (5–7) as "reserved(0xE0)".
    public var rendered: RenderedValue {
        var items: [RenderedValue] = []
        for (flag, name) in Self.names where contains(flag) { items.append(.symbol(name)) }
        let reserved = rawValue & 0xE0
        if reserved != 0 { items.append(.symbol("reserved(\(Hex.prefixed(reserved, width: 2)))")) }
        return .array(items)
    }
}

/// The Appearance value (CSS Part A §1.12; Assigned Numbers §2.6): a 10-bit category and a
/// 6-bit subcategory.
public struct ADAppearance: RawRepresentable, Hashable, Sendable, WireCodable, WireRenderable,
    CustomRendering, ExpressibleByIntegerLiteral
{
    public let rawValue: UInt16

    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }

    public init(from reader: inout ByteReader) throws(DecodeError) {
        rawValue = try reader.u16("Appearance")
    }

    public func encode(into writer: inout ByteWriter) { writer.u16(rawValue) }
    @inlinable public init(_ rawValue: UInt16) { self.rawValue = rawValue }
    @inlinable public init(integerLiteral value: UInt16) { self.rawValue = value }

    @inlinable
    public init(category: UInt16, subcategory: UInt8) {
        rawValue = (category & 0x03FF) << 6 | UInt16(subcategory & 0x3F)
    }

    /// Bits 15–6.
    @inlinable public var category: UInt16 { rawValue >> 6 }
    /// Bits 5–0; 0 is the category's generic value.
    @inlinable public var subcategory: UInt8 { UInt8(truncatingIfNeeded: rawValue & 0x3F) }

    /// The Assigned Numbers name of the category ("Heart Rate Sensor"), if known.
    public var categoryName: String? {
        let index = Int(category)
        if index < Self.categoryNames.count {
            let name = Self.categoryNames[index]
            return name.isEmpty ? nil : name
        }
        switch category {
        case 0x031: return "Pulse Oximeter"
        case 0x032: return "Weight Scale"
        case 0x033: return "Personal Mobility Device"
        case 0x034: return "Continuous Glucose Monitor"
        case 0x035: return "Insulin Pump"
        case 0x036: return "Medication Delivery"
        case 0x037: return "Spirometer"
        case 0x051: return "Outdoor Sports Activity"
        default: return nil
        }
    }

    /// Categories 0x000–0x02B of the Assigned Numbers appearance table.
    private static let categoryNames: [String] = [
        "Unknown", "Phone", "Computer", "Watch", "Clock", "Display", "Remote Control",
        "Eye-glasses", "Tag", "Keyring", "Media Player", "Barcode Scanner", "Thermometer",
        "Heart Rate Sensor", "Blood Pressure", "Human Interface Device", "Glucose Meter",
        "Running Walking Sensor", "Cycling", "Control Device", "Network Device", "Sensor",
        "Light Fixtures", "Fan", "HVAC", "Air Conditioning", "Humidifier", "Heating",
        "Access Control", "Motorized Device", "Power Device", "Light Source", "Window Covering",
        "Audio Sink", "Audio Source", "Motorized Vehicle", "Domestic Appliance",
        "Wearable Audio Device", "Aircraft", "AV Equipment", "Display Equipment", "Hearing aid",
        "Gaming", "Signage",
    ]

    /// "0x0341 (Heart Rate Sensor, subcategory 1)".
    public var description: String {
        let hex = Hex.prefixed(rawValue, width: 4)
        guard let name = categoryName else { return hex }
        return subcategory == 0 ? "\(hex) (\(name))" : "\(hex) (\(name), subcategory \(subcategory))"
    }

    public var rendered: RenderedValue { .symbol(description) }
}

/// The LE Role data type (CSS Part A §1.17). Values 0x04–0xFF are reserved; they are kept, not
/// rejected, because the CSS does not say the data is then invalid.
public enum ADLERole: Hashable, Sendable, WireCodable, WireRenderable, CustomRendering {
    /// 0x00: only the Peripheral role is supported.
    case peripheralOnly
    /// 0x01: only the Central role is supported.
    case centralOnly
    /// 0x02: both roles, Peripheral preferred for connection establishment.
    case bothPeripheralPreferred
    /// 0x03: both roles, Central preferred for connection establishment.
    case bothCentralPreferred
    case reserved(UInt8)

    public init(rawValue: UInt8) {
        switch rawValue {
        case 0x00: self = .peripheralOnly
        case 0x01: self = .centralOnly
        case 0x02: self = .bothPeripheralPreferred
        case 0x03: self = .bothCentralPreferred
        default: self = .reserved(rawValue)
        }
    }

    public init(from reader: inout ByteReader) throws(DecodeError) {
        self.init(rawValue: try reader.u8("LE Role"))
    }

    public func encode(into writer: inout ByteWriter) { writer.u8(rawValue) }

    public var rawValue: UInt8 {
        switch self {
        case .peripheralOnly: 0x00
        case .centralOnly: 0x01
        case .bothPeripheralPreferred: 0x02
        case .bothCentralPreferred: 0x03
        case .reserved(let value): value
        }
    }

    public var rendered: RenderedValue {
        switch self {
        case .peripheralOnly: .symbol("peripheralOnly")
        case .centralOnly: .symbol("centralOnly")
        case .bothPeripheralPreferred: .symbol("bothPeripheralPreferred")
        case .bothCentralPreferred: .symbol("bothCentralPreferred")
        case .reserved(let value): .symbol("reserved(\(Hex.prefixed(value, width: 2)))")
        }
    }
}
