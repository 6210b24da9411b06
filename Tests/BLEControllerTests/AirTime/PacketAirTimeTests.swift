import BLEWire
import Testing

@testable import BLEController

/// Packet air time and Lmax (Core 5.4 Vol 6 Part B §2.1, §2.2, §4.5.10).
@Suite("Packet air time")
struct PacketAirTimeTests {
    @Test(
        "Encrypted packet air time matches the reference check values",
        arguments: [
            (PHY.le1M, 27, 328), (.le1M, 251, 2_120), (.le2M, 251, 1_064), (.codedS8, 251, 17_040),
            (.codedS2, 251, 4_542),
        ] as [(PHY, Int, Int64)])
    func encryptedCheckValues(phy: PHY, length: Int, microseconds: Int64) {
        #expect(AirTime.packetAirTime(phy: phy, payloadLength: length, encrypted: true) == .microseconds(microseconds))
    }

    @Test(
        "An empty PDU lasts the fixed overhead and never carries a MIC",
        arguments: [(PHY.le1M, 80), (.le2M, 44), (.codedS2, 462), (.codedS8, 720)] as [(PHY, Int64)])
    func emptyPDU(phy: PHY, microseconds: Int64) {
        #expect(AirTime.emptyPDUAirTime(phy: phy) == .microseconds(microseconds))
        #expect(AirTime.packetAirTime(phy: phy, payloadLength: 0, encrypted: true) == .microseconds(microseconds))
        #expect(AirTime.packetAirTime(phy: phy, payloadLength: 0, encrypted: false) == .microseconds(microseconds))
    }

    @Test("The MIC adds four octet times only when encrypted and the payload is not empty")
    func micOnlyWhenEncrypted() {
        #expect(AirTime.packetAirTime(phy: .le1M, payloadLength: 27, encrypted: false) == .microseconds(296))
        #expect(AirTime.packetAirTime(phy: .le2M, payloadLength: 251, encrypted: false) == .microseconds(1_048))
        #expect(AirTime.packetAirTime(phy: .le1M, payloadLength: 1, encrypted: true) == .microseconds(120))
    }

    @Test("T_IFS is 150 µs")
    func interFrameSpace() {
        #expect(RadioTiming.interFrameSpace == .microseconds(150))
    }

    @Test(
        "Lmax_tx = min(maxTxOctets, floor((maxTxTime − fixed) / octetTime) − MIC)",
        arguments: [
            // (octets, time µs, phy, encrypted, Lmax)
            (251, 2_120, PHY.le1M, true, 251), (251, 2_120, .le1M, false, 251), (251, 328, .le1M, true, 27),
            (251, 328, .le1M, false, 31), (27, 2_120, .le1M, true, 27), (251, 1_064, .le2M, true, 251),
            (251, 1_000, .le2M, true, 235), (251, 2_120, .codedS8, true, 17), (251, 17_040, .codedS8, true, 251),
            (251, 2_704, .codedS8, false, 31), (251, 2_704, .codedS2, true, 136), (251, 60, .le1M, true, 0),
        ] as [(Int, Int64, PHY, Bool, Int)])
    func largestPayload(octets: Int, time: Int64, phy: PHY, encrypted: Bool, expected: Int) {
        let lmax = AirTime.largestPayload(
            maxTxOctets: octets, maxTxTime: .microseconds(time), phy: phy, encrypted: encrypted)
        #expect(lmax == expected)
    }

    @Test("The default maximum time lets the octets alone limit the payload on every PHY")
    func defaultMaximumTime() {
        #expect(AirTime.timeNeeded(octets: 27, phy: .le1M) == .microseconds(328))
        #expect(AirTime.timeNeeded(octets: 251, phy: .le1M) == .microseconds(2_120))
        for phy in PHY.allCases {
            for octets in [27, 100, 251] {
                let direction = LinkTiming.Direction(phy: phy, maxOctets: octets)
                #expect(direction.largestPayload(encrypted: true) == octets)
                #expect(direction.largestPayload(encrypted: false) == octets)
            }
        }
    }

    @Test("A connection interval in 1.25 ms units")
    func connectionIntervalUnits() {
        #expect(AirTime.connectionInterval(units: 6) == .microseconds(7_500))
        #expect(AirTime.connectionInterval(units: 0x0C80) == .seconds(4))
    }
}
