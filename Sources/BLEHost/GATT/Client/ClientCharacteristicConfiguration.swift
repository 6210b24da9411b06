/// The value of a Client Characteristic Configuration descriptor (Core 5.4 Vol 3 Part G
/// §3.3.3.3, Table 3.11): which server-initiated updates this client wants.
/// `[]` (0x0000) turns both off.
public struct ClientCharacteristicConfiguration: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 0x0001: the value is sent in Handle Value Notifications.
    public static let notifications = ClientCharacteristicConfiguration(rawValue: 0x0001)
    /// 0x0002: the value is sent in Handle Value Indications.
    public static let indications = ClientCharacteristicConfiguration(rawValue: 0x0002)

    /// The descriptor's 16-bit UUID (Assigned Numbers).
    public static let uuid: UInt16 = 0x2902

    /// The two octets written to the descriptor, little-endian.
    public var octets: [UInt8] { [UInt8(truncatingIfNeeded: rawValue), UInt8(truncatingIfNeeded: rawValue >> 8)] }
}
