/// Packet_Status_Flag of an HCI Synchronous Data packet (Core 5.4 Vol 4 Part E §5.4.3), set by
/// a controller with Erroneous Data Reporting enabled; a host sends `correctlyReceived`.
public enum SCOPacketStatus: UInt8, Sendable, Hashable, CaseIterable {
    case correctlyReceived = 0b00
    case possiblyInvalid = 0b01
    case noDataReceived = 0b10
    case partiallyLost = 0b11
}

/// An HCI Synchronous Data packet (Core 5.4 Vol 4 Part E §5.4.3), kept raw: an LE stack only
/// frames and renders it.
///
/// Wire form: Connection_Handle (12 bits) | Packet_Status_Flag (2) | RFU (2),
/// Data_Total_Length (u8), Data. The RFU bits are ignored on receipt and sent as zero.
public struct SCOPacket: WireCodable, Hashable, WireRenderable {
    /// Connection_Handle, 12 bits.
    public var handle: ConnectionHandle
    public var packetStatus: SCOPacketStatus
    public var data: ArraySlice<UInt8>

    public static let maximumDataLength = 0xFF

    @inlinable
    public init(handle: ConnectionHandle, packetStatus: SCOPacketStatus = .correctlyReceived, data: ArraySlice<UInt8>) {
        self.handle = ConnectionHandle(handle.rawValue & 0x0FFF)
        self.packetStatus = packetStatus
        self.data = data
    }

    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = "HCI Synchronous Data packet"
        let field = try reader.u16("Connection_Handle")
        handle = ConnectionHandle(field & 0x0FFF)
        // Two bits, four cases: cannot fail.
        let statusBits = UInt8(truncatingIfNeeded: field >> 12) & 0b11
        packetStatus = SCOPacketStatus(rawValue: statusBits) ?? .correctlyReceived
        let length = Int(try reader.u8("Data_Total_Length"))
        if reader.remaining != length {
            throw reader.error(
                "Data_Total_Length", .lengthMismatch(declared: length, actual: reader.remaining),
                at: reader.offset &- 1)
        }
        data = reader.rest()
    }

    /// Writes the packet; `data` longer than 255 octets is a caller error.
    public func encode(into writer: inout ByteWriter) {
        writer.u16(handle.rawValue & 0x0FFF | UInt16(packetStatus.rawValue) << 12)
        writer.u8(UInt8(truncatingIfNeeded: data.count))
        writer.append(data)
    }
}

/// PB_Flag of an HCI ISO Data packet (Core 5.4 Vol 4 Part E §5.4.5): where the fragment sits
/// in its ISO SDU.
public enum ISOPacketBoundary: UInt8, Sendable, Hashable, CaseIterable {
    case firstFragment = 0b00
    case continuationFragment = 0b01
    case completeSDU = 0b10
    case lastFragment = 0b11

    /// First and complete fragments carry the Packet_Sequence_Number and ISO_SDU_Length
    /// header at the start of the data load.
    @inlinable public var carriesSDUHeader: Bool { self == .firstFragment || self == .completeSDU }
}

/// An HCI ISO Data packet (Core 5.4 Vol 4 Part E §5.4.5), kept raw.
///
/// Wire form: Handle (12 bits) | PB_Flag (2) | TS_Flag (1) | RFU (1),
/// ISO_Data_Load_Length (14 bits) | RFU (2), ISO_Data_Load. The data load (optional time
/// stamp, sequence number, SDU length and status, SDU fragment) is kept as received. RFU bits
/// are ignored on receipt and sent as zero.
public struct ISOPacket: WireCodable, Hashable, WireRenderable {
    /// Connection_Handle of the CIS or BIS, 12 bits.
    public var handle: ConnectionHandle
    public var packetBoundary: ISOPacketBoundary
    /// TS_Flag: the data load begins with a 4-octet Time_Stamp.
    public var hasTimestamp: Bool
    public var dataLoad: ArraySlice<UInt8>

    public static let maximumDataLength = 0x3FFF

    @inlinable
    public init(
        handle: ConnectionHandle, packetBoundary: ISOPacketBoundary, hasTimestamp: Bool, dataLoad: ArraySlice<UInt8>
    ) {
        self.handle = ConnectionHandle(handle.rawValue & 0x0FFF)
        self.packetBoundary = packetBoundary
        self.hasTimestamp = hasTimestamp
        self.dataLoad = dataLoad
    }

    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = "HCI ISO Data packet"
        let field = try reader.u16("Handle")
        handle = ConnectionHandle(field & 0x0FFF)
        // Two bits, four cases: cannot fail.
        let boundaryBits = UInt8(truncatingIfNeeded: field >> 12) & 0b11
        packetBoundary = ISOPacketBoundary(rawValue: boundaryBits) ?? .completeSDU
        hasTimestamp = field & 0x4000 != 0
        let length = Int(try reader.u16("ISO_Data_Load_Length") & 0x3FFF)
        if reader.remaining != length {
            throw reader.error(
                "ISO_Data_Load_Length", .lengthMismatch(declared: length, actual: reader.remaining),
                at: reader.offset &- 2)
        }
        dataLoad = reader.rest()
    }

    /// Writes the packet; a data load longer than 16,383 octets is a caller error.
    public func encode(into writer: inout ByteWriter) {
        writer.u16(handle.rawValue & 0x0FFF | UInt16(packetBoundary.rawValue) << 12 | (hasTimestamp ? 0x4000 : 0))
        writer.u16(UInt16(truncatingIfNeeded: dataLoad.count) & 0x3FFF)
        writer.append(dataLoad)
    }
}
