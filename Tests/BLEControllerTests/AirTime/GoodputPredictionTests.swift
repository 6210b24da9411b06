import BLEWire
import Testing

@testable import BLEController

/// The analytic goodput against the reference table (air-time reference; Core 5.4 Vol 6 Part B
/// §4.5.1, §4.5.6; Vol 3 Part A §7.2).
@Suite("Goodput prediction")
struct GoodputPredictionTests {
    @Test("Write Command rows of the reference table", arguments: ReferenceRow.table)
    func referenceRow(row: ReferenceRow) {
        let prediction = GoodputPrediction(
            link: row.link(rule: .ruleB), attMTU: row.attMTU, traffic: .writeWithoutResponse)
        #expect(prediction.packetsPerEventA == row.packetsA)
        #expect(prediction.packetsPerEventB == row.packetsB)
        #expect(isWithin(prediction.goodputA, row.goodputA, relative: 0.005), "goodput A \(prediction.goodputA)")
        #expect(isWithin(prediction.goodputB, row.goodputB, relative: 0.005), "goodput B \(prediction.goodputB)")
        #expect(isWithin(prediction.ceiling, row.ceiling, relative: 0.005), "ceiling \(prediction.ceiling)")
    }

    @Test("Full-length notifications: rule B equals rule A", arguments: ReferenceRow.table)
    func notificationsRuleBEqualsRuleA(row: ReferenceRow) {
        let prediction = GoodputPrediction(link: row.link(rule: .ruleB), attMTU: row.attMTU, traffic: .notification)
        #expect(prediction.packetsPerEventA == row.packetsA)
        #expect(prediction.packetsPerEventB == row.packetsA)
        #expect(isWithin(prediction.goodputA, row.goodputA, relative: 0.005))
        #expect(prediction.goodputB == prediction.goodputA)
        #expect(isWithin(prediction.ceiling, row.ceiling, relative: 0.005))
    }

    @Test(
        "Acknowledged writes and indications: one PDU per two intervals",
        arguments: [
            (PHY.le1M, 27, 23, 7_500, 10.7), (.le2M, 251, 247, 7_500, 130), (.le2M, 251, 247, 15_000, 65),
        ] as [(PHY, Int, Int, Int64, Double)])
    func acknowledged(phy: PHY, llMax: Int, mtu: Int, interval: Int64, expected: Double) {
        let link = LinkTiming(interval: .microseconds(interval), phy: phy, maxOctets: llMax, encrypted: true)
        for traffic in [GoodputPrediction.Traffic.writeRequest, .indication] {
            let prediction = GoodputPrediction(link: link, attMTU: mtu, traffic: traffic)
            #expect(isWithin(prediction.goodputA, expected, relative: 0.005), "\(traffic) \(prediction.goodputA)")
            #expect(isWithin(prediction.goodputB, expected, relative: 0.005), "\(traffic) \(prediction.goodputB)")
        }
    }

    @Test("Nordic's throughput sample: 286 packets per event, 1415.7 kbit/s under rule B")
    func nordicSample() {
        let prediction = GoodputPrediction(
            link: nordicSampleLink, attMTU: nordicSampleMTU, traffic: .writeWithoutResponse)
        #expect(prediction.fragments == [251, 251])
        #expect(prediction.packetsPerEventB == 286)
        #expect(abs(prediction.goodputB - 1_415.7) <= 2, "\(prediction.goodputB)")
        #expect(prediction.goodput == prediction.goodputB)
        // Nordic logged 1,415,583 bit/s.
        #expect(abs(prediction.goodputB - 1_415.583) <= 2)
    }

    @Test("ATT PDU of a octets → L2CAP a + 4 → LL fragments ≤ Lmax")
    func fragmentation() {
        #expect(LLFragment.lengths(l2capLength: 27, maxPayload: 27) == [27])
        #expect(LLFragment.lengths(l2capLength: 189, maxPayload: 27) == Array(repeating: 27, count: 7))
        #expect(LLFragment.lengths(l2capLength: 521, maxPayload: 251) == [251, 251, 19])
        let fragments = LLFragment.fragments(l2capLength: 502, maxPayload: 251, tag: 9)
        #expect(fragments.map(\.boundary) == [.start, .continuation])
        #expect(fragments.allSatisfy { $0.tag == 9 && $0.length == 251 })
    }

    @Test("Unequal fragments are packed across events (MTU 517 on LL 251)")
    func unequalFragments() {
        let link = LinkTiming(interval: .microseconds(7_500), phy: .le2M, maxOctets: 251, endRule: .ruleA)
        let prediction = GoodputPrediction(link: link, attMTU: 517, traffic: .notification)
        #expect(prediction.fragments == [251, 251, 19])
        // Pairs of 1392, 1392 and 464 µs: 251, 251, 19, 251, 251, 19 end at 6496 µs and the next
        // 251 would end at 7888 > 7500, so every event carries exactly two PDUs.
        #expect(prediction.sdusPerEventA == 2)
        #expect(prediction.sdusPerEventB == 2)
        #expect(isWithin(prediction.goodputA, 2 * 514 * 8 / 7.5, relative: 1e-9))
        #expect(prediction.goodputA < prediction.ceiling)
    }

    @Test("The packets-per-event cap bounds N (iOS 10: 7 packets, one MTU-185 PDU per event)")
    func packetCap() {
        let ios10 = GoodputPrediction(profile: .iphoneIOS10, traffic: .notification)
        #expect(ios10.fragments.count == 7)
        #expect(ios10.packetsPerEventA == 7)
        #expect(ios10.packetsPerEventB == 7)
        #expect(isWithin(ios10.goodput, 97, relative: 0.005), "\(ios10.goodput)")
        let modern = GoodputPrediction(profile: .iphoneModern, traffic: .notification)
        #expect(modern.packetsPerEventB == 3)
        #expect(modern.goodput >= 300 && modern.goodput <= 400, "\(modern.goodput)")
    }

    @Test("Profiles parse from their names and carry their ATT MTU")
    func profiles() {
        for profile in AirTimeProfile.allCases {
            #expect(AirTimeProfile(named: profile.name) == profile)
            #expect(AirTimeProfile(named: profile.name.uppercased()) == profile)
        }
        #expect(AirTimeProfile(named: "iphone") == nil)
        #expect(AirTimeProfile.iphoneIOS10.attMTU == 185)
        #expect(AirTimeProfile.androidHigh.attMTU == 517)
        let ideal = AirTimeProfile.ideal.linkTiming()
        #expect(ideal.endRule == .ruleA && ideal.maxPacketsPerEvent == nil)
        #expect(ideal.eventLength == ideal.interval && ideal.centralToPeripheral.phy == .le2M)
        #expect(AirTimeProfile.androidHigh.linkTiming().interval == .microseconds(11_250))
        #expect(AirTimeProfile.nrf52.linkTiming().largestPayload(sentBy: .peripheral) == 251)
        #expect(AirTimeProfile.iphoneIOS10.linkTiming().largestPayload(sentBy: .central) == 27)
    }

    @Test("A direction whose maximum time leaves no room for payload predicts no goodput")
    func noRoomForPayload() {
        let link = LinkTiming(
            interval: .microseconds(7_500), phy: .le1M, maxOctets: 27, maxTime: .microseconds(100),
            encrypted: true)
        #expect(link.largestPayload(sentBy: .central) == 0)
        let prediction = GoodputPrediction(link: link, attMTU: 23, traffic: .writeWithoutResponse)
        #expect(prediction.fragments.isEmpty)
        #expect(prediction.goodputA == 0 && prediction.goodputB == 0 && prediction.ceiling == 0)
    }
}
