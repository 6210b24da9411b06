import BLEWire

/// An LL Control PDU (Core 5.4 Vol 6 Part B §2.4.2): the opcode and the fields the peer acts on.
/// `payloadLength` is the real PDU's (opcode plus CtrData), so its air time is exact.
enum LLControlPDU: Hashable {
    /// LL_CONNECTION_UPDATE_IND (§2.4.2.1).
    case connectionUpdateInd(ConnectionTimingParameters, instant: UInt16)
    /// LL_TERMINATE_IND (§2.4.2.3).
    case terminateInd(HCIStatus)
    /// LL_ENC_REQ (§2.4.2.4): Rand and EDIV identify the key; SKDm and IVm are not modelled.
    case encReq(random: UInt64, diversifier: UInt16)
    /// LL_ENC_RSP (§2.4.2.5).
    case encRsp
    /// LL_START_ENC_REQ (§2.4.2.6).
    case startEncReq
    /// LL_START_ENC_RSP (§2.4.2.7).
    case startEncRsp
    /// LL_UNKNOWN_RSP (§2.4.2.8).
    case unknownRsp(UInt8)
    /// LL_FEATURE_REQ (§2.4.2.9).
    case featureReq(LEFeatures)
    /// LL_FEATURE_RSP (§2.4.2.10).
    case featureRsp(LEFeatures)
    /// LL_PAUSE_ENC_REQ (§2.4.2.11).
    case pauseEncReq
    /// LL_PAUSE_ENC_RSP (§2.4.2.12).
    case pauseEncRsp
    /// LL_VERSION_IND (§2.4.2.13).
    case versionInd(version: UInt8, company: UInt16, subversion: UInt16)
    /// LL_REJECT_IND (§2.4.2.14).
    case rejectInd(HCIStatus)
    /// LL_PERIPHERAL_FEATURE_REQ (§2.4.2.15).
    case peripheralFeatureReq(LEFeatures)
    /// LL_CONNECTION_PARAM_REQ (§2.4.2.16).
    case connectionParamReq(ConnectionParameterRange)
    /// LL_REJECT_EXT_IND (§2.4.2.18).
    case rejectExtInd(rejectedOpcode: UInt8, HCIStatus)
    /// LL_LENGTH_REQ (§2.4.2.21).
    case lengthReq(DataLengthValues)
    /// LL_LENGTH_RSP (§2.4.2.22).
    case lengthRsp(DataLengthValues)
    /// LL_PHY_REQ (§2.4.2.23).
    case phyReq(tx: HCI.LEPHYs, rx: HCI.LEPHYs)
    /// LL_PHY_RSP (§2.4.2.24).
    case phyRsp(tx: HCI.LEPHYs, rx: HCI.LEPHYs)
    /// LL_PHY_UPDATE_IND (§2.4.2.25): nil leaves a direction unchanged.
    case phyUpdateInd(centralToPeripheral: PHY?, peripheralToCentral: PHY?, instant: UInt16)

    /// The opcode octet.
    var opcode: UInt8 {
        switch self {
        case .connectionUpdateInd: 0x00
        case .terminateInd: 0x02
        case .encReq: 0x03
        case .encRsp: 0x04
        case .startEncReq: 0x05
        case .startEncRsp: 0x06
        case .unknownRsp: 0x07
        case .featureReq: 0x08
        case .featureRsp: 0x09
        case .pauseEncReq: 0x0A
        case .pauseEncRsp: 0x0B
        case .versionInd: 0x0C
        case .rejectInd: 0x0D
        case .peripheralFeatureReq: 0x0E
        case .connectionParamReq: 0x0F
        case .rejectExtInd: 0x11
        case .lengthReq: 0x14
        case .lengthRsp: 0x15
        case .phyReq: 0x16
        case .phyRsp: 0x17
        case .phyUpdateInd: 0x18
        }
    }

    /// Opcode and CtrData octets.
    var payloadLength: Int {
        let ctrData: Int
        switch self {
        case .connectionUpdateInd: ctrData = 11
        case .terminateInd, .unknownRsp, .rejectInd: ctrData = 1
        case .encReq: ctrData = 22
        case .encRsp: ctrData = 12
        case .startEncReq, .startEncRsp, .pauseEncReq, .pauseEncRsp: ctrData = 0
        case .featureReq, .featureRsp, .peripheralFeatureReq, .lengthReq, .lengthRsp: ctrData = 8
        case .versionInd: ctrData = 5
        case .connectionParamReq: ctrData = 23
        case .rejectExtInd, .phyReq, .phyRsp: ctrData = 2
        case .phyUpdateInd: ctrData = 4
        }
        return 1 + ctrData
    }
}

/// Interval, latency and timeout of a connection in their air units: 1.25 ms, events, 10 ms
/// (Core 5.4 Vol 6 Part B §2.3.3.1, §4.5.1).
struct ConnectionTimingParameters: Hashable {
    var interval: UInt16
    var latency: UInt16
    var timeout: UInt16

    var intervalDuration: Duration { .microseconds(Int64(interval) * 1250) }
    var timeoutDuration: Duration { .milliseconds(Int64(timeout) * 10) }
}

/// The range a peer asks for in LL_CONNECTION_PARAM_REQ (§2.4.2.16).
struct ConnectionParameterRange: Hashable {
    var intervalMin: UInt16
    var intervalMax: UInt16
    var latency: UInt16
    var timeout: UInt16
}

/// connMaxRxOctets, connMaxRxTime, connMaxTxOctets, connMaxTxTime (§2.4.2.21, §4.5.10).
struct DataLengthValues: Hashable {
    var maxRxOctets: UInt16
    var maxRxTime: UInt16
    var maxTxOctets: UInt16
    var maxTxTime: UInt16
}

/// A PDU on the data physical channel (Core 5.4 Vol 6 Part B §2.4).
enum LinkLayerPDU: Hashable {
    /// LLID 0b01 with no payload.
    case empty
    /// A piece of the host's data: LLID 0b10 when it starts an L2CAP PDU, 0b01 otherwise.
    case data(LinkLayerData)
    /// LLID 0b11.
    case control(LLControlPDU)

    /// Whether this is the empty PDU: a pattern match, not `==`, which would compare payloads.
    var isEmpty: Bool {
        if case .empty = self { return true }
        return false
    }

    var payloadLength: Int {
        switch self {
        case .empty: 0
        case .data(let data): data.payload.count
        case .control(let control): control.payloadLength
        }
    }
}

/// The payload of an LL data PDU (Core 5.4 Vol 6 Part B §2.4) and what it means for the host's
/// buffers.
struct LinkLayerData: Hashable {
    /// LLID 0b10: the start of an L2CAP PDU.
    let start: Bool
    /// A piece of the host's ACL data, sharing its storage.
    let payload: ArraySlice<UInt8>
    /// The last piece of one HCI ACL packet from the host: its acknowledgement frees that
    /// controller buffer (Number Of Completed Packets).
    let completesHostPacket: Bool
}

/// One side's transmit state: LL Control PDUs first, then the host's data cut to the link's
/// largest payload, and the one PDU in flight until the peer acknowledges it (SN/NESN,
/// Core 5.4 Vol 6 Part B §4.5.9).
struct LinkTransmitQueue {
    private var control: [LLControlPDU] = []
    private var data: [OutgoingHostPacket] = []
    /// Sent and not yet acknowledged: resent unchanged (an unacknowledged PDU may not change).
    private(set) var inFlight: LinkLayerPDU?
    var transmitSeqNum = false
    var nextExpectedSeqNum = false
    /// While encryption starts or pauses, no new data PDU may be sent (§5.1.3).
    var dataPaused = false

    private struct OutgoingHostPacket {
        /// The HCI ACL packet's data, sharing the host's buffer (cut into PDUs without copying).
        let bytes: ArraySlice<UInt8>
        let start: Bool
        /// Octets already sent.
        var offset = 0
    }

    mutating func enqueue(_ pdu: LLControlPDU) { control.append(pdu) }

    /// Queues `pdu` ahead of every other control PDU (LL_TERMINATE_IND) and stops new data.
    mutating func enqueueFirst(_ pdu: LLControlPDU) {
        control.insert(pdu, at: 0)
        dataPaused = true
    }

    /// Queues one HCI ACL packet's data; it must not be empty (an empty LL data PDU starting an
    /// L2CAP PDU does not exist).
    mutating func enqueue(hostData bytes: ArraySlice<UInt8>, start: Bool) {
        guard !bytes.isEmpty else { return }
        data.append(OutgoingHostPacket(bytes: bytes, start: start))
    }

    /// Whether anything besides an empty PDU waits to be sent.
    var hasPending: Bool {
        if let inFlight, !inFlight.isEmpty { return true }
        return !control.isEmpty || (!dataPaused && !data.isEmpty)
    }

    /// The payload length `next(maxPayload:)` would send now, without sending it (for the room
    /// a shared radio must leave an event's first pair, before the event is planned).
    func nextPayloadLength(maxPayload: Int) -> Int {
        if let inFlight { return inFlight.payloadLength }
        if let first = control.first { return LinkLayerPDU.control(first).payloadLength }
        if !dataPaused, let packet = data.first {
            return min(max(1, maxPayload), packet.bytes.count - packet.offset)
        }
        return 0
    }

    /// The PDU to send now: the one in flight, else the next control PDU, else the next piece
    /// of data of at most `maxPayload` octets, else an empty PDU.
    mutating func next(maxPayload: Int) -> LinkLayerPDU {
        if let inFlight { return inFlight }
        let pdu: LinkLayerPDU
        if !control.isEmpty {
            pdu = .control(control.removeFirst())
        } else if !dataPaused, !data.isEmpty {
            var packet = data[0]
            let length = min(max(1, maxPayload), packet.bytes.count - packet.offset)
            let first = packet.bytes.startIndex + packet.offset
            let piece = packet.bytes[first..<(first + length)]
            let start = packet.start && packet.offset == 0
            packet.offset += length
            let completes = packet.offset >= packet.bytes.count
            if completes { data.removeFirst() } else { data[0] = packet }
            pdu = .data(LinkLayerData(start: start, payload: piece, completesHostPacket: completes))
        } else {
            pdu = .empty
        }
        inFlight = pdu
        return pdu
    }

    /// The peer acknowledged the PDU in flight: returns it and moves SN on.
    mutating func acknowledge() -> LinkLayerPDU? {
        transmitSeqNum.toggle()
        defer { inFlight = nil }
        return inFlight
    }

    /// Drops the host's queued data (the connection is gone); its buffers are freed by the
    /// connection's own count (`Connection.hostPacketsHeld`).
    mutating func removeAllData() {
        data = []
        if case .data = inFlight { inFlight = nil }
    }
}

extension LinkTransmitQueue {
    /// This side's sequence bits and what it has in flight, as the planner keeps them
    /// (Core 5.4 Vol 6 Part B §4.5.9).
    var ackSide: LinkLayerAckState.Side {
        var side = LinkLayerAckState.Side()
        side.transmitSeqNum = transmitSeqNum
        side.nextExpectedSeqNum = nextExpectedSeqNum
        switch inFlight {
        case nil: side.outstanding = .none
        case .empty?: side.outstanding = .empty
        case _?: side.outstanding = .data
        }
        return side
    }

    /// Takes the sequence bits the plan of an event left (§4.5.9); an empty PDU the plan saw
    /// acknowledged is no longer in flight.
    mutating func settle(_ side: LinkLayerAckState.Side) {
        transmitSeqNum = side.transmitSeqNum
        nextExpectedSeqNum = side.nextExpectedSeqNum
        if side.outstanding == .none { _ = acknowledgeEmpty() }
    }

    /// The peer acknowledged the empty PDU in flight, if that is what is in flight: a new PDU
    /// may go next.
    mutating func acknowledgeEmpty() -> Bool {
        guard inFlight?.isEmpty == true else { return false }
        inFlight = nil
        return true
    }

    /// The queue as the connection-event planner reads it (`LLTransmitQueue`).
    func plannerView(maxPayload: Int) -> PlannerView { PlannerView(self, maxPayload: maxPayload) }

    /// What `next(maxPayload:)` would send one after another — the PDU in flight (unless empty),
    /// the control PDUs, then the host's data cut to `maxPayload` — read from a copy with a cursor
    /// of its own, so planning an event leaves the queue as it is. `removeFirst()` moves past the
    /// head the plan saw acknowledged.
    struct PlannerView: LLTransmitQueue {
        private let queue: LinkTransmitQueue
        private let step: Int
        private var inFlightDone = false
        private var controlIndex = 0
        private var dataIndex = 0
        private var dataOffset: Int

        init(_ queue: LinkTransmitQueue, maxPayload: Int) {
            self.queue = queue
            step = max(1, maxPayload)
            dataOffset = queue.data.first?.offset ?? 0
        }

        func peek(_ offset: Int) -> LLFragment? {
            var skip = offset
            if !inFlightDone, let inFlight = queue.inFlight, !inFlight.isEmpty {
                if skip == 0 { return Self.fragment(inFlight) }
                skip -= 1
            }
            let controls = queue.control.count - controlIndex
            if skip < controls {
                let control = LinkLayerPDU.control(queue.control[controlIndex + skip])
                return LLFragment(length: control.payloadLength, boundary: .start)
            }
            skip -= controls
            guard !queue.dataPaused else { return nil }
            var index = dataIndex
            var position = dataOffset
            while index < queue.data.count {
                let packet = queue.data[index]
                let length = min(step, packet.bytes.count - position)
                if skip == 0 {
                    return LLFragment(
                        length: length, boundary: packet.start && position == 0 ? .start : .continuation)
                }
                skip -= 1
                position += length
                if position >= packet.bytes.count {
                    index += 1
                    position = 0
                }
            }
            return nil
        }

        /// The in-flight PDU as the planner sees it.
        private static func fragment(_ pdu: LinkLayerPDU) -> LLFragment {
            if case .data(let data) = pdu, !data.start {
                return LLFragment(length: pdu.payloadLength, boundary: .continuation)
            }
            return LLFragment(length: pdu.payloadLength, boundary: .start)
        }

        mutating func removeFirst() {
            if !inFlightDone, let inFlight = queue.inFlight, !inFlight.isEmpty {
                inFlightDone = true
            } else if controlIndex < queue.control.count {
                controlIndex += 1
            } else if !queue.dataPaused, dataIndex < queue.data.count {
                dataOffset += min(step, queue.data[dataIndex].bytes.count - dataOffset)
                if dataOffset >= queue.data[dataIndex].bytes.count {
                    dataIndex += 1
                    dataOffset = 0
                }
            }
        }
    }
}
