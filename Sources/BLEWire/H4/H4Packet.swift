/// The HCI packet indicator that precedes every packet on the UART transport
/// (Core 5.4 Vol 4 Part A §2). Any other octet is not a packet start: the stream is corrupt.
public enum H4PacketType: UInt8, Sendable, Hashable, CaseIterable {
    /// HCI Command packet (Vol 4 Part E §5.4.1), host to controller.
    case command = 0x01
    /// HCI ACL Data packet (Vol 4 Part E §5.4.2), both directions.
    case acl = 0x02
    /// HCI Synchronous Data packet (Vol 4 Part E §5.4.3), both directions.
    case sco = 0x03
    /// HCI Event packet (Vol 4 Part E §5.4.4), controller to host.
    case event = 0x04
    /// HCI ISO Data packet (Vol 4 Part E §5.4.5), both directions.
    case iso = 0x05

    /// Octets of the HCI header that follows the packet indicator.
    @inlinable public var headerLength: Int { HCIPacketHeader.length(of: self) }
    /// The largest data length this packet type's length field can declare.
    @inlinable public var maximumDataLength: Int { HCIPacketHeader.maximumDataLength(of: self) }
}

/// Layout of the five HCI packet headers (Core 5.4 Vol 4 Part E §5.4): how many octets each
/// header has and where its length field sits, so a framer can find a packet's end without
/// decoding it.
public enum HCIPacketHeader {
    /// Header octets: command = opcode 2 + length 1; ACL = handle/flags 2 + length 2;
    /// SCO = handle/flags 2 + length 1; event = code 1 + length 1; ISO = handle/flags 2 +
    /// length 2.
    @inlinable
    public static func length(of type: H4PacketType) -> Int {
        switch type {
        case .command: 3
        case .acl: 4
        case .sco: 3
        case .event: 2
        case .iso: 4
        }
    }

    /// The largest data (parameter) length the header can declare: 255 for 8-bit length
    /// fields, 65,535 for ACL, and 16,383 for ISO, whose length field has 14 bits
    /// (Vol 4 Part E §5.4.5).
    @inlinable
    public static func maximumDataLength(of type: H4PacketType) -> Int {
        switch type {
        case .command, .sco, .event: 0xFF
        case .acl: 0xFFFF
        case .iso: 0x3FFF
        }
    }

    /// The specification's name of the header's length field, for error reports.
    @inlinable
    public static func lengthFieldName(of type: H4PacketType) -> StaticString {
        switch type {
        case .command, .event: "Parameter_Total_Length"
        case .acl, .sco: "Data_Total_Length"
        case .iso: "ISO_Data_Load_Length"
        }
    }

    /// Offset of the length field within the header.
    @inlinable
    public static func lengthFieldOffset(of type: H4PacketType) -> Int {
        switch type {
        case .event: 1
        case .command, .sco, .acl, .iso: 2
        }
    }

    /// The data length declared by a header that starts at `start` in `bytes`, or nil when
    /// fewer than `length(of: type)` octets are present. The two RFU bits above an ISO
    /// length are ignored, as receivers must (Vol 4 Part E §5.4.5).
    @inlinable
    public static func declaredDataLength(
        of type: H4PacketType, in bytes: ArraySlice<UInt8>, at start: Int
    ) -> Int? {
        guard start >= bytes.startIndex, bytes.endIndex &- start >= length(of: type) else { return nil }
        return unsafeDeclaredDataLength(of: type, in: bytes, at: start)
    }

    /// The data length declared by a complete header (the caller checked the header is present).
    @inlinable
    static func unsafeDeclaredDataLength(of type: H4PacketType, in bytes: ArraySlice<UInt8>, at start: Int)
        -> Int
    {
        switch type {
        case .command, .sco: return Int(bytes[start &+ 2])
        case .event: return Int(bytes[start &+ 1])
        case .acl: return Int(bytes[start &+ 2]) | Int(bytes[start &+ 3]) << 8
        case .iso: return Int(bytes[start &+ 2]) | Int(bytes[start &+ 3] & 0x3F) << 8
        }
    }
}

/// One packet of the UART transport (Core 5.4 Vol 4 Part A §2): the packet indicator and the
/// HCI packet after it.
///
/// `payload` is the whole HCI packet, header included (`40 00 07 00 …` for an ACL packet), as
/// a slice of the input. Decode it further with `ACLPacket(decoding: packet.payload)`,
/// `HCICommandPacket(decoding:)`, `SCOPacket` or `ISOPacket`. Decoding checks that the
/// header's length field matches the octets present; `init(from:)` reads exactly one packet
/// and leaves whatever follows in the reader.
public struct H4Packet: WireCodable, Hashable, WireRenderable {
    public var type: H4PacketType
    /// The HCI packet without the packet indicator octet.
    public var payload: ArraySlice<UInt8>

    @inlinable
    public init(type: H4PacketType, payload: ArraySlice<UInt8>) {
        self.type = type
        self.payload = payload
    }

    @inlinable
    public init(type: H4PacketType, payload: [UInt8]) {
        self.init(type: type, payload: payload[...])
    }

    /// An HCI command on the transport.
    public init(command: HCICommandPacket) {
        self.init(type: .command, payload: command.encoded[...])
    }

    /// An ACL data packet on the transport.
    public init(acl: ACLPacket) {
        self.init(type: .acl, payload: acl.encoded[...])
    }

    /// A synchronous data packet on the transport.
    public init(sco: SCOPacket) {
        self.init(type: .sco, payload: sco.encoded[...])
    }

    /// An ISO data packet on the transport.
    public init(iso: ISOPacket) {
        self.init(type: .iso, payload: iso.encoded[...])
    }

    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = "H4 packet"
        let indicator = try reader.u8("Packet Type")
        guard let type = H4PacketType(rawValue: indicator) else {
            throw reader.error("Packet Type", .invalidValue(UInt64(indicator)), at: reader.offset &- 1)
        }
        let start = reader.index
        try reader.require(HCIPacketHeader.length(of: type), "HCI packet header")
        let length = HCIPacketHeader.unsafeDeclaredDataLength(of: type, in: reader.bytes, at: start)
        let headerLength = HCIPacketHeader.length(of: type)
        try reader.skip(headerLength, "HCI packet header")
        if reader.remaining < length {
            throw reader.error(
                HCIPacketHeader.lengthFieldName(of: type),
                .lengthMismatch(declared: length, actual: reader.remaining),
                at: reader.offset &- headerLength &+ HCIPacketHeader.lengthFieldOffset(of: type))
        }
        try reader.skip(length, "Data")
        self.type = type
        self.payload = reader.bytes[start..<reader.index]
    }

    @inlinable
    public func encode(into writer: inout ByteWriter) {
        writer.u8(type.rawValue)
        writer.append(payload)
    }
}
