import BLESimulation
import BLEWire

/// A side of a connection: the central or the peripheral role (Core 5.4 Vol 6 Part B §1.1, §4.5).
enum ConnectionRole: Hashable {
    case central
    case peripheral

    var peer: ConnectionRole { self == .central ? .peripheral : .central }

    var hci: LEMetaEvent.Role { self == .central ? .central : .peripheral }
}

/// What one side sends with, for one connection event: its PHY, the largest LL payload it may
/// send (connEffectiveMaxTxOctets/Time on that PHY, Core 5.4 Vol 6 Part B §4.5.10), and whether
/// its non-empty packets carry a MIC.
struct LinkDirection: Equatable {
    var phy: PHY
    var maxPayload: Int
    var encrypted: Bool
}

/// Everything a connection event needs to know before it starts (Core 5.4 Vol 6 Part B
/// §4.5.1).
struct ConnectionEventSetup {
    /// The anchor point: the central's first packet starts here.
    var anchor: VirtualInstant
    var counter: UInt16
    var interval: Duration
    /// The longest the event may last from the anchor (CE_Length), at most the interval.
    var eventLength: Duration
    var central: LinkDirection
    var peripheral: LinkDirection
    /// False when the peripheral no longer takes part (its controller reset, or it lost the
    /// connection's timing): the central's packets then go unanswered.
    var peripheralListening: Bool
}

/// What happened on air during one connection event, in time order (Core 5.4 Vol 6 Part B §4.5.1,
/// §4.5.9).
struct ConnectionEventOutcome {
    /// A packet that reached the other side.
    struct Reception {
        let from: ConnectionRole
        let pdu: LinkLayerPDU
        /// End of the packet: when the receiver has it.
        let at: VirtualInstant
        let rssi: Int8
        /// False for a retransmission the receiver already had (same SN), and for an empty PDU
        /// (nothing to deliver): it is only a sign of life for supervision.
        let isNew: Bool
    }

    /// A PDU whose sender learnt that the peer received it (the peer's packet carried a new
    /// NESN).
    struct Acknowledgement {
        let of: ConnectionRole
        let pdu: LinkLayerPDU
        let at: VirtualInstant
    }

    var receptions: [Reception] = []
    var acknowledgements: [Acknowledgement] = []
    /// When the event's last packet ended (the anchor when nothing was sent).
    var end: VirtualInstant

    /// Empties the outcome for an event starting at `anchor`, keeping its buffers.
    mutating func reset(anchor: VirtualInstant) {
        receptions.removeAll(keepingCapacity: true)
        acknowledgements.removeAll(keepingCapacity: true)
        end = anchor
    }
}

/// How packets cross the air during one connection event: the seam between the controller
/// (which owns the queues, the LL procedures and HCI) and the air-time model (which decides how
/// many packets fit in an event, when each is sent, and which arrive).
///
/// An implementation pulls PDUs with `LinkTransmitQueue.next(maxPayload:)`, decides their fate
/// with `medium` (one call per packet sent, by its sender: the RSSI when it arrives, nil when it
/// is lost or out of range; nothing moves during an event), keeps SN/NESN in the queues
/// (Core 5.4 Vol 6 Part B §4.5.9) and calls `acknowledge()` when a sender learns its PDU arrived. The controller then acts on the outcome
/// at the times it states: hands new data to the receiving host, runs LL procedures, frees
/// acknowledged host buffers, and reports Number Of Completed Packets as its policy says (at
/// each acknowledgement, at a threshold, or at the event's end; Vol 4 Part E §7.7.19).
///
/// The whole event is planned at its anchor: `run` pulls every PDU it sends from the queues
/// then, synchronously. Host data that arrives while the event is on air (a host refilling the
/// buffers an early Number Of Completed Packets freed) therefore waits for the next event.
///
/// `run` writes the outcome into `outcome`, replacing what was there (its buffers are reused
/// from one event to the next); receptions and acknowledgements each in time order.
protocol ConnectionEventExchange {
    mutating func run(
        _ setup: ConnectionEventSetup, central: inout LinkTransmitQueue, peripheral: inout LinkTransmitQueue,
        into outcome: inout ConnectionEventOutcome, medium: (ConnectionRole) -> Int8?
    )
}
