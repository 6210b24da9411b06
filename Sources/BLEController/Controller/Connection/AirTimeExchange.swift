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

/// Connection events with the air-time model's rules (Core 5.4 Vol 6 Part B §4.5.1, §4.5.6,
/// §4.5.9; the formulas of the project's air-time reference): packet pairs T_IFS apart from the
/// anchor, each side's next PDU (or an empty one), SN/NESN acknowledgement, MD keeping the event
/// open while either side has more, and the event closing when the next pair would pass the
/// event length (rule A: the actual reply; rule B: room for a full-length reply), at the
/// packets-per-event cap, after two consecutive CRC errors at the central, or when the central
/// receives nothing.
struct AirTimeExchange: ConnectionEventExchange {
    var scheduling: LinkLayerScheduling

    init(scheduling: LinkLayerScheduling = LinkLayerScheduling()) {
        self.scheduling = scheduling
    }

    mutating func run(
        _ setup: ConnectionEventSetup, central: inout LinkTransmitQueue, peripheral: inout LinkTransmitQueue,
        into outcome: inout ConnectionEventOutcome, medium: (ConnectionRole, VirtualInstant) -> Int8?
    ) {
        outcome.reset(anchor: setup.anchor)
        let ifs = RadioTiming.interFrameSpace
        let cap = scheduling.maxPacketsPerEvent ?? .max
        let longestReply = setup.peripheral.phy.airTime(
            payloadOctets: setup.peripheral.maxPayload, mic: setup.peripheral.encrypted)
        var start = setup.anchor
        var pairs = 0
        var crcErrorsInARow = 0
        var peripheralMoreData = false

        while true {
            let centralLength = central.nextPayloadLength(maxPayload: setup.central.maxPayload)
            let centralTime = setup.central.phy.airTime(
                payloadOctets: centralLength, mic: setup.central.encrypted && centralLength > 0)
            // The first pair always goes; later ones only if they fit (§4.5.6).
            if pairs > 0 {
                if pairs >= cap { break }
                let replyTime: Duration
                switch scheduling.endRule {
                case .ruleA:
                    let length = peripheral.nextPayloadLength(maxPayload: setup.peripheral.maxPayload)
                    replyTime = setup.peripheral.phy.airTime(
                        payloadOctets: length, mic: setup.peripheral.encrypted && length > 0)
                case .ruleB:
                    replyTime = longestReply
                }
                let needed = setup.anchor.duration(to: start) + centralTime + ifs + replyTime + ifs
                if needed > setup.eventLength { break }
            }

            // The central's packet.
            let sent = central.next(maxPayload: setup.central.maxPayload)
            let sentEnd = start.advanced(by: centralTime)
            outcome.end = sentEnd
            pairs += 1
            guard setup.peripheralListening, let rssiAtPeripheral = medium(.central, start) else {
                // The peripheral heard nothing and stays silent: the central receives nothing
                // and closes the event.
                break
            }
            let newAtPeripheral = central.transmitSeqNum == peripheral.nextExpectedSeqNum
            if newAtPeripheral { peripheral.nextExpectedSeqNum.toggle() }
            outcome.receptions.append(
                .init(from: .central, pdu: sent, at: sentEnd, rssi: rssiAtPeripheral, isNew: newAtPeripheral))
            if central.nextExpectedSeqNum != peripheral.transmitSeqNum, let acked = peripheral.acknowledge() {
                outcome.acknowledgements.append(.init(of: .peripheral, pdu: acked, at: sentEnd))
            }

            // The peripheral's reply, T_IFS later.
            let replyStart = sentEnd.advanced(by: ifs)
            let reply = peripheral.next(maxPayload: setup.peripheral.maxPayload)
            peripheralMoreData = peripheral.hasMoreBehindInFlight
            let replyEnd = replyStart.advanced(
                by: setup.peripheral.phy.airTime(
                    payloadOctets: reply.payloadLength, mic: setup.peripheral.encrypted && reply.payloadLength > 0))
            outcome.end = replyEnd
            if let rssiAtCentral = medium(.peripheral, replyStart) {
                crcErrorsInARow = 0
                let newAtCentral = peripheral.transmitSeqNum == central.nextExpectedSeqNum
                if newAtCentral { central.nextExpectedSeqNum.toggle() }
                outcome.receptions.append(
                    .init(from: .peripheral, pdu: reply, at: replyEnd, rssi: rssiAtCentral, isNew: newAtCentral))
                if peripheral.nextExpectedSeqNum != central.transmitSeqNum, let acked = central.acknowledge() {
                    outcome.acknowledgements.append(.init(of: .central, pdu: acked, at: replyEnd))
                }
            } else {
                // A CRC error at the central: nothing acknowledged; two in a row close the event.
                crcErrorsInARow += 1
                if crcErrorsInARow >= 2 { break }
            }

            // MD: go on while either side has more to send.
            guard central.hasPending || peripheralMoreData || crcErrorsInARow > 0 else { break }
            start = replyEnd.advanced(by: ifs)
        }
    }
}
