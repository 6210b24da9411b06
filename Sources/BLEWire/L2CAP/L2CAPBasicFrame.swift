/// An L2CAP channel identifier (Core 5.4 Vol 3 Part A §2.1, Table 2.3 for LE-U): the local
/// name of a channel endpoint. Fixed channels have assigned values; dynamic channels are
/// allocated by the signaling procedures.
public struct L2CAPChannelID: RawRepresentable, Hashable, Sendable, CustomStringConvertible, CustomRendering {
    public let rawValue: UInt16

    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// The null identifier; never used as a destination.
    public static let null = L2CAPChannelID(0x0000)
    /// L2CAP signaling channel on ACL-U (BR/EDR).
    public static let signaling = L2CAPChannelID(0x0001)
    /// Connectionless channel on ACL-U (BR/EDR).
    public static let connectionless = L2CAPChannelID(0x0002)
    /// Attribute protocol (LE-U).
    public static let att = L2CAPChannelID(0x0004)
    /// LE L2CAP signaling channel.
    public static let leSignaling = L2CAPChannelID(0x0005)
    /// Security Manager protocol (LE-U).
    public static let smp = L2CAPChannelID(0x0006)
    /// BR/EDR Security Manager.
    public static let brEdrSecurityManager = L2CAPChannelID(0x0007)

    /// Channel identifiers an LE device allocates for connection-oriented channels (Table 2.3).
    public static let leDynamicRange: ClosedRange<UInt16> = 0x0040...0x007F

    /// True for an identifier in the LE dynamic range.
    @inlinable public var isLEDynamic: Bool { Self.leDynamicRange.contains(rawValue) }

    /// The fixed channel's name, or nil for a dynamic or reserved identifier.
    public var name: String? {
        switch rawValue {
        case 0x0000: "Null"
        case 0x0001: "L2CAP Signaling"
        case 0x0002: "Connectionless"
        case 0x0004: "ATT"
        case 0x0005: "LE Signaling"
        case 0x0006: "SMP"
        case 0x0007: "BR/EDR Security Manager"
        default: nil
        }
    }

    public var description: String {
        let number = Hex.prefixed(rawValue, width: 4)
        if let name { return "\(name) (\(number))" }
        return isLEDynamic ? "Dynamic (\(number))" : number
    }

    public var rendered: RenderedValue { .symbol(description) }
}

/// An L2CAP basic information frame, B-frame (Core 5.4 Vol 3 Part A §3.1): the PDU of basic
/// mode and of the LE fixed channels (ATT, SMP, LE signaling).
///
/// Wire form: Length (u16, octets of the information payload), Channel ID (u16), Information
/// payload. The length must equal the octets present; `payload` is a slice of the input.
public struct L2CAPBasicFrame: WireCodable, Hashable, WireRenderable {
    public var channelID: L2CAPChannelID
    public var payload: ArraySlice<UInt8>

    /// Octets of the basic L2CAP header (Length and Channel ID).
    public static let headerLength = 4
    /// The largest information payload the 16-bit Length field can carry.
    public static let maximumPayloadLength = 0xFFFF

    @inlinable
    public init(channelID: L2CAPChannelID, payload: ArraySlice<UInt8>) {
        self.channelID = channelID
        self.payload = payload
    }

    @inlinable
    public init(channelID: L2CAPChannelID, payload: [UInt8]) {
        self.init(channelID: channelID, payload: payload[...])
    }

    @inlinable
    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = "L2CAP Basic Frame"
        let length = Int(try reader.u16("Length"))
        channelID = L2CAPChannelID(try reader.u16("Channel ID"))
        if reader.remaining != length {
            throw reader.error(
                "Length", .lengthMismatch(declared: length, actual: reader.remaining), at: reader.offset &- 4)
        }
        payload = reader.rest()
    }

    /// Writes the frame; a payload longer than 65,535 octets is a caller error.
    @inlinable
    public func encode(into writer: inout ByteWriter) {
        writer.u16(UInt16(truncatingIfNeeded: payload.count))
        writer.u16(channelID.rawValue)
        writer.append(payload)
    }

    /// Octets of the frame on the wire.
    @inlinable public var encodedLength: Int { Self.headerLength &+ payload.count }
}
