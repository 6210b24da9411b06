/// The step function of a connection: given the link's timing, what each side has queued, the
/// acknowledgement state and a packet-error source, it decides the whole connection event that
/// starts at an anchor point — every pair of packets, when it is on air, what each receiver made
/// of it, what was delivered and acknowledged, and why the event ended.
///
/// Rules (Core 5.4 Vol 6 Part B):
/// - §4.5.1: the central transmits first at the anchor; the peripheral answers T_IFS after the
///   central's packet ends, even after a CRC error (but not after two consecutive ones); pairs
///   follow T_IFS apart.
/// - §4.5.9: acknowledgement is implicit (SN / NESN); a packet is delivered when its receiver
///   sees a new SN and acknowledged when the other side's next packet carries a new NESN; an
///   unacknowledged packet (data or empty) is sent again.
/// - §4.5.6: the event stays open while either side sets MD; it closes after two consecutive
///   CRC errors at a receiver, or when the central receives nothing. The central also closes it
///   when the next pair does not fit under the link's end rule (A or B) or the vendor cap.
/// The first pair of an event is always made (the anchor exchange keeps the link alive), even
/// if it does not fit the event length; should it run past the next anchor (a pair longer than
/// the interval), the caller skips the anchors the event covers.
///
/// A pure value: no clock, no queue of actions; time is microseconds after the anchor. It
/// allocates nothing per pair (the observer decides what to keep). The virtual controller runs
/// its connection events with it (`AirTimeExchange`), so the air-time reference, `ble bench
/// airtime` and the controller share one set of rules.
public struct ConnectionEventPlanner: Sendable {
    public let link: LinkTiming

    private let centralFixed: Int
    private let centralOctet: Int
    private let peripheralFixed: Int
    private let peripheralOctet: Int
    private let centralMIC: Int
    private let peripheralMIC: Int
    private let eventLength: Int
    /// T(phyRx, Lmax_rx, enc) of the central: the reply rule B reserves room for.
    private let longestReply: Int
    private let cap: Int
    private let ifs = RadioTiming.interFrameSpaceMicroseconds

    public init(link: LinkTiming) {
        self.init(link: link, centralEncrypted: link.encrypted, peripheralEncrypted: link.encrypted)
    }

    /// A planner whose two directions may differ in encryption: while encryption starts, one
    /// side already sends with a MIC while the other does not yet (Core 5.4 Vol 6 Part B
    /// §5.1.3.1), so a controller gives each direction its own.
    package init(link: LinkTiming, centralEncrypted: Bool, peripheralEncrypted: Bool) {
        self.link = link
        centralFixed = link.centralToPeripheral.phy.fixedMicroseconds
        centralOctet = link.centralToPeripheral.phy.octetMicroseconds
        peripheralFixed = link.peripheralToCentral.phy.fixedMicroseconds
        peripheralOctet = link.peripheralToCentral.phy.octetMicroseconds
        centralMIC = centralEncrypted ? AirTime.micLength : 0
        peripheralMIC = peripheralEncrypted ? AirTime.micLength : 0
        eventLength = link.effectiveEventLength.wholeMicroseconds
        longestReply = AirTime.packetMicroseconds(
            phy: link.peripheralToCentral.phy,
            payloadLength: link.peripheralToCentral.largestPayload(encrypted: peripheralEncrypted),
            encrypted: peripheralEncrypted)
        cap = max(1, link.maxPacketsPerEvent ?? .max)
    }

    /// Air time of a central packet with `length` octets of payload, in microseconds.
    func centralTime(_ length: Int) -> Int {
        centralFixed + centralOctet * (length + (length > 0 ? centralMIC : 0))
    }

    /// Air time of a peripheral packet with `length` octets of payload, in microseconds.
    func peripheralTime(_ length: Int) -> Int {
        peripheralFixed + peripheralOctet * (length + (length > 0 ? peripheralMIC : 0))
    }

    /// The room the first pair of an event needs: the central's packet of `centralPayload`
    /// octets, T_IFS and a full-length reply (what rule B reserves; §4.5.6). A controller that
    /// shares its radio skips an event that cannot give it this much.
    package func firstPairRoom(centralPayload: Int) -> Duration {
        .microseconds(centralTime(centralPayload) + ifs + longestReply)
    }

    /// Plans one connection event without keeping its exchanges.
    public func planEvent<Central: LLTransmitQueue, Peripheral: LLTransmitQueue, Errors: PacketErrorSource>(
        ack: inout LinkLayerAckState, central: inout Central, peripheral: inout Peripheral, errors: inout Errors
    ) -> ConnectionEventSummary {
        var ignore = IgnoreExchanges()
        return planEvent(ack: &ack, central: &central, peripheral: &peripheral, errors: &errors, observer: &ignore)
    }

    /// Plans one connection event: removes acknowledged fragments from the queues, updates the
    /// acknowledgement state, reports each exchange to `observer` in air order and returns the
    /// totals. Fragments must not exceed the sending direction's Lmax (the controller cuts them).
    public func planEvent<
        Central: LLTransmitQueue, Peripheral: LLTransmitQueue, Errors: PacketErrorSource,
        Observer: ConnectionEventObserver
    >(
        ack: inout LinkLayerAckState, central: inout Central, peripheral: inout Peripheral, errors: inout Errors,
        observer: inout Observer
    ) -> ConnectionEventSummary {
        var summary = ConnectionEventSummary()
        var start = 0
        var centralCRCRun = 0
        var peripheralCRCRun = 0
        // The peripheral closed its side of the event: it saw MD = 0 from the central and sent
        // MD = 0 itself, so it no longer listens (§4.5.6).
        var peripheralClosed = false

        while true {
            if summary.pairs >= cap {
                summary.end = .packetCap
                break
            }
            // The central's packet: its in-flight packet again, or its next one.
            let centralSide = ack.central
            let centralFragment = centralSide.outstanding == .empty ? nil : central.peek(0)
            let centralLength = centralFragment?.length ?? 0
            let centralDuration = centralTime(centralLength)
            if summary.pairs > 0, link.endRule == .ruleB,
                start + centralDuration + 2 * ifs + longestReply > eventLength
            {
                summary.end = .outOfRoom(.ruleB)
                break
            }

            // What the peripheral makes of it (decided before committing, for rule A).
            let atPeripheral =
                peripheralClosed
                ? Reception.missed
                : errors.reception(ofPacketFrom: .central, payloadLength: centralLength)
            var peripheralSide = ack.peripheral
            var peripheralRun = peripheralCRCRun
            var answers = true
            var deliveredToPeripheral: LLFragment?
            var peripheralHeadAcknowledged = false
            switch atPeripheral {
            case .missed:
                answers = false
            case .crcError:
                peripheralRun += 1
                answers = peripheralRun < 2
            case .valid:
                peripheralRun = 0
                let header = peripheralSide.receive(
                    sequenceNumber: centralSide.transmitSeqNum,
                    nextExpectedSequenceNumber: centralSide.nextExpectedSeqNum)
                if header.isNew { deliveredToPeripheral = centralFragment }
                peripheralHeadAcknowledged = header.acknowledgedData
            }
            let peripheralFragment =
                peripheralSide.outstanding == .empty ? nil : peripheral.peek(peripheralHeadAcknowledged ? 1 : 0)
            let peripheralLength = peripheralFragment?.length ?? 0
            let peripheralDuration = answers ? peripheralTime(peripheralLength) : 0
            if summary.pairs > 0, link.endRule == .ruleA,
                start + centralDuration + ifs + peripheralDuration + ifs > eventLength
            {
                summary.end = .outOfRoom(.ruleA)
                break
            }

            // Commit the central's packet and its effect on the peripheral.
            summary.pairs += 1
            let centralMoreData = central.peek(centralFragment == nil ? 0 : 1) != nil
            let centralPacket = LLPacket(
                fragment: centralFragment, sequenceNumber: centralSide.transmitSeqNum,
                nextExpectedSequenceNumber: centralSide.nextExpectedSeqNum, moreData: centralMoreData,
                isRetransmission: centralSide.outstanding != .none)
            if centralSide.outstanding == .none { ack.central.outstanding = centralFragment == nil ? .empty : .data }
            if centralPacket.isRetransmission, centralFragment != nil { summary.retransmissions += 1 }
            if atPeripheral == .crcError { summary.crcErrors += 1 }
            ack.peripheral = peripheralSide
            peripheralCRCRun = peripheralRun
            var exchange = LLExchange(
                offsetMicroseconds: start, peripheralOffsetMicroseconds: start + centralDuration + ifs,
                endMicroseconds: start + centralDuration, central: centralPacket, peripheral: nil,
                receptionAtPeripheral: atPeripheral, receptionAtCentral: .missed,
                deliveredToPeripheral: deliveredToPeripheral, deliveredToCentral: nil, acknowledgedFromCentral: nil,
                acknowledgedFromPeripheral: nil)
            if let fragment = deliveredToPeripheral {
                summary.fragmentsDeliveredToPeripheral += 1
                summary.octetsDeliveredToPeripheral += fragment.length
            }
            if peripheralHeadAcknowledged {
                exchange.acknowledgedFromPeripheral = peripheral.peek(0)
                peripheral.removeFirst()
                summary.fragmentsAcknowledgedFromPeripheral += 1
            }
            guard answers else {
                observer.record(exchange)
                summary.durationMicroseconds = exchange.endMicroseconds
                summary.end =
                    atPeripheral == .crcError
                    ? .twoConsecutiveCRCErrors(receivedBy: .peripheral) : .centralReceivedNothing
                break
            }

            // The peripheral's answer and what the central makes of it.
            let peripheralMoreData = peripheral.peek(peripheralFragment == nil ? 0 : 1) != nil
            let peripheralPacket = LLPacket(
                fragment: peripheralFragment, sequenceNumber: peripheralSide.transmitSeqNum,
                nextExpectedSequenceNumber: peripheralSide.nextExpectedSeqNum, moreData: peripheralMoreData,
                isRetransmission: peripheralSide.outstanding != .none)
            if peripheralSide.outstanding == .none {
                ack.peripheral.outstanding = peripheralFragment == nil ? .empty : .data
            }
            if peripheralPacket.isRetransmission, peripheralFragment != nil { summary.retransmissions += 1 }
            if atPeripheral == .valid, !centralMoreData, !peripheralMoreData { peripheralClosed = true }
            let atCentral = errors.reception(ofPacketFrom: .peripheral, payloadLength: peripheralLength)
            exchange.peripheral = peripheralPacket
            exchange.receptionAtCentral = atCentral
            exchange.endMicroseconds = exchange.peripheralOffsetMicroseconds + peripheralDuration
            switch atCentral {
            case .valid:
                centralCRCRun = 0
                let header = ack.central.receive(
                    sequenceNumber: peripheralPacket.sequenceNumber,
                    nextExpectedSequenceNumber: peripheralPacket.nextExpectedSequenceNumber)
                if header.isNew, let fragment = peripheralFragment {
                    exchange.deliveredToCentral = fragment
                    summary.fragmentsDeliveredToCentral += 1
                    summary.octetsDeliveredToCentral += fragment.length
                }
                if header.acknowledgedData {
                    exchange.acknowledgedFromCentral = central.peek(0)
                    central.removeFirst()
                    summary.fragmentsAcknowledgedFromCentral += 1
                }
            case .crcError:
                centralCRCRun += 1
                summary.crcErrors += 1
            case .missed:
                break
            }
            observer.record(exchange)
            summary.durationMicroseconds = exchange.endMicroseconds
            start = exchange.endMicroseconds + ifs

            if atCentral == .missed {
                summary.end = .centralReceivedNothing
                break
            }
            if centralCRCRun >= 2 {
                summary.end = .twoConsecutiveCRCErrors(receivedBy: .central)
                break
            }
            // MD: continue while either side has more; after a CRC error the central cannot
            // read the peripheral's MD and may go on (§4.5.1).
            let centralHasMore = central.peek(0) != nil
            let peripheralHasMore = atCentral == .valid ? peripheralMoreData : true
            if !centralHasMore, !peripheralHasMore {
                summary.end = .noMoreData
                break
            }
        }
        return summary
    }
}
