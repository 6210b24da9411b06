import BLESimulation
import BLEWire

/// Identifies a radio attached to a `VirtualAir`, in the order radios were attached.
public struct AirRadioID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    public static func < (lhs: AirRadioID, rhs: AirRadioID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "radio \(rawValue)" }
}

/// What the air needs from a device attached to it.
protocol AirRadio: AnyObject {
    /// Whether the radio is tuned to receive `transmission` when it starts (channel, PHY, and
    /// whether it is listening at all).
    func isListening(to transmission: AirTransmission) -> Bool
    /// `transmission` arrived intact, at its end, measured at `rssi` dBm.
    func receive(_ transmission: AirTransmission, rssi: Int8)
}

/// One packet sent on an advertising physical channel (Core 5.4 Vol 6 Part B §4.4).
struct AirTransmission {
    let sender: AirRadioID
    /// RF channel index 0…39 (37, 38, 39 are the primary advertising channels).
    let channel: UInt8
    let phy: PHY
    /// dBm.
    let txPower: Int8
    let start: VirtualInstant
    let pdu: AdvertisingChannelPDU

    var duration: Duration { phy.airTime(payloadOctets: pdu.payloadLength) }
    var end: VirtualInstant { start.advanced(by: duration) }
}

/// The shared medium of the virtual radio: it owns the event queue (the virtual clock), knows
/// where every radio is, and decides for each packet which radios hear it, when, and how strongly.
///
/// A packet reaches a radio when the radio listens on its channel and PHY at the packet's start,
/// the radio is within range at its end (`PropagationModel`), and the link's packet error rate
/// does not drop it (one draw from the air's seeded generator per packet and receiver). Receptions
/// are delivered at the packet's end, to radios in the order they were attached, so runs are
/// deterministic. Collisions between simultaneous packets are not modelled.
public final class VirtualAir {
    /// The discrete-event queue every radio on this air schedules on.
    public let queue: EventQueue
    /// How distance turns into RSSI and range; changes apply to the next packet.
    public var propagation: PropagationModel {
        didSet { geometryVersion &+= 1 }
    }
    /// Changes whenever an RSSI `rssi(from:to:txPower:)` returned may no longer hold (a radio
    /// moved, the propagation model changed), for those who keep one.
    private(set) var geometryVersion = 0

    private var random: any RandomNumberGenerator
    private var radios: [AirRadioID: Weak] = [:]
    private var order: [AirRadioID] = []
    private var positions: [AirRadioID: AirPosition] = [:]
    private var errorRates: [DirectedLink: Double] = [:]
    private var nextID = 0

    private struct Weak {
        weak var radio: AirRadio?
    }

    private struct DirectedLink: Hashable {
        let from: AirRadioID
        let to: AirRadioID
    }

    /// - Parameters:
    ///   - random: the generator of packet losses and of the seeds handed to attached controllers.
    public init(
        queue: EventQueue = EventQueue(), propagation: PropagationModel = PropagationModel(),
        random: some RandomNumberGenerator = SeededRandomGenerator(seed: 0x5EED)
    ) {
        self.queue = queue
        self.propagation = propagation
        self.random = random
    }

    /// Virtual time now.
    public var now: VirtualInstant { queue.now }

    /// The attached radios, in attach order.
    public var radioIDs: [AirRadioID] { order.filter { radios[$0]?.radio != nil } }

    // MARK: Attaching and moving

    func attach(_ radio: AirRadio, at position: AirPosition) -> AirRadioID {
        let id = AirRadioID(rawValue: nextID)
        nextID += 1
        radios[id] = Weak(radio: radio)
        order.append(id)
        positions[id] = position
        return id
    }

    /// A fresh seed for an attached device's own generator (drawn from the air's generator).
    func makeSeed() -> UInt64 { random.next() }

    public func position(of radio: AirRadioID) -> AirPosition? { positions[radio] }

    /// Moves a radio; the next packet to or from it sees the new distance.
    public func move(_ radio: AirRadioID, to position: AirPosition) {
        guard positions[radio] != nil else { return }
        positions[radio] = position
        geometryVersion &+= 1
    }

    // MARK: Link quality

    /// Sets the probability (0…1) that a packet from `from` is lost at `to`, whatever the
    /// distance (a CRC error at the receiver).
    public func setPacketErrorRate(_ rate: Double, from: AirRadioID, to: AirRadioID) {
        errorRates[DirectedLink(from: from, to: to)] = min(1, max(0, rate))
    }

    /// Sets the same packet error rate in both directions.
    public func setPacketErrorRate(_ rate: Double, between a: AirRadioID, and b: AirRadioID) {
        setPacketErrorRate(rate, from: a, to: b)
        setPacketErrorRate(rate, from: b, to: a)
    }

    public func packetErrorRate(from: AirRadioID, to: AirRadioID) -> Double {
        // Most airs lose nothing: no hashing per packet then.
        if errorRates.isEmpty { return 0 }
        return errorRates[DirectedLink(from: from, to: to)] ?? 0
    }

    /// The RSSI `to` would measure for a packet of `txPower` dBm from `from`, or nil when out of
    /// range. No packet error is drawn.
    public func rssi(from: AirRadioID, to: AirRadioID, txPower: Int8) -> Int8? {
        guard let a = positions[from], let b = positions[to] else { return nil }
        return propagation.rssi(txPower: txPower, distance: a.distance(to: b))
    }

    /// Whether one packet from `from` reaches `to` now: in range, and not lost to the link's
    /// packet error rate (one draw). Returns the RSSI measured, or nil.
    func sampleReception(from: AirRadioID, to: AirRadioID, txPower: Int8) -> Int8? {
        sampleReception(rssi: rssi(from: from, to: to, txPower: txPower), from: from, to: to)
    }

    /// `sampleReception(from:to:txPower:)` with the RSSI already known (`rssi(from:to:txPower:)`
    /// when nothing has moved since): only the packet error is drawn.
    func sampleReception(rssi: Int8?, from: AirRadioID, to: AirRadioID) -> Int8? {
        guard let rssi else { return nil }
        let rate = packetErrorRate(from: from, to: to)
        if rate > 0, Double.random(in: 0..<1, using: &random) < rate { return nil }
        return rssi
    }

    // MARK: Advertising channels

    /// Sends a packet on an advertising physical channel at `transmission.start` (now or later).
    ///
    /// At the start, every other radio is asked whether it listens; each that does gets the
    /// packet at its end if it is in range and not lost then.
    func transmit(_ transmission: AirTransmission) {
        queue.schedule(at: transmission.start) { [weak self] in
            self?.startTransmission(transmission)
        }
    }

    private func startTransmission(_ transmission: AirTransmission) {
        for id in order where id != transmission.sender {
            guard let radio = radios[id]?.radio, radio.isListening(to: transmission) else { continue }
            queue.schedule(at: transmission.end) { [weak self, weak radio] in
                guard let self, let radio else { return }
                guard
                    let rssi = self.sampleReception(
                        from: transmission.sender, to: id, txPower: transmission.txPower)
                else { return }
                radio.receive(transmission, rssi: rssi)
            }
        }
    }
}
