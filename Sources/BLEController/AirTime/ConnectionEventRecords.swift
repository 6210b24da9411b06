/// The acknowledgement state of both ends of a link, carried from one connection event to the
/// next (Core 5.4 Vol 6 Part B §4.5.9: transmitSeqNum / nextExpectedSeqNum, SN / NESN).
public struct LinkLayerAckState: Sendable, Hashable {
    /// What a side sent last and is still waiting to see acknowledged.
    public enum Outstanding: Sendable, Hashable {
        /// Its last packet was acknowledged (or it has sent none): it sends something new.
        case none
        /// The head of its queue is in flight: it resends it until acknowledged.
        case data
        /// An empty PDU is in flight: it must be resent as is (new data under its SN could be
        /// taken for a duplicate and lost).
        case empty
    }

    /// One side's sequence bits.
    public struct Side: Sendable, Hashable {
        public var transmitSeqNum = false
        public var nextExpectedSeqNum = false
        public var outstanding = Outstanding.none

        public init() {}

        /// Takes in the header of a packet received with a valid CRC (§4.5.9): a new SN means new
        /// data (NESN moves on); a NESN different from our SN acknowledges what we sent last (SN
        /// moves on, nothing is in flight any more). Returns whether the packet is new and whether
        /// it acknowledged a data packet of ours.
        mutating func receive(sequenceNumber: Bool, nextExpectedSequenceNumber: Bool) -> (
            isNew: Bool, acknowledgedData: Bool
        ) {
            let isNew = sequenceNumber == nextExpectedSeqNum
            if isNew { nextExpectedSeqNum.toggle() }
            guard nextExpectedSequenceNumber != transmitSeqNum else { return (isNew, false) }
            let acknowledgedData = outstanding == .data
            transmitSeqNum.toggle()
            outstanding = .none
            return (isNew, acknowledgedData)
        }
    }

    public var central = Side()
    public var peripheral = Side()

    /// A new connection: both bits zero on both sides, nothing in flight (Core 5.4 Vol 6
    /// Part B §4.5.9).
    public init() {}

    /// The state two ends carry (a controller keeps each end's bits with its own queue).
    package init(central: Side, peripheral: Side) {
        self.central = central
        self.peripheral = peripheral
    }
}

/// A packet as sent: its payload (nil = empty PDU) and header bits (Core 5.4 Vol 6 Part B §2.4).
public struct LLPacket: Sendable, Hashable {
    public var fragment: LLFragment?
    public var sequenceNumber: Bool
    public var nextExpectedSequenceNumber: Bool
    /// MD: the sender has more queued after this packet.
    public var moreData: Bool
    /// Sent again because the previous copy was not acknowledged.
    public var isRetransmission: Bool

    public var payloadLength: Int { fragment?.length ?? 0 }
}

/// One pair of a connection event: the central's packet and the peripheral's answer, with what
/// each receiver made of them and what was delivered and acknowledged as a result.
public struct LLExchange: Sendable, Hashable {
    /// Start of the central's packet after the anchor point, in microseconds.
    public var offsetMicroseconds: Int
    /// Start of the peripheral's packet after the anchor (T_IFS after the central's ends).
    public var peripheralOffsetMicroseconds: Int
    /// End of the exchange after the anchor (end of the peripheral's packet, or of the
    /// central's when the peripheral did not answer).
    public var endMicroseconds: Int
    public var central: LLPacket
    /// The peripheral's answer; nil when it did not answer.
    public var peripheral: LLPacket?
    public var receptionAtPeripheral: Reception
    /// `.missed` when the peripheral did not answer.
    public var receptionAtCentral: Reception
    /// The central's fragment the peripheral received for the first time: hand it to its host.
    public var deliveredToPeripheral: LLFragment?
    /// The peripheral's fragment the central received for the first time.
    public var deliveredToCentral: LLFragment?
    /// The central's fragment acknowledged by this answer: free its buffer (Number Of Completed
    /// Packets on the central).
    public var acknowledgedFromCentral: LLFragment?
    /// The peripheral's fragment acknowledged by the central's packet of this pair.
    public var acknowledgedFromPeripheral: LLFragment?

    /// End of the central's packet after the anchor: when the peripheral learns whether its
    /// previous packet was acknowledged.
    public var centralPacketEndMicroseconds: Int {
        peripheralOffsetMicroseconds - RadioTiming.interFrameSpaceMicroseconds
    }

    public var offset: Duration { .microseconds(offsetMicroseconds) }
    public var peripheralOffset: Duration { .microseconds(peripheralOffsetMicroseconds) }
    public var end: Duration { .microseconds(endMicroseconds) }
}

/// Why the central closed a connection event (Core 5.4 Vol 6 Part B §4.5.6).
public enum ConnectionEventEnd: Sendable, Hashable, CustomStringConvertible {
    /// Neither side set MD: nothing more to send.
    case noMoreData
    /// The next pair would not fit in the event length under the link's rule.
    case outOfRoom(LinkTiming.EndRule)
    /// The vendor cap on packets per event was reached.
    case packetCap
    /// `side` received two consecutive packets with CRC errors and closed the event (when it
    /// is the peripheral, it stopped answering).
    case twoConsecutiveCRCErrors(receivedBy: LinkSide)
    /// The central received nothing (the peripheral's packet or the central's was missed).
    case centralReceivedNothing

    public var description: String {
        switch self {
        case .noMoreData: "no more data"
        case .outOfRoom(let rule): "out of room (\(rule))"
        case .packetCap: "packets-per-event cap"
        case .twoConsecutiveCRCErrors(let side): "two consecutive CRC errors at the \(side)"
        case .centralReceivedNothing: "central received nothing"
        }
    }
}

/// The totals of one connection event.
public struct ConnectionEventSummary: Sendable, Hashable {
    /// Pairs in the event (central packets sent).
    public var pairs = 0
    /// From the anchor to the end of the last packet, in microseconds.
    public var durationMicroseconds = 0
    public var end = ConnectionEventEnd.noMoreData
    /// Fragments (and their LL payload octets) received for the first time by each side.
    public var fragmentsDeliveredToPeripheral = 0
    public var octetsDeliveredToPeripheral = 0
    public var fragmentsDeliveredToCentral = 0
    public var octetsDeliveredToCentral = 0
    /// Fragments each side saw acknowledged (and removed from its queue).
    public var fragmentsAcknowledgedFromCentral = 0
    public var fragmentsAcknowledgedFromPeripheral = 0
    /// Packets received with a CRC error, and packets sent again.
    public var crcErrors = 0
    public var retransmissions = 0

    public init() {}

    public var duration: Duration { .microseconds(durationMicroseconds) }
}

/// Receives the exchanges of an event as the planner decides them, in order.
public protocol ConnectionEventObserver {
    mutating func record(_ exchange: LLExchange)
}

/// Keeps every exchange; call `removeAll(keepingCapacity: true)` between events so the buffer
/// is reused without allocating.
extension Array: ConnectionEventObserver where Element == LLExchange {
    public mutating func record(_ exchange: LLExchange) { append(exchange) }
}

/// Discards the exchanges (when only the summary matters).
public struct IgnoreExchanges: ConnectionEventObserver, Sendable {
    public init() {}
    public func record(_ exchange: LLExchange) {}
}
