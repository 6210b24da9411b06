import BLESimulation
import BLEWire

/// How a controller fills its connection events (vendor behaviour the specification leaves
/// open): which rule ends an event, and a cap on the packets per event some phones impose.
public struct LinkLayerScheduling: Sendable, Hashable {
    public var endRule: LinkTiming.EndRule
    /// At most this many packet pairs per event; nil for no cap.
    public var maxPacketsPerEvent: Int?

    public init(endRule: LinkTiming.EndRule = .ruleB, maxPacketsPerEvent: Int? = nil) {
        self.endRule = endRule
        self.maxPacketsPerEvent = maxPacketsPerEvent
    }
}

/// Connection events run by the air-time model's `ConnectionEventPlanner`, the same planner the
/// air-time reference and `ble bench airtime` are measured against: the controller asks it what
/// goes on air at each anchor and when (Core 5.4 Vol 6 Part B §4.5.1, §4.5.6, §4.5.9), with the
/// air deciding each packet's fate, then applies the plan to its own queues.
///
/// The planner reads the queues through `LinkTransmitQueue.PlannerView` and the air through
/// `AirPacketErrors`; the plan is then applied in air order: each packet the plan sends is taken
/// with `next(maxPayload:)` (so its bytes are the ones resent until acknowledged) and each
/// acknowledgement it decides frees the sender's PDU with `acknowledge()`.
struct AirTimeExchange: ConnectionEventExchange {
    var scheduling: LinkLayerScheduling
    /// The pairs of the event being applied; kept from one event to the next, so a busy link
    /// allocates nothing per event.
    private var exchanges: [LLExchange] = []
    /// The planner of the last event and what it was made from: a link's PHYs, payloads,
    /// encryption, interval and event length rarely change, and making a planner works out its
    /// timing from `Duration`s, which costs more than planning an idle event.
    private var planners = ConnectionEventPlannerCache()

    init(scheduling: LinkLayerScheduling = LinkLayerScheduling()) {
        self.scheduling = scheduling
    }

    mutating func run(
        _ setup: ConnectionEventSetup, central: inout LinkTransmitQueue, peripheral: inout LinkTransmitQueue,
        into outcome: inout ConnectionEventOutcome, medium: (ConnectionRole) -> Int8?
    ) {
        outcome.reset(anchor: setup.anchor)
        let planner = planners.planner(
            central: setup.central, peripheral: setup.peripheral, interval: setup.interval,
            eventLength: setup.eventLength, scheduling: scheduling)
        var ack = LinkLayerAckState(central: central.ackSide, peripheral: peripheral.ackSide)
        var centralView = central.plannerView(maxPayload: setup.central.maxPayload)
        var peripheralView = peripheral.plannerView(maxPayload: setup.peripheral.maxPayload)
        exchanges.removeAll(keepingCapacity: true)
        var rssi: (atPeripheral: Int8, atCentral: Int8) = (0, 0)
        withoutActuallyEscaping(medium) { medium in
            var errors = AirPacketErrors(peripheralListening: setup.peripheralListening, medium: medium)
            _ = planner.planEvent(
                ack: &ack, central: &centralView, peripheral: &peripheralView, errors: &errors, observer: &exchanges)
            rssi = (errors.rssiAtPeripheral, errors.rssiAtCentral)
        }

        for exchange in exchanges {
            // The central's packet: an empty PDU in flight that the peer acknowledged gives way
            // to a new one (an acknowledged data PDU was freed when its acknowledgement came).
            if !exchange.central.isRetransmission { _ = central.acknowledgeEmpty() }
            let sent = central.next(maxPayload: setup.central.maxPayload)
            let sentEnd = setup.anchor.advanced(by: .microseconds(exchange.centralPacketEndMicroseconds))
            outcome.end = sentEnd
            guard exchange.receptionAtPeripheral == .valid else { continue }
            outcome.receptions.append(
                .init(
                    from: .central, pdu: sent, at: sentEnd, rssi: rssi.atPeripheral,
                    isNew: exchange.deliveredToPeripheral != nil))
            if exchange.acknowledgedFromPeripheral != nil, let acked = peripheral.acknowledge() {
                outcome.acknowledgements.append(.init(of: .peripheral, pdu: acked, at: sentEnd))
            }

            // The peripheral's answer, T_IFS later.
            guard let answer = exchange.peripheral else { continue }
            if !answer.isRetransmission { _ = peripheral.acknowledgeEmpty() }
            let reply = peripheral.next(maxPayload: setup.peripheral.maxPayload)
            let replyEnd = setup.anchor.advanced(by: exchange.end)
            outcome.end = replyEnd
            guard exchange.receptionAtCentral == .valid else { continue }
            outcome.receptions.append(
                .init(
                    from: .peripheral, pdu: reply, at: replyEnd, rssi: rssi.atCentral,
                    isNew: exchange.deliveredToCentral != nil))
            if exchange.acknowledgedFromCentral != nil, let acked = central.acknowledge() {
                outcome.acknowledgements.append(.init(of: .central, pdu: acked, at: replyEnd))
            }
        }
        // The sequence bits (and an empty PDU acknowledged at the very end) as the plan left them.
        central.settle(ack.central)
        peripheral.settle(ack.peripheral)
    }
}

extension ConnectionEventPlanner {
    /// The planner of a connection event of the controller: each direction's PHY, largest payload
    /// (already cut to its effective maximum time, §4.5.10) and encryption as they are now; the
    /// event length is CE_Length or what the shared radio leaves of it.
    init(
        central: LinkDirection, peripheral: LinkDirection, interval: Duration, eventLength: Duration? = nil,
        scheduling: LinkLayerScheduling = LinkLayerScheduling()
    ) {
        // maxTime left to its default: the time the payload needs, so that only the octets limit it.
        let link = LinkTiming(
            interval: interval, eventLength: eventLength,
            centralToPeripheral: .init(phy: central.phy, maxOctets: central.maxPayload),
            peripheralToCentral: .init(phy: peripheral.phy, maxOctets: peripheral.maxPayload),
            endRule: scheduling.endRule, maxPacketsPerEvent: scheduling.maxPacketsPerEvent)
        self.init(link: link, centralEncrypted: central.encrypted, peripheralEncrypted: peripheral.encrypted)
    }
}

/// One connection-event planner kept with what it was made from, made again only when any of
/// that changes (same inputs, same planner: the planner is a pure function of them).
struct ConnectionEventPlannerCache {
    private struct Inputs: Equatable {
        var central: LinkDirection
        var peripheral: LinkDirection
        var interval: Duration
        var eventLength: Duration?
        var scheduling: LinkLayerScheduling
    }

    private var last: (inputs: Inputs, planner: ConnectionEventPlanner)?

    mutating func planner(
        central: LinkDirection, peripheral: LinkDirection, interval: Duration, eventLength: Duration? = nil,
        scheduling: LinkLayerScheduling = LinkLayerScheduling()
    ) -> ConnectionEventPlanner {
        let inputs = Inputs(
            central: central, peripheral: peripheral, interval: interval, eventLength: eventLength,
            scheduling: scheduling)
        if let last, last.inputs == inputs { return last.planner }
        let planner = ConnectionEventPlanner(
            central: central, peripheral: peripheral, interval: interval, eventLength: eventLength,
            scheduling: scheduling)
        last = (inputs, planner)
        return planner
    }
}

/// The air as the planner's packet-error source: each packet's fate drawn from `medium` (the
/// RSSI when it arrives, nil when it is lost or out of range), in air order (Core 5.4 Vol 6
/// Part B §4.5.1). A central packet that does not arrive is missed — the peripheral stays silent
/// and the central receives nothing; a peripheral packet that does not arrive is a CRC error at
/// the central, which may go on. The RSSI each way is kept for the receptions (nothing moves
/// during an event).
struct AirPacketErrors: PacketErrorSource {
    let peripheralListening: Bool
    let medium: (ConnectionRole) -> Int8?
    var rssiAtPeripheral: Int8 = 0
    var rssiAtCentral: Int8 = 0

    mutating func reception(ofPacketFrom sender: LinkSide, payloadLength: Int) -> Reception {
        switch sender {
        case .central:
            guard peripheralListening, let rssi = medium(.central) else { return .missed }
            rssiAtPeripheral = rssi
            return .valid
        case .peripheral:
            guard let rssi = medium(.peripheral) else { return .crcError }
            rssiAtCentral = rssi
            return .valid
        }
    }
}
