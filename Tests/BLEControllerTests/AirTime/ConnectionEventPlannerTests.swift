import BLEWire
import Testing

@testable import BLEController

/// Single connection events, scripted (Core 5.4 Vol 6 Part B §4.5.1, §4.5.6, §4.5.9).
@Suite("Connection event planner: one event")
struct ConnectionEventPlannerTests {
    /// 1M, LL 27, unencrypted, 7.5 ms, rule A unless changed.
    static let link = LinkTiming(interval: .microseconds(7_500), phy: .le1M, maxOctets: 27, endRule: .ruleA)

    /// Runs one event and returns its summary and exchanges.
    static func event<Errors: PacketErrorSource>(
        link: LinkTiming = link, ack: inout LinkLayerAckState, central: inout FragmentQueue,
        peripheral: inout FragmentQueue, errors: Errors
    ) -> (ConnectionEventSummary, [LLExchange]) {
        var errors = errors
        var exchanges: [LLExchange] = []
        let summary = ConnectionEventPlanner(link: link).planEvent(
            ack: &ack, central: &central, peripheral: &peripheral, errors: &errors, observer: &exchanges)
        return (summary, exchanges)
    }

    static func queue(fragments count: Int, length: Int = 27) -> FragmentQueue {
        var queue = FragmentQueue()
        for tag in 0..<count { queue.append(LLFragment(length: length, boundary: .start, tag: tag)) }
        return queue
    }

    @Test("Empty queues give one exchange of empty PDUs with the right air time", arguments: PHY.allCases)
    func emptyQueues(phy: PHY) {
        let link = LinkTiming(interval: .milliseconds(30), phy: phy, maxOctets: 27, encrypted: true)
        var ack = LinkLayerAckState()
        var central = FragmentQueue()
        var peripheral = FragmentQueue()
        for _ in 0..<3 {
            let (summary, exchanges) = Self.event(
                link: link, ack: &ack, central: &central, peripheral: &peripheral, errors: NoPacketErrors())
            #expect(summary.pairs == 1)
            #expect(summary.end == .noMoreData)
            #expect(summary.duration == phy.fixedOverhead * 2 + RadioTiming.interFrameSpace)
            #expect(exchanges.count == 1)
            #expect(exchanges[0].central.fragment == nil && exchanges[0].peripheral?.fragment == nil)
            #expect(exchanges[0].peripheralOffset == phy.fixedOverhead + RadioTiming.interFrameSpace)
            #expect(summary.fragmentsDeliveredToCentral == 0 && summary.fragmentsDeliveredToPeripheral == 0)
        }
    }

    @Test("The central transmits first, the peripheral answers T_IFS later, pairs follow T_IFS apart")
    func exchangeTiming() {
        var ack = LinkLayerAckState()
        var central = Self.queue(fragments: 3)
        var peripheral = FragmentQueue()
        let (summary, exchanges) = Self.event(
            ack: &ack, central: &central, peripheral: &peripheral, errors: NoPacketErrors())
        // T(1M, 27) = 296 µs, empty 80 µs: a pair is 296 + 150 + 80 + 150 = 676 µs.
        #expect(exchanges.map(\.offsetMicroseconds) == [0, 676, 1_352])
        #expect(exchanges.map(\.peripheralOffsetMicroseconds) == [446, 1_122, 1_798])
        #expect(exchanges.map(\.endMicroseconds) == [526, 1_202, 1_878])
        #expect(summary.durationMicroseconds == 1_878)
        #expect(summary.end == .noMoreData)
        #expect(central.isEmpty)
    }

    @Test("MD stays set while more is queued; the event ends when neither side has more")
    func moreDataBits() {
        var ack = LinkLayerAckState()
        var central = Self.queue(fragments: 2)
        var peripheral = Self.queue(fragments: 3, length: 10)
        let (summary, exchanges) = Self.event(
            ack: &ack, central: &central, peripheral: &peripheral, errors: NoPacketErrors())
        #expect(exchanges.map(\.central.moreData) == [true, false, false])
        #expect(exchanges.map { $0.peripheral?.moreData } == [true, true, false])
        #expect(exchanges.map { $0.peripheral?.payloadLength } == [10, 10, 10])
        #expect(summary.pairs == 3)
        #expect(summary.end == .noMoreData)
        #expect(summary.fragmentsDeliveredToPeripheral == 2 && summary.fragmentsDeliveredToCentral == 3)
        // Both MD bits were 0 in pair 3, so the peripheral's last fragment, delivered, waits for
        // its acknowledgement until the central's first packet of the next event.
        #expect(peripheral.count == 1 && ack.peripheral.outstanding == .data)
        let (next, nextExchanges) = Self.event(
            ack: &ack, central: &central, peripheral: &peripheral, errors: NoPacketErrors())
        #expect(next.pairs == 1 && nextExchanges[0].acknowledgedFromPeripheral?.tag == 2)
        #expect(nextExchanges[0].deliveredToCentral == nil)
        #expect(peripheral.isEmpty)
    }

    @Test("SN / NESN: a packet is delivered on a new SN and acknowledged by the next packet's NESN")
    func implicitAcknowledgement() {
        var ack = LinkLayerAckState()
        var central = Self.queue(fragments: 1)
        var peripheral = Self.queue(fragments: 1)
        let (_, exchanges) = Self.event(ack: &ack, central: &central, peripheral: &peripheral, errors: NoPacketErrors())
        let first = exchanges[0]
        #expect(!first.central.sequenceNumber && !first.central.nextExpectedSequenceNumber)
        #expect(first.peripheral?.sequenceNumber == false && first.peripheral?.nextExpectedSequenceNumber == true)
        #expect(first.deliveredToPeripheral?.tag == 0 && first.acknowledgedFromCentral?.tag == 0)
        #expect(first.deliveredToCentral?.tag == 0 && first.acknowledgedFromPeripheral == nil)
        // Neither side has more: the central's empty PDU at the next anchor acknowledges the
        // peripheral's fragment.
        #expect(exchanges.count == 1)
        let (_, next) = Self.event(ack: &ack, central: &central, peripheral: &peripheral, errors: NoPacketErrors())
        #expect(next[0].central.sequenceNumber && next[0].central.nextExpectedSequenceNumber)
        #expect(next[0].acknowledgedFromPeripheral?.tag == 0)
    }

    @Test("A packet with a CRC error is not acknowledged and is sent again; delivered once")
    func crcErrorRetransmission() {
        var ack = LinkLayerAckState()
        var central = Self.queue(fragments: 2)
        var peripheral = FragmentQueue()
        // Pair 1: central's packet fine, answer corrupted; pair 2: all fine.
        let (summary, exchanges) = Self.event(
            ack: &ack, central: &central, peripheral: &peripheral, errors: ScriptedErrors([.valid, .crcError]))
        #expect(exchanges[0].deliveredToPeripheral?.tag == 0)
        #expect(exchanges[0].acknowledgedFromCentral == nil)
        #expect(exchanges[1].central.fragment?.tag == 0 && exchanges[1].central.isRetransmission)
        #expect(exchanges[1].deliveredToPeripheral == nil)  // a duplicate SN: ignored
        #expect(exchanges[1].acknowledgedFromCentral?.tag == 0)
        #expect(exchanges[2].deliveredToPeripheral?.tag == 1)
        #expect(summary.fragmentsDeliveredToPeripheral == 2)
        #expect(summary.retransmissions == 1 && summary.crcErrors == 1)
    }

    @Test("Two consecutive CRC errors at the central close the event")
    func twoCRCErrorsAtCentral() {
        var ack = LinkLayerAckState()
        var central = Self.queue(fragments: 5)
        var peripheral = FragmentQueue()
        let (summary, _) = Self.event(
            ack: &ack, central: &central, peripheral: &peripheral,
            errors: ScriptedErrors([.valid, .crcError, .valid, .crcError]))
        #expect(summary.pairs == 2)
        #expect(summary.end == .twoConsecutiveCRCErrors(receivedBy: .central))
        #expect(central.count == 5)  // nothing acknowledged: the head goes again next event
        // Next event: the retransmission is acknowledged but not delivered twice.
        let (next, nextExchanges) = Self.event(
            ack: &ack, central: &central, peripheral: &peripheral, errors: NoPacketErrors())
        #expect(nextExchanges[0].central.isRetransmission && nextExchanges[0].deliveredToPeripheral == nil)
        #expect(nextExchanges[0].acknowledgedFromCentral?.tag == 0)
        #expect(next.fragmentsDeliveredToPeripheral == 4)
    }

    @Test("Two consecutive CRC errors at the peripheral: it stops answering and the event closes")
    func twoCRCErrorsAtPeripheral() {
        var ack = LinkLayerAckState()
        var central = Self.queue(fragments: 5)
        var peripheral = FragmentQueue()
        let (summary, exchanges) = Self.event(
            ack: &ack, central: &central, peripheral: &peripheral,
            errors: ScriptedErrors([.crcError, .valid, .crcError]))
        #expect(summary.pairs == 2)
        #expect(exchanges[0].peripheral != nil)  // the first CRC error is still answered
        #expect(exchanges[1].peripheral == nil && exchanges[1].receptionAtCentral == .missed)
        #expect(summary.end == .twoConsecutiveCRCErrors(receivedBy: .peripheral))
        #expect(summary.durationMicroseconds == 676 + 296)
    }

    @Test("The central closes the event when it receives nothing")
    func centralReceivesNothing() {
        var ack = LinkLayerAckState()
        var central = Self.queue(fragments: 5)
        var peripheral = FragmentQueue()
        let (summary, _) = Self.event(
            ack: &ack, central: &central, peripheral: &peripheral,
            errors: ScriptedErrors([.valid, .valid, .valid, .missed]))
        #expect(summary.pairs == 2 && summary.end == .centralReceivedNothing)
        let (missedFirst, exchanges) = Self.event(
            ack: &ack, central: &central, peripheral: &peripheral, errors: ScriptedErrors([.missed]))
        #expect(missedFirst.pairs == 1 && missedFirst.end == .centralReceivedNothing)
        #expect(exchanges[0].peripheral == nil)
    }

    @Test("An unacknowledged empty PDU is sent again before new data")
    func emptyPDUResent() {
        var ack = LinkLayerAckState()
        var central = FragmentQueue()
        var peripheral = FragmentQueue()
        // The peripheral gets the central's empty PDU corrupted; the event ends (no data).
        let (first, _) = Self.event(
            ack: &ack, central: &central, peripheral: &peripheral, errors: ScriptedErrors([.crcError]))
        #expect(first.pairs == 1 && ack.central.outstanding == .empty)
        central.append(LLFragment(length: 20, boundary: .start, tag: 7))
        let (_, exchanges) = Self.event(ack: &ack, central: &central, peripheral: &peripheral, errors: NoPacketErrors())
        #expect(exchanges[0].central.fragment == nil && exchanges[0].central.isRetransmission)
        #expect(exchanges[0].central.moreData)
        #expect(exchanges[1].central.fragment?.tag == 7 && exchanges[1].deliveredToPeripheral?.tag == 7)
    }

    @Test("Rule B reserves room for a full-length reply; rule A uses the actual packets")
    func endRules() {
        // 2M, LL 251, encrypted, 7.5 ms: rule A fits 5 pairs, rule B 4.
        for (rule, pairs) in [(LinkTiming.EndRule.ruleA, 5), (.ruleB, 4)] {
            let link = LinkTiming(
                interval: .microseconds(7_500), phy: .le2M, maxOctets: 251, encrypted: true, endRule: rule)
            var ack = LinkLayerAckState()
            var central = Self.queue(fragments: 20, length: 251)
            var peripheral = FragmentQueue()
            let (summary, exchanges) = Self.event(
                link: link, ack: &ack, central: &central, peripheral: &peripheral, errors: NoPacketErrors())
            #expect(summary.pairs == pairs)
            #expect(summary.end == .outOfRoom(rule))
            #expect(exchanges.last!.offsetMicroseconds == (pairs - 1) * 1_408)
            #expect(summary.durationMicroseconds <= 7_500)
        }
    }

    @Test("The first pair is always made, even when it does not fit the event length")
    func anchorPairAlwaysMade() {
        let link = LinkTiming(
            interval: .milliseconds(10), eventLength: .microseconds(500), phy: .le1M, maxOctets: 251, endRule: .ruleB)
        var ack = LinkLayerAckState()
        var central = Self.queue(fragments: 3, length: 251)
        var peripheral = FragmentQueue()
        let (summary, _) = Self.event(
            link: link, ack: &ack, central: &central, peripheral: &peripheral, errors: NoPacketErrors())
        #expect(summary.pairs == 1 && summary.end == .outOfRoom(.ruleB))
        #expect(summary.fragmentsDeliveredToPeripheral == 1)
    }

    @Test("One LL packet carries a piece of exactly one L2CAP PDU, with its LLID")
    func l2capBoundaries() {
        var ack = LinkLayerAckState()
        var central = FragmentQueue()
        central.append(l2capLength: 60, maxPayload: 27, tag: 1)
        central.append(l2capLength: 5, maxPayload: 27, tag: 2)
        var peripheral = FragmentQueue()
        let (_, exchanges) = Self.event(ack: &ack, central: &central, peripheral: &peripheral, errors: NoPacketErrors())
        let delivered = exchanges.compactMap(\.deliveredToPeripheral)
        #expect(delivered.map(\.length) == [27, 27, 6, 5])
        #expect(delivered.map(\.tag) == [1, 1, 1, 2])
        #expect(delivered.map(\.boundary) == [.start, .continuation, .continuation, .start])
    }

    @Test("Per-direction PHY and data length: the reply rule B reserves is the peripheral's longest")
    func asymmetricLink() {
        let link = LinkTiming(
            interval: .microseconds(7_500),
            centralToPeripheral: .init(phy: .le2M, maxOctets: 251),
            peripheralToCentral: .init(phy: .le1M, maxOctets: 27), endRule: .ruleB)
        #expect(link.largestPayload(sentBy: .central) == 251 && link.largestPayload(sentBy: .peripheral) == 27)
        var ack = LinkLayerAckState()
        var central = Self.queue(fragments: 10, length: 251)
        var peripheral = FragmentQueue()
        let (summary, exchanges) = Self.event(
            link: link, ack: &ack, central: &central, peripheral: &peripheral, errors: NoPacketErrors())
        // Pair: 1048 + 150 + 80 (1M empty) + 150 = 1428 µs; rule B needs 1048 + 300 + 296 = 1644 µs
        // from the pair's start: starts 0 … 5712 fit, 7140 does not.
        #expect(exchanges.map(\.offsetMicroseconds) == [0, 1_428, 2_856, 4_284, 5_712])
        #expect(summary.pairs == 5)
        let prediction = GoodputPrediction(link: link, attMTU: 247, traffic: .writeWithoutResponse)
        #expect(prediction.packetsPerEventB == 5)
    }
}
