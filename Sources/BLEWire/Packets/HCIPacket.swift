/// Any HCI packet, decoded: what crosses the host–controller interface in either direction
/// (Core 5.4 Vol 4 Part E §5.4). Built from an H4 packet (Vol 4 Part A §2) by `init(_:)`.
///
/// Commands keep their raw form (`HCICommandPacket`, decoded further through the command
/// table); ACL data keeps its fragment (`ACLPacket`, reassembled by the host); events are fully
/// typed. `layers` renders everything that can be decoded from this packet alone, down to ATT,
/// SMP and L2CAP signalling when an ACL fragment carries a whole L2CAP PDU.
public enum HCIPacket: Hashable, Sendable, WireRenderable, CustomRendering {
    case command(HCICommandPacket)
    case acl(ACLPacket)
    case sco(SCOPacket)
    case event(HCIEvent)
    case iso(ISOPacket)

    /// Decodes the HCI packet an H4 packet carries.
    public init(_ packet: H4Packet) throws(DecodeError) {
        switch packet.type {
        case .command: self = .command(try HCICommandPacket(decoding: packet.payload))
        case .acl: self = .acl(try ACLPacket(decoding: packet.payload))
        case .sco: self = .sco(try SCOPacket(decoding: packet.payload))
        case .event: self = .event(try HCIEvent(decoding: packet.payload))
        case .iso: self = .iso(try ISOPacket(decoding: packet.payload))
        }
    }

    /// Decodes exactly one H4 packet: the packet indicator octet, then the HCI packet.
    public init(h4 bytes: ArraySlice<UInt8>) throws(DecodeError) {
        try self.init(try H4Packet(decoding: bytes))
    }

    public init(h4 bytes: [UInt8]) throws(DecodeError) {
        try self.init(h4: bytes[...])
    }

    public var type: H4PacketType {
        switch self {
        case .command: .command
        case .acl: .acl
        case .sco: .sco
        case .event: .event
        case .iso: .iso
        }
    }

    /// Checks what decoding leaves for the packet's consumer to check: the return parameters of
    /// a Command Complete event against the command it completes
    /// (`HCIEvent.CommandComplete.checkedReturnParameters()`, Core 5.4 Vol 4 Part E §7.7.14).
    /// `ble decode` rejects a packet that fails; the host, which must keep the event's command
    /// credit, meets the same error when it asks for the typed return parameters.
    public func checkContents() throws(DecodeError) {
        if case .event(.commandComplete(let complete)) = self {
            _ = try complete.checkedReturnParameters()
        }
    }

    /// The H4 form: packet indicator and HCI packet.
    public var h4: H4Packet {
        switch self {
        case .command(let packet): H4Packet(command: packet)
        case .acl(let packet): H4Packet(acl: packet)
        case .sco(let packet): H4Packet(sco: packet)
        case .event(let event): H4Packet(type: .event, payload: event.encoded[...])
        case .iso(let packet): H4Packet(iso: packet)
        }
    }

    public var rendered: RenderedValue {
        switch self {
        case .command(let packet): Self.qualified("command", packet.rendered)
        case .event(let event): Self.qualified("event", Rendering.render(event))
        case .acl(let packet):
            .object(
                name: "acl",
                fields: [
                    ("handle", .unsigned(UInt64(packet.handle.rawValue))),
                    ("packetBoundary", Rendering.render(packet.packetBoundary)),
                    ("broadcast", Rendering.render(packet.broadcast)),
                    ("length", .unsigned(UInt64(packet.data.count))),
                    ("l2cap", L2CAPChannelPayload.rendering(ofACLData: packet)),
                ])
        case .sco(let packet): Self.qualified("sco", Rendering.render(packet))
        case .iso(let packet): Self.qualified("iso", Rendering.render(packet))
        }
    }

    /// `event.commandComplete { … }`: the packet type before the packet's own name.
    private static func qualified(_ type: String, _ inner: RenderedValue) -> RenderedValue {
        switch inner {
        case .object(let name, let fields): .object(name: name.map { type + "." + $0 } ?? type, fields: fields)
        default: .object(name: type, fields: [("value", inner)])
        }
    }
}

/// What an L2CAP fixed channel carries on LE (Core 5.4 Vol 3 Part A §2.1): ATT on 0x0004, LE
/// signalling on 0x0005, SMP on 0x0006; anything else stays raw.
public enum L2CAPChannelPayload: Hashable, Sendable, WireRenderable {
    case att(ATTPDU)
    case leSignaling(L2CAPSignal)
    case smp(SMPCommand)
    case other(channelID: L2CAPChannelID, payload: ArraySlice<UInt8>)

    /// Decodes a complete basic frame's payload by its channel.
    public init(_ frame: L2CAPBasicFrame) throws(DecodeError) {
        switch frame.channelID {
        case .att: self = .att(try ATTPDU(decoding: frame.payload))
        case .leSignaling: self = .leSignaling(try L2CAPSignal(decoding: frame.payload))
        case .smp: self = .smp(try SMPCommand(decoding: frame.payload))
        default: self = .other(channelID: frame.channelID, payload: frame.payload)
        }
    }

    /// The rendering of what an ACL fragment carries: the decoded channel payload when the
    /// fragment is a start holding a whole L2CAP PDU, else a note on what it is.
    static func rendering(ofACLData packet: ACLPacket) -> RenderedValue {
        guard packet.packetBoundary.isStart else {
            return .symbol("continuation fragment (\(packet.data.count) octets)")
        }
        var reader = ByteReader(packet.data, context: "L2CAP Basic Frame")
        guard let length = try? reader.u16("Length"), let channel = try? reader.u16("Channel ID") else {
            return .symbol("start fragment shorter than the L2CAP header")
        }
        if reader.remaining < Int(length) {
            return .symbol(
                "start fragment of a \(length)-octet PDU on \(L2CAPChannelID(channel)) (\(reader.remaining) present)")
        }
        do {
            let frame = try L2CAPBasicFrame(decoding: packet.data)
            let payload = try L2CAPChannelPayload(frame)
            return .object(
                name: nil, fields: [("channel", frame.channelID.rendered), ("pdu", Rendering.render(payload))])
        } catch {
            return .object(name: "malformed", fields: [("error", .string(error.description))])
        }
    }
}
