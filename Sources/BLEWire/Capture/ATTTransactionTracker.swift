/// Pairs the ATT responses of a capture with the requests they answer, as a reader of the
/// capture needs them: a Read By Group Type Response means nothing without the group type its
/// request asked for, an Error Response is about the request before it.
///
/// ATT allows one outstanding request per client at a time (Core 5.4 Vol 3 Part F §3.3.2,
/// §3.4.1.1), and each side of a connection may be a client, so the state is one request slot
/// per connection handle and per direction. A value type: it takes one PDU at a time and
/// returns the request a response answers, doing nothing else.
public struct ATTTransactionTracker: Sendable {
    private struct Key: Hashable {
        var handle: ConnectionHandle
        /// Which way the request went.
        var direction: BTSnoopDirection
    }

    private var outstanding: [Key: ATTPDU] = [:]

    public init() {}

    /// Requests sent and not yet answered.
    public var outstandingCount: Int { outstanding.count }

    /// Takes one ATT PDU seen on `handle` going `direction`. A request fills its direction's
    /// slot (a new request replaces one never answered: the capture may have lost the answer);
    /// a response going the other way empties it and returns the request it answers, when it
    /// is that request's paired response or an Error Response naming its opcode (§3.4.1.1).
    /// Anything else returns nil and changes nothing.
    public mutating func take(
        _ pdu: ATTPDU, on handle: ConnectionHandle, direction: BTSnoopDirection
    ) -> ATTPDU? {
        switch pdu.kind {
        case .request:
            outstanding[Key(handle: handle, direction: direction)] = pdu
            return nil
        case .response:
            let key = Key(handle: handle, direction: direction == .sent ? .received : .sent)
            guard let request = outstanding[key] else { return nil }
            let answers: Bool =
                switch pdu {
                case .errorResponse(let error): error.requestOpcode == request.opcode
                default: request.opcode.pairedResponse == pdu.opcode
                }
            guard answers else { return nil }
            outstanding[key] = nil
            return request
        default:
            return nil
        }
    }

    /// The connection is gone (Disconnection Complete): its requests will get no answer.
    public mutating func connectionClosed(_ handle: ConnectionHandle) {
        outstanding[Key(handle: handle, direction: .sent)] = nil
        outstanding[Key(handle: handle, direction: .received)] = nil
    }
}

extension HCIPacket {
    /// The ATT PDU this packet carries whole (an ACL start fragment holding a complete L2CAP
    /// basic frame on the ATT channel, Core 5.4 Vol 3 Part A §2.1), with its connection.
    public var wholeATTPDU: (handle: ConnectionHandle, pdu: ATTPDU)? {
        guard case .acl(let packet) = self, packet.packetBoundary.isStart,
            let frame = try? L2CAPBasicFrame(decoding: packet.data), frame.channelID == .att,
            let pdu = try? ATTPDU(decoding: frame.payload)
        else { return nil }
        return (packet.handle, pdu)
    }
}
