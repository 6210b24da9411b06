import BLEWire
import Testing

@testable import BLEController

/// The planner run event after event with saturated queues, against the analytic prediction
/// (Core 5.4 Vol 6 Part B §4.5.1, §4.5.6, §4.5.9).
@Suite("Connection event planner: saturated links")
struct ConnectionEventSimulationTests {
    static let rules: [LinkTiming.EndRule] = [.ruleA, .ruleB]
    static let senders: [LinkSide] = [.central, .peripheral]

    @Test(
        "10 s of saturated traffic delivers the predicted goodput within 0.5 %",
        arguments: ReferenceRow.table, rules)
    func referenceRowSimulated(row: ReferenceRow, rule: LinkTiming.EndRule) {
        let link = row.link(rule: rule)
        for sender in Self.senders {
            let traffic: GoodputPrediction.Traffic = sender == .central ? .writeWithoutResponse : .notification
            let predicted = GoodputPrediction(link: link, attMTU: row.attMTU, traffic: traffic).goodput(rule)
            let result = simulateSaturated(link: link, attMTU: row.attMTU, sender: sender, errors: NoPacketErrors())
            let measured = result.goodput(from: sender, attMTU: row.attMTU)
            print("airtime \(row.testDescription) \(rule) \(traffic): predicted \(predicted) measured \(measured)")
            #expect(isWithin(measured, predicted, relative: 0.005), "\(traffic): \(measured) vs \(predicted)")
            #expect(result.meter.outOfOrder == 0)
        }
    }

    @Test("Nordic's sample configuration simulates at 1415.7 ± 2 kbit/s")
    func nordicSampleSimulated() {
        let result = simulateSaturated(
            link: nordicSampleLink, attMTU: nordicSampleMTU, sender: .central, errors: NoPacketErrors(),
            keepSummaries: true)
        let measured = result.goodput(from: .central, attMTU: nordicSampleMTU)
        print("airtime Nordic sample: measured \(measured)")
        #expect(abs(measured - 1_415.7) <= 2, "\(measured)")
        #expect(result.summaries.allSatisfy { $0.pairs == 286 && $0.end == .outOfRoom(.ruleB) })
    }

    @Test("Every profile simulates at its predicted goodput", arguments: AirTimeProfile.allCases)
    func profileSimulated(profile: AirTimeProfile) {
        let link = profile.linkTiming()
        for sender in Self.senders {
            let traffic: GoodputPrediction.Traffic = sender == .central ? .writeWithoutResponse : .notification
            let predicted = GoodputPrediction(profile: profile, traffic: traffic).goodput
            let result = simulateSaturated(link: link, attMTU: profile.attMTU, sender: sender, errors: NoPacketErrors())
            let measured = result.goodput(from: sender, attMTU: profile.attMTU)
            print("airtime profile \(profile) \(traffic): predicted \(predicted) measured \(measured)")
            #expect(isWithin(measured, predicted, relative: 0.005), "\(traffic): \(measured) vs \(predicted)")
        }
    }

    /// With packet error rate p on every packet, a data packet needs its own packet and the
    /// acknowledging answer through: about 1/(1 − p)² pairs each (exactly (1 + p)/(1 − p) for
    /// one-way data, 0.01 % away at p = 1 %). Run for 100 s of virtual time, tolerance 0.75 %:
    /// the rule ignores events closed early by two consecutive CRC errors (≈ 2p² per pair; on
    /// the 35-pair events of the 50 ms row about 0.75 % of events lose half their pairs, −0.4 %),
    /// and the noise of 100 s (binomial ≤ 0.1 %, the few early closures ≈ 0.1 %) stays well
    /// inside. A wrong law is outside it: 1/(1 − p) would be 1 % off, 1/(1 − p)³ 1 % off too.
    /// (At 10 s the 50 ms row sees only ~2 early closures, each worth 0.25 %, so it is too
    /// noisy for a tight bound.)
    @Test("With 1 % packet errors goodput drops by about (1 − p)²", arguments: ReferenceRow.table, rules)
    func packetErrorRate(row: ReferenceRow, rule: LinkTiming.EndRule) {
        let p = 0.01
        let link = row.link(rule: rule)
        for sender in Self.senders {
            let traffic: GoodputPrediction.Traffic = sender == .central ? .writeWithoutResponse : .notification
            let clean = GoodputPrediction(link: link, attMTU: row.attMTU, traffic: traffic).goodput(rule)
            let errors = RandomPacketErrors(seed: 0x5EED, crcErrorRate: p)
            let result = simulateSaturated(
                link: link, attMTU: row.attMTU, sender: sender, seconds: 100, errors: errors)
            let measured = result.goodput(from: sender, attMTU: row.attMTU)
            let expected = clean * (1 - p) * (1 - p)
            print("airtime PER \(row.testDescription) \(rule) \(traffic): expected \(expected) measured \(measured)")
            #expect(isWithin(measured, expected, relative: 0.0075), "\(traffic): \(measured) vs \(expected)")
            #expect(measured < clean)
            #expect(result.meter.outOfOrder == 0)
        }
    }

    @Test("The packets-per-event cap closes every event after the cap", arguments: [1, 3, 7])
    func packetCap(cap: Int) {
        var link = LinkTiming(interval: .milliseconds(15), phy: .le2M, maxOctets: 251, maxPacketsPerEvent: cap)
        link.endRule = .ruleA
        let result = simulateSaturated(
            link: link, attMTU: 247, sender: .peripheral, seconds: 1, errors: NoPacketErrors(), keepSummaries: true)
        #expect(result.summaries.allSatisfy { $0.pairs == cap && $0.end == .packetCap })
        let measured = result.goodput(from: .peripheral, attMTU: 247)
        #expect(isWithin(measured, Double(cap * 244 * 8) / 15, relative: 0.005), "\(measured)")
    }

    @Test("Retransmitted packets are delivered exactly once and in order, both ways", arguments: [1, 2, 3, 4])
    func retransmissionsDeliveredOnce(seed: UInt64) {
        let link = LinkTiming(interval: .microseconds(7_500), phy: .le1M, maxOctets: 27, encrypted: true)
        let errors = RandomPacketErrors(seed: seed, crcErrorRate: 0.1, missRate: 0.02)
        let result = simulateSaturated(link: link, attMTU: 23, sender: nil, seconds: 5, errors: errors)
        let meter = result.meter
        #expect(meter.outOfOrder == 0)
        #expect(meter.acknowledgedBeforeDelivery == 0)
        #expect(meter.fragmentsToPeripheral > 1_000 && meter.fragmentsToCentral > 1_000)
        // What was acknowledged was delivered; at most the one in flight is delivered but not
        // yet acknowledged.
        #expect((0...1).contains(meter.fragmentsToPeripheral - meter.acknowledgedFromCentral))
        #expect((0...1).contains(meter.fragmentsToCentral - meter.acknowledgedFromPeripheral))
    }

    @Test("A seeded channel gives the same run every time")
    func deterministic() {
        let link = AirTimeProfile.nrf52.linkTiming()
        let first = simulateSaturated(
            link: link, attMTU: 247, sender: nil, seconds: 1, errors: RandomPacketErrors(seed: 42, crcErrorRate: 0.05),
            keepSummaries: true)
        let second = simulateSaturated(
            link: link, attMTU: 247, sender: nil, seconds: 1, errors: RandomPacketErrors(seed: 42, crcErrorRate: 0.05),
            keepSummaries: true)
        #expect(first.summaries == second.summaries)
        #expect(first.summaries.contains { $0.crcErrors > 0 })
    }
}
