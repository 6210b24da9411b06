/// The Characteristic Properties bit field of a characteristic declaration (Core 5.4 Vol 3
/// Part G §3.3.1.1, Table 3.5), named as Core Bluetooth names them.
public struct CharacteristicProperties: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01: the value may be broadcast in the Service Data AD type.
    public static let broadcast = CharacteristicProperties(rawValue: 0x01)
    /// 0x02: the value may be read.
    public static let read = CharacteristicProperties(rawValue: 0x02)
    /// 0x04: the value may be written with Write Without Response.
    public static let writeWithoutResponse = CharacteristicProperties(rawValue: 0x04)
    /// 0x08: the value may be written with a Write Request.
    public static let write = CharacteristicProperties(rawValue: 0x08)
    /// 0x10: the value may be notified (a CCCD is present).
    public static let notify = CharacteristicProperties(rawValue: 0x10)
    /// 0x20: the value may be indicated (a CCCD is present).
    public static let indicate = CharacteristicProperties(rawValue: 0x20)
    /// 0x40: the value may be written with Signed Write Without Response.
    public static let authenticatedSignedWrites = CharacteristicProperties(rawValue: 0x40)
    /// 0x80: more properties are in the Characteristic Extended Properties descriptor.
    public static let extendedProperties = CharacteristicProperties(rawValue: 0x80)
}
