import BLEWire
import Testing

@testable import BLEController

/// One row of the reference goodput table (Write Command, central → peripheral, encrypted,
/// event length = interval).
struct ReferenceRow: Sendable, CustomTestStringConvertible {
    let phy: PHY
    let llMax: Int
    let attMTU: Int
    let intervalMicroseconds: Int64
    let packetsA: Int
    let packetsB: Int
    let goodputA: Double
    let goodputB: Double
    let ceiling: Double

    var testDescription: String {
        "\(phy) LL \(llMax) MTU \(attMTU) CI \(Double(intervalMicroseconds) / 1_000) ms"
    }

    func link(rule: LinkTiming.EndRule) -> LinkTiming {
        LinkTiming(
            interval: .microseconds(intervalMicroseconds), phy: phy, maxOctets: llMax, encrypted: true,
            endRule: rule)
    }

    static let table: [ReferenceRow] = [
        ReferenceRow(
            phy: .le1M, llMax: 27, attMTU: 23, intervalMicroseconds: 7_500, packetsA: 10, packetsB: 10,
            goodputA: 213, goodputB: 213, ceiling: 226),
        ReferenceRow(
            phy: .le1M, llMax: 251, attMTU: 247, intervalMicroseconds: 7_500, packetsA: 3, packetsB: 2,
            goodputA: 781, goodputB: 521, ceiling: 781),
        ReferenceRow(
            phy: .le2M, llMax: 27, attMTU: 23, intervalMicroseconds: 7_500, packetsA: 14, packetsB: 14,
            goodputA: 299, goodputB: 299, ceiling: 312),
        ReferenceRow(
            phy: .le2M, llMax: 251, attMTU: 247, intervalMicroseconds: 7_500, packetsA: 5, packetsB: 4,
            goodputA: 1_301, goodputB: 1_041, ceiling: 1_386),
        ReferenceRow(
            phy: .le2M, llMax: 251, attMTU: 247, intervalMicroseconds: 15_000, packetsA: 10, packetsB: 9,
            goodputA: 1_301, goodputB: 1_171, ceiling: 1_386),
        ReferenceRow(
            phy: .le2M, llMax: 251, attMTU: 247, intervalMicroseconds: 50_000, packetsA: 35, packetsB: 34,
            goodputA: 1_366, goodputB: 1_327, ceiling: 1_386),
    ]
}

/// Nordic's throughput sample: 2M, LL 251, ATT MTU 498, unencrypted, 400 ms, rule B.
let nordicSampleLink = LinkTiming(
    interval: .milliseconds(400), phy: .le2M, maxOctets: 251, encrypted: false, endRule: .ruleB)
let nordicSampleMTU = 498

/// |measured − expected| ≤ tolerance · |expected|.
func isWithin(_ measured: Double, _ expected: Double, relative tolerance: Double) -> Bool {
    abs(measured - expected) <= tolerance * abs(expected)
}

/// An endless supply of full-size ATT PDUs already cut into LL fragments, as a host that never
/// lets the controller's buffers run dry would give. The tag is the fragment's sequence number,
/// so deliveries can be checked for order and uniqueness. Allocates nothing.
struct SaturatedQueue: LLTransmitQueue {
    let fragments: [Int]
    private(set) var nextSequence = 0

    init(l2capLength: Int, maxPayload: Int) {
        fragments = LLFragment.lengths(l2capLength: l2capLength, maxPayload: maxPayload)
    }

    func peek(_ offset: Int) -> LLFragment? {
        let sequence = nextSequence + offset
        let index = sequence % fragments.count
        return LLFragment(length: fragments[index], boundary: index == 0 ? .start : .continuation, tag: sequence)
    }

    mutating func removeFirst() { nextSequence += 1 }
}

/// Counts what each side's host receives and checks that fragments arrive once each and in
/// order (tags are consecutive sequence numbers).
struct DeliveryMeter: ConnectionEventObserver {
    let fragmentsPerSDU: Int
    var fragmentsToPeripheral = 0
    var fragmentsToCentral = 0
    var acknowledgedFromCentral = 0
    var acknowledgedFromPeripheral = 0
    var outOfOrder = 0
    var acknowledgedBeforeDelivery = 0

    init(fragmentsPerSDU: Int) { self.fragmentsPerSDU = fragmentsPerSDU }

    var sdusToPeripheral: Int { fragmentsToPeripheral / fragmentsPerSDU }
    var sdusToCentral: Int { fragmentsToCentral / fragmentsPerSDU }

    mutating func record(_ exchange: LLExchange) {
        if let fragment = exchange.deliveredToPeripheral {
            if fragment.tag != fragmentsToPeripheral { outOfOrder += 1 }
            fragmentsToPeripheral += 1
        }
        if let fragment = exchange.deliveredToCentral {
            if fragment.tag != fragmentsToCentral { outOfOrder += 1 }
            fragmentsToCentral += 1
        }
        if let fragment = exchange.acknowledgedFromCentral {
            if fragment.tag != acknowledgedFromCentral { outOfOrder += 1 }
            if fragment.tag >= fragmentsToPeripheral { acknowledgedBeforeDelivery += 1 }
            acknowledgedFromCentral += 1
        }
        if let fragment = exchange.acknowledgedFromPeripheral {
            if fragment.tag != acknowledgedFromPeripheral { outOfOrder += 1 }
            if fragment.tag >= fragmentsToCentral { acknowledgedBeforeDelivery += 1 }
            acknowledgedFromPeripheral += 1
        }
    }
}

/// The outcome of running the planner event after event.
struct SimulationResult {
    var events = 0
    var elapsedMicroseconds = 0
    var meter: DeliveryMeter
    var summaries: [ConnectionEventSummary] = []
    var pairs = 0

    /// Application goodput of complete SDUs received by `side`'s peer, kbit/s.
    func goodput(from sender: LinkSide, attMTU: Int) -> Double {
        let sdus = sender == .central ? meter.sdusToPeripheral : meter.sdusToCentral
        return Double(sdus * (attMTU - 3) * 8) / Double(elapsedMicroseconds) * 1_000
    }
}

/// Runs `seconds` of virtual time of saturated one-way traffic (or two-way when `sender` is nil)
/// through the planner, one event per interval.
func simulateSaturated<Errors: PacketErrorSource>(
    link: LinkTiming, attMTU: Int, sender: LinkSide?, seconds: Int = 10, errors: Errors,
    keepSummaries: Bool = false
) -> SimulationResult {
    var errors = errors
    let intervalMicroseconds = link.interval.wholeMicroseconds
    let events = seconds * 1_000_000 / intervalMicroseconds
    let planner = ConnectionEventPlanner(link: link)
    let l2cap = attMTU + 4
    var central = SaturatedQueue(l2capLength: l2cap, maxPayload: link.largestPayload(sentBy: .central))
    var peripheral = SaturatedQueue(l2capLength: l2cap, maxPayload: link.largestPayload(sentBy: .peripheral))
    var centralQueue = FragmentQueue()
    var peripheralQueue = FragmentQueue()
    var ack = LinkLayerAckState()
    var result = SimulationResult(meter: DeliveryMeter(fragmentsPerSDU: central.fragments.count))
    for _ in 0..<events {
        let summary: ConnectionEventSummary
        switch sender {
        case .central:
            summary = planner.planEvent(
                ack: &ack, central: &central, peripheral: &peripheralQueue, errors: &errors,
                observer: &result.meter)
        case .peripheral:
            summary = planner.planEvent(
                ack: &ack, central: &centralQueue, peripheral: &peripheral, errors: &errors,
                observer: &result.meter)
        case nil:
            summary = planner.planEvent(
                ack: &ack, central: &central, peripheral: &peripheral, errors: &errors, observer: &result.meter)
        }
        result.pairs += summary.pairs
        if keepSummaries { result.summaries.append(summary) }
    }
    result.events = events
    result.elapsedMicroseconds = events * intervalMicroseconds
    return result
}

/// Scripted receptions, in air order; `.valid` once the script runs out.
struct ScriptedErrors: PacketErrorSource {
    var script: [Reception]
    var position = 0

    init(_ script: [Reception]) { self.script = script }

    mutating func reception(ofPacketFrom sender: LinkSide, payloadLength: Int) -> Reception {
        defer { position += 1 }
        return position < script.count ? script[position] : .valid
    }
}
