/// Packet_Boundary_Flag of an HCI ACL Data packet (Core 5.4 Vol 4 Part E §5.4.2): where the
/// fragment sits in its higher-layer (L2CAP) PDU.
public enum ACLPacketBoundary: UInt8, Sendable, Hashable, CaseIterable {
    /// First fragment of a non-automatically-flushable PDU; what an LE host sends.
    case firstNonFlushable = 0b00
    /// A continuing fragment.
    case continuing = 0b01
    /// First fragment of an automatically flushable PDU; what an LE controller delivers.
    case firstFlushable = 0b10
    /// A complete, automatically flushable PDU. Not used on LE (kept representable; a
    /// reassembler treats it as a start fragment).
    case complete = 0b11

    /// True for every flag that begins a PDU.
    @inlinable public var isStart: Bool { self != .continuing }
}

/// Broadcast_Flag of an HCI ACL Data packet (Core 5.4 Vol 4 Part E §5.4.2). LE uses only
/// point-to-point; the reserved values are kept as received.
public enum ACLBroadcastFlag: UInt8, Sendable, Hashable, CaseIterable {
    /// Point-to-point (ACL-U or LE-U).
    case pointToPoint = 0b00
    /// BR/EDR broadcast (APB-U).
    case brEdrBroadcast = 0b01
    /// Reserved for future use.
    case reserved2 = 0b10
    /// Reserved for future use.
    case reserved3 = 0b11
}

/// An HCI ACL Data packet (Core 5.4 Vol 4 Part E §5.4.2): a fragment of an L2CAP PDU on one
/// connection.
///
/// Wire form: Handle (12 bits) | PB_Flag (2) | BC_Flag (2), Data_Total_Length (u16), Data.
/// The length must equal the octets present; `data` is a slice of the input.
public struct ACLPacket: WireCodable, Hashable, WireRenderable {
    /// Connection_Handle, 12 bits (0x0000–0x0EFF are valid; the rest is kept as received).
    public var handle: ConnectionHandle
    public var packetBoundary: ACLPacketBoundary
    public var broadcast: ACLBroadcastFlag
    public var data: ArraySlice<UInt8>

    /// The largest Data_Total_Length the 16-bit field can carry.
    public static let maximumDataLength = 0xFFFF

    /// `handle` keeps its low 12 bits: the upper four carry the flags on the wire.
    @inlinable
    public init(
        handle: ConnectionHandle, packetBoundary: ACLPacketBoundary, broadcast: ACLBroadcastFlag = .pointToPoint,
        data: ArraySlice<UInt8>
    ) {
        self.handle = ConnectionHandle(handle.rawValue & 0x0FFF)
        self.packetBoundary = packetBoundary
        self.broadcast = broadcast
        self.data = data
    }

    @inlinable
    public init(
        handle: ConnectionHandle, packetBoundary: ACLPacketBoundary, broadcast: ACLBroadcastFlag = .pointToPoint,
        data: [UInt8]
    ) {
        self.init(handle: handle, packetBoundary: packetBoundary, broadcast: broadcast, data: data[...])
    }

    @inlinable
    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = "HCI ACL Data packet"
        let field = try reader.u16("Handle")
        handle = ConnectionHandle(field & 0x0FFF)
        // Both flags are two bits wide and every value has a case: these cannot fail.
        let boundaryBits = UInt8(truncatingIfNeeded: field >> 12) & 0b11
        packetBoundary = ACLPacketBoundary(rawValue: boundaryBits) ?? .continuing
        broadcast = ACLBroadcastFlag(rawValue: UInt8(truncatingIfNeeded: field >> 14)) ?? .pointToPoint
        let length = Int(try reader.u16("Data_Total_Length"))
        if reader.remaining != length {
            throw reader.error(
                "Data_Total_Length", .lengthMismatch(declared: length, actual: reader.remaining),
                at: reader.offset &- 2)
        }
        data = reader.rest()
    }

    /// Writes the packet; `data` longer than 65,535 octets is a caller error (the length
    /// field keeps its low 16 bits).
    @inlinable
    public func encode(into writer: inout ByteWriter) {
        writer.u16(
            handle.rawValue & 0x0FFF | UInt16(packetBoundary.rawValue) << 12 | UInt16(broadcast.rawValue) << 14)
        writer.u16(UInt16(truncatingIfNeeded: data.count))
        writer.append(data)
    }
}
