import BLESimulation
import BLEWire
import Testing

@testable import BLEController

/// A radio that listens to everything and records what arrives.
private final class Ear: AirRadio {
    var heard: [(time: VirtualInstant, transmission: AirTransmission, rssi: Int8)] = []
    let air: VirtualAir
    var id = AirRadioID(rawValue: -1)

    init(air: VirtualAir, at position: AirPosition) {
        self.air = air
        id = air.attach(self, at: position)
    }

    func isListening(to transmission: AirTransmission) -> Bool { true }
    func receive(_ transmission: AirTransmission, rssi: Int8) { heard.append((air.now, transmission, rssi)) }
}

@Suite("Virtual air: propagation, range, packet errors")
struct VirtualAirTests {
    private func beacon(from sender: AirRadioID, at start: VirtualInstant, power: Int8 = 0) -> AirTransmission {
        AirTransmission(
            sender: sender, channel: 37, phy: .le1M, txPower: power, start: start,
            pdu: .advNonconnInd(advertiser: LEAddress(.zero, type: .public), data: [1, 2, 3]))
    }

    @Test("RSSI follows log-distance path loss: txPower − (L0 + 10·n·log10 d)")
    func logDistance() {
        let model = PropagationModel(referenceLoss: 40, pathLossExponent: 2, maximumRange: nil, sensitivity: -120)
        #expect(model.rssi(txPower: 0, distance: 1) == -40)
        #expect(model.rssi(txPower: 0, distance: 10) == -60)
        #expect(model.rssi(txPower: 4, distance: 100) == -76)
        let indoor = PropagationModel(referenceLoss: 40, pathLossExponent: 3, maximumRange: nil, sensitivity: -120)
        #expect(indoor.rssi(txPower: 0, distance: 10) == -70)
    }

    @Test("Out of range beyond the maximum distance or below the sensitivity")
    func range() {
        let model = PropagationModel(referenceLoss: 40, pathLossExponent: 2, maximumRange: 30, sensitivity: -70)
        #expect(model.rssi(txPower: 0, distance: 25) != nil)
        #expect(model.rssi(txPower: 0, distance: 31) == nil)
        // −40 − 20·log10(40) ≈ −72 dBm: below sensitivity even without the range limit.
        let deaf = PropagationModel(referenceLoss: 40, pathLossExponent: 2, maximumRange: nil, sensitivity: -70)
        #expect(deaf.rssi(txPower: 0, distance: 40) == nil)
    }

    @Test("A packet arrives at its end (air time at LE 1M) with the RSSI of the distance")
    func deliveryTime() {
        let air = VirtualAir()
        let sender = Ear(air: air, at: .origin)
        let near = Ear(air: air, at: AirPosition(x: 10))
        let far = Ear(air: air, at: AirPosition(x: 500))
        let start = VirtualInstant.microseconds(1000)
        air.transmit(beacon(from: sender.id, at: start))
        air.queue.runUntilIdle()
        // ADV_NONCONN_IND with 3 octets of data: 9 octets of payload, 80 + 8·9 = 152 µs.
        #expect(near.heard.count == 1)
        #expect(near.heard.first?.time == .microseconds(1152))
        #expect(near.heard.first?.rssi == -60)
        #expect(far.heard.isEmpty)
        #expect(sender.heard.isEmpty)
    }

    @Test("Moving a radio changes RSSI and range at once")
    func moving() {
        let air = VirtualAir()
        let sender = Ear(air: air, at: .origin)
        let ear = Ear(air: air, at: AirPosition(x: 1))
        air.transmit(beacon(from: sender.id, at: .microseconds(10)))
        air.queue.runUntilIdle()
        air.move(ear.id, to: AirPosition(x: 0, y: 10, z: 0))
        air.transmit(beacon(from: sender.id, at: .microseconds(1000)))
        air.queue.runUntilIdle()
        air.move(ear.id, to: AirPosition(x: 1000))
        air.transmit(beacon(from: sender.id, at: .microseconds(2000)))
        air.queue.runUntilIdle()
        #expect(ear.heard.map(\.rssi) == [-40, -60])
    }

    @Test("Packet error rate per direction, drawn from the seeded generator")
    func packetErrorRate() {
        func receptions(seed: UInt64) -> (Int, Int) {
            let air = VirtualAir(random: SeededRandomGenerator(seed: seed))
            let a = Ear(air: air, at: .origin)
            let b = Ear(air: air, at: AirPosition(x: 1))
            air.setPacketErrorRate(0.5, from: a.id, to: b.id)
            for i in 0..<200 {
                air.transmit(beacon(from: a.id, at: .microseconds(Int64(i) * 1000)))
                air.transmit(beacon(from: b.id, at: .microseconds(Int64(i) * 1000 + 500)))
            }
            air.queue.runUntilIdle()
            return (b.heard.count, a.heard.count)
        }
        let (lossy, clean) = receptions(seed: 1)
        #expect(clean == 200)
        #expect(lossy > 60 && lossy < 140)
        #expect(receptions(seed: 1) == receptions(seed: 1))
        #expect(receptions(seed: 1).0 != receptions(seed: 2).0)
        let air = VirtualAir()
        let a = Ear(air: air, at: .origin)
        let b = Ear(air: air, at: AirPosition(x: 1))
        air.setPacketErrorRate(1, between: a.id, and: b.id)
        air.transmit(beacon(from: a.id, at: .microseconds(5)))
        air.queue.runUntilIdle()
        #expect(b.heard.isEmpty)
    }

    @Test("Air time of LE packets (Core 5.4 Vol 6 Part B §2.1)")
    func airTimes() {
        #expect(PHY.le1M.airTime(payloadOctets: 27, mic: true) == .microseconds(328))
        #expect(PHY.le1M.airTime(payloadOctets: 251, mic: true) == .microseconds(2120))
        #expect(PHY.le2M.airTime(payloadOctets: 251, mic: true) == .microseconds(1064))
        #expect(PHY.codedS8.airTime(payloadOctets: 251, mic: true) == .microseconds(17040))
        #expect(PHY.codedS2.airTime(payloadOctets: 251, mic: true) == .microseconds(4542))
        #expect(PHY.le1M.airTime(payloadOctets: 0, mic: true) == .microseconds(80))
    }
}
