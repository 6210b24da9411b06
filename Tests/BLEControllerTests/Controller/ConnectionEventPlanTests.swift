import BLESimulation
import BLEWire
import Testing

@testable import BLEController

/// One radio model: the controller's connection events (`AirTimeExchange` on its own transmit
/// queues) are the plans of `ConnectionEventPlanner` on the reference's fragment queues — the
/// same pairs, the same end, the same octets delivered — event after event, for a set of link
/// configurations (Core 5.4 Vol 6 Part B §4.5.1, §4.5.6, §4.5.9).
@Suite("The controller's connection events are the planner's plans")
struct ConnectionEventPlanTests {
    struct Configuration: Sendable, CustomTestStringConvertible {
        var phy: PHY
        var maxPayload: Int
        var encrypted = false
        var endRule = LinkTiming.EndRule.ruleB
        var cap: Int? = nil
        var eventLength: Duration = .microseconds(7_500)
        /// L2CAP PDU lengths queued by each side's host.
        var central: [Int]
        var peripheral: [Int]

        var testDescription: String {
            "\(phy), Lmax \(maxPayload), \(encrypted ? "encrypted" : "clear"), \(endRule), cap \(cap.map(String.init) ?? "none"), "
                + "event \(eventLength), central \(central.count) × PDU, peripheral \(peripheral.count) × PDU"
        }
    }

    static let configurations: [Configuration] = [
        .init(phy: .le2M, maxPayload: 251, central: Array(repeating: 251, count: 12), peripheral: []),
        .init(phy: .le2M, maxPayload: 251, endRule: .ruleA, central: [], peripheral: Array(repeating: 251, count: 12)),
        .init(phy: .le1M, maxPayload: 27, encrypted: true, central: [251, 23, 100], peripheral: [80, 27, 5]),
        .init(phy: .le1M, maxPayload: 27, endRule: .ruleA, central: [251, 251], peripheral: [251, 7]),
        .init(phy: .codedS2, maxPayload: 251, endRule: .ruleA, central: [12], peripheral: [251, 59, 251, 15]),
        .init(phy: .codedS8, maxPayload: 100, encrypted: true, central: [300], peripheral: [150]),
        .init(
            phy: .le2M, maxPayload: 60, cap: 3, eventLength: .microseconds(3_750), central: [247, 247],
            peripheral: [247]),
    ]

    @Test(arguments: configurations)
    func sameEvents(configuration c: Configuration) {
        let interval = Duration.microseconds(7_500)
        let direction = LinkDirection(phy: c.phy, maxPayload: c.maxPayload, encrypted: c.encrypted)
        var exchange = AirTimeExchange(scheduling: .init(endRule: c.endRule, maxPacketsPerEvent: c.cap))
        var central = LinkTransmitQueue()
        var peripheral = LinkTransmitQueue()
        var centralFragments = FragmentQueue()
        var peripheralFragments = FragmentQueue()
        for length in c.central {
            central.enqueue(hostData: Array(repeating: 0xC0, count: length)[...], start: true)
            centralFragments.append(l2capLength: length, maxPayload: c.maxPayload)
        }
        for length in c.peripheral {
            peripheral.enqueue(hostData: Array(repeating: 0x9E, count: length)[...], start: true)
            peripheralFragments.append(l2capLength: length, maxPayload: c.maxPayload)
        }
        let link = LinkTiming(
            interval: interval, eventLength: c.eventLength, phy: c.phy, maxOctets: c.maxPayload,
            encrypted: c.encrypted, endRule: c.endRule, maxPacketsPerEvent: c.cap)
        let planner = ConnectionEventPlanner(link: link)
        var ack = LinkLayerAckState()
        var errors = NoPacketErrors()
        var outcome = ConnectionEventOutcome(end: .zero)

        for event in 0..<8 {
            let anchor = VirtualInstant.zero.advanced(by: interval * event)
            let setup = ConnectionEventSetup(
                anchor: anchor, counter: UInt16(event), interval: interval, eventLength: c.eventLength,
                central: direction, peripheral: direction, peripheralListening: true)
            exchange.run(setup, central: &central, peripheral: &peripheral, into: &outcome) { _ in -50 }

            let plan = planner.planEvent(
                ack: &ack, central: &centralFragments, peripheral: &peripheralFragments, errors: &errors)
            #expect(outcome.end == anchor.advanced(by: plan.duration), "event \(event)")
            #expect(outcome.receptions.count == 2 * plan.pairs, "event \(event)")
            let delivered = { (from: ConnectionRole) in
                outcome.receptions.filter { $0.from == from && $0.isNew }.map(\.pdu.payloadLength).reduce(0, +)
            }
            #expect(delivered(.central) == plan.octetsDeliveredToPeripheral, "event \(event)")
            #expect(delivered(.peripheral) == plan.octetsDeliveredToCentral, "event \(event)")
            #expect(central.transmitSeqNum == ack.central.transmitSeqNum)
            #expect(peripheral.nextExpectedSeqNum == ack.peripheral.nextExpectedSeqNum)
        }
        // Everything queued went across and was acknowledged, as the plan says.
        #expect(centralFragments.isEmpty && peripheralFragments.isEmpty)
        #expect(!central.hasPending && !peripheral.hasPending)
    }
}
