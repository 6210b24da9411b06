/// An HCI event as a value (Core 5.4 Vol 4 Part E §7.7), decoded from or encoded to an HCI Event
/// packet (§5.4.4: event code, Parameter_Total_Length, parameters; no H4 indicator octet).
///
/// Decoding rules shared by every event:
/// - Parameter_Total_Length must equal the octets present (`.lengthMismatch` otherwise).
/// - Octets after the parameters this version knows are ignored: later versions of the
///   specification append parameters to existing events. A count or length field that runs past
///   the end of the parameters is a typed error.
/// - Connection_Handle fields are 12 bits (§5.4.2, range 0x0000–0x0EFF); the four top bits are
///   reserved for future use, so decoders ignore (mask) them and encoders write them as zero.
/// - Unknown event codes, vendor events (0xFF) included, are kept raw in `.unknown`.
///
/// Fixed-size events decode without heap allocation; report lists allocate one array; variable
/// payloads (return parameters, advertising data) are slices of the input.
public enum HCIEvent: Sendable, Hashable, WireCodable, WireRenderable, CustomRendering {
    /// HCI_Disconnection_Complete (§7.7.5).
    case disconnectionComplete(DisconnectionComplete)
    /// HCI_Encryption_Change [v1] (§7.7.8).
    case encryptionChange(EncryptionChange)
    /// HCI_Read_Remote_Version_Information_Complete (§7.7.12).
    case readRemoteVersionInformationComplete(ReadRemoteVersionInformationComplete)
    /// HCI_Command_Complete (§7.7.14).
    case commandComplete(CommandComplete)
    /// HCI_Command_Status (§7.7.15).
    case commandStatus(CommandStatus)
    /// HCI_Hardware_Error (§7.7.16).
    case hardwareError(HardwareError)
    /// HCI_Number_Of_Completed_Packets (§7.7.19).
    case numberOfCompletedPackets(NumberOfCompletedPackets)
    /// HCI_Data_Buffer_Overflow (§7.7.26).
    case dataBufferOverflow(DataBufferOverflow)
    /// HCI_Encryption_Key_Refresh_Complete (§7.7.39).
    case encryptionKeyRefreshComplete(EncryptionKeyRefreshComplete)
    /// HCI_LE_Meta_Event (§7.7.65) and its subevents.
    case le(LEMetaEvent)
    /// HCI_Encryption_Change [v2] (§7.7.8), which adds the key size.
    case encryptionChangeV2(EncryptionChangeV2)
    /// An event this version does not decode, kept as received (vendor events included).
    case unknown(code: UInt8, parameters: ArraySlice<UInt8>)

    /// The event code this value is sent with.
    public var code: UInt8 {
        switch self {
        case .disconnectionComplete: 0x05
        case .encryptionChange: 0x08
        case .readRemoteVersionInformationComplete: 0x0C
        case .commandComplete: 0x0E
        case .commandStatus: 0x0F
        case .hardwareError: 0x10
        case .numberOfCompletedPackets: 0x13
        case .dataBufferOverflow: 0x1A
        case .encryptionKeyRefreshComplete: 0x30
        case .le: 0x3E
        case .encryptionChangeV2: 0x59
        case .unknown(let code, _): code
        }
    }

    /// Decodes a whole event packet: event code, Parameter_Total_Length, parameters.
    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = "HCI Event packet"
        let code = try reader.u8("Event_Code")
        let length = Int(try reader.u8("Parameter_Total_Length"))
        if reader.remaining != length {
            throw reader.error(
                "Parameter_Total_Length", .lengthMismatch(declared: length, actual: reader.remaining))
        }
        // The reader now ends where the parameters end, so error offsets count from the packet.
        try self.init(code: code, parametersFrom: &reader)
    }

    /// Decodes a raw packet whose length has already been checked.
    public init(_ packet: HCIEventPacket) throws(DecodeError) {
        try self.init(code: packet.eventCode.rawValue, parameters: packet.parameters)
    }

    /// Decodes the parameters of an event with the given code (the packet header already read).
    public init(code: UInt8, parameters: ArraySlice<UInt8>) throws(DecodeError) {
        var reader = ByteReader(parameters)
        try self.init(code: code, parametersFrom: &reader)
    }

    /// Dispatches on the event code; `reader` must end where the parameters end. Octets after
    /// the known parameters are consumed and ignored.
    init(code: UInt8, parametersFrom reader: inout ByteReader) throws(DecodeError) {
        switch code {
        case 0x05: self = .disconnectionComplete(try DisconnectionComplete(from: &reader))
        case 0x08: self = .encryptionChange(try EncryptionChange(from: &reader))
        case 0x0C:
            self = .readRemoteVersionInformationComplete(
                try ReadRemoteVersionInformationComplete(from: &reader))
        case 0x0E: self = .commandComplete(try CommandComplete(from: &reader))
        case 0x0F: self = .commandStatus(try CommandStatus(from: &reader))
        case 0x10: self = .hardwareError(try HardwareError(from: &reader))
        case 0x13: self = .numberOfCompletedPackets(try NumberOfCompletedPackets(from: &reader))
        case 0x1A: self = .dataBufferOverflow(try DataBufferOverflow(from: &reader))
        case 0x30: self = .encryptionKeyRefreshComplete(try EncryptionKeyRefreshComplete(from: &reader))
        case 0x3E: self = .le(try LEMetaEvent(from: &reader))
        case 0x59: self = .encryptionChangeV2(try EncryptionChangeV2(from: &reader))
        default: self = .unknown(code: code, parameters: reader.rest())
        }
        _ = reader.rest()
    }

    /// Writes the whole packet: code, Parameter_Total_Length, parameters. Events whose
    /// parameters exceed 255 octets (too many reports) cannot be sent: keep lists within the
    /// limit, the length octet holds the count modulo 256.
    public func encode(into writer: inout ByteWriter) {
        writer.u8(code)
        let lengthIndex = writer.count
        writer.u8(0)
        encodeParameters(into: &writer)
        writer.bytes[lengthIndex] = UInt8(truncatingIfNeeded: writer.count &- lengthIndex &- 1)
    }

    /// Writes the event parameters only (what follows Parameter_Total_Length).
    public func encodeParameters(into writer: inout ByteWriter) {
        switch self {
        case .disconnectionComplete(let event): event.encode(into: &writer)
        case .encryptionChange(let event): event.encode(into: &writer)
        case .readRemoteVersionInformationComplete(let event): event.encode(into: &writer)
        case .commandComplete(let event): event.encode(into: &writer)
        case .commandStatus(let event): event.encode(into: &writer)
        case .hardwareError(let event): event.encode(into: &writer)
        case .numberOfCompletedPackets(let event): event.encode(into: &writer)
        case .dataBufferOverflow(let event): event.encode(into: &writer)
        case .encryptionKeyRefreshComplete(let event): event.encode(into: &writer)
        case .le(let event): event.encode(into: &writer)
        case .encryptionChangeV2(let event): event.encode(into: &writer)
        case .unknown(_, let parameters): writer.append(parameters)
        }
    }

    /// The raw packet of this event (allocates the parameters).
    public var packet: HCIEventPacket {
        var writer = ByteWriter()
        encodeParameters(into: &writer)
        return HCIEventPacket(eventCode: Code(rawValue: code), parameters: writer.bytes[...])
    }
}

extension HCIEvent {
    /// The case name and the payload's fields (`disconnectionComplete { status: …, … }`); an LE
    /// Meta event renders as its subevent (`connectionComplete { … }`), an unknown event with
    /// its code's name.
    public var rendered: RenderedValue {
        switch self {
        case .le(let event):
            // "le.connectionComplete": LE subevents keep their meta-event prefix.
            switch Rendering.render(event) {
            case .object(let name, let fields): return .object(name: "le." + (name ?? "unknown"), fields: fields)
            // A subevent without parameters (LE Scan Timeout) renders as its case name.
            case .symbol(let name): return .object(name: "le." + name, fields: [])
            case let other: return .object(name: "le", fields: [("value", other)])
            }
        case .unknown(let code, let parameters):
            return .object(
                name: "unknown",
                fields: [("code", Code(rawValue: code).rendered), ("parameters", .bytes(Array(parameters)))])
        default:
            // Every other case has one payload: reflect it and name it after the case.
            guard let payload = Mirror(reflecting: self).children.first, let label = payload.label else {
                return .symbol("HCIEvent")
            }
            switch Rendering.render(payload.value) {
            case .object(_, let fields): return .object(name: label, fields: fields)
            case let value: return .object(name: label, fields: [("value", value)])
            }
        }
    }
}

/// Reading and writing the 12-bit Connection_Handle of HCI events (Core 5.4 Vol 4 Part E §5.4.2:
/// handles are 12 bits; the top four bits of the 16-bit field are reserved and ignored).
enum HCIEventHandle {
    static let mask: UInt16 = 0x0FFF

    @inline(__always)
    static func read(_ reader: inout ByteReader, _ field: StaticString = "Connection_Handle")
        throws(DecodeError) -> ConnectionHandle
    {
        ConnectionHandle(try reader.u16(field) & mask)
    }

    @inline(__always)
    static func write(_ handle: ConnectionHandle, into writer: inout ByteWriter) {
        writer.u16(handle.rawValue & mask)
    }
}

/// Unit conversions for the raw interval fields of LE events (Core 5.4 Vol 4 Part E §7.7.65).
enum HCIEventUnits {
    /// Connection and periodic advertising intervals count 1.25 ms.
    @inline(__always) static func interval(_ raw: UInt16) -> Double { Double(raw) * 1.25 }
    /// Supervision timeouts count 10 ms.
    @inline(__always) static func timeout(_ raw: UInt16) -> Double { Double(raw) * 10 }
}
