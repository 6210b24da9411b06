import BLESimulation
import BLEWire

// Advertising events on the air (Core 5.4 Vol 6 Part B §4.4.2): the PDUs of each event on the
// primary channels, the auxiliary chains of extended advertising, and the spacing of events.

extension VirtualController {
    /// The longest request an advertiser waits for after a connectable or scannable PDU:
    /// CONNECT_IND / AUX_CONNECT_REQ (34 octets of payload).
    static let longestRequestPayload = 34
    /// How far a request's start may stray from T_IFS after the advertising PDU and still be
    /// received (the ±2 µs of §4.1.1).
    static let interFrameTolerance = Duration.microseconds(2)

    /// Enables `set`: its first event starts now.
    func startAdvertising(
        _ set: AdvertisingSet, address: LEAddress, duration: Duration?, maximumEvents: Int?
    ) {
        let deadline = duration.map { now.advanced(by: $0) }
        let run = AdvertisingRun(address: address, startedAt: now, deadline: deadline, maximumEvents: maximumEvents)
        if set.parameters.isDirected { run.target = directedTarget(set.parameters.peer) }
        set.run = run
        if let deadline {
            run.deadlineToken = air.queue.schedule(at: deadline) { [weak self, weak set] in
                guard let self, let set else { return }
                self.advertisingDeadlineReached(set)
            }
        }
        run.pendingStep = air.queue.schedule(at: now) { [weak self, weak set] in
            guard let self, let set else { return }
            self.beginAdvertisingEvent(set)
        }
    }

    /// Disables `set` silently (the host asked, or the controller reset).
    func stopAdvertisingRun(of set: AdvertisingSet) {
        set.run?.cancel(on: air.queue)
        set.run = nil
    }

    private func beginAdvertisingEvent(_ set: AdvertisingSet) {
        guard let run = set.run else { return }
        run.eventStart = now
        if set.parameters.isLegacy {
            sendLegacyPDU(set, channelIndex: 0)
        } else {
            sendExtendedPrimaryPDUs(set)
        }
    }

    /// Ends the event and schedules the next: advInterval plus advDelay, a pseudo-random 0–10 ms
    /// (§4.4.2.2.1), except for high duty cycle directed advertising, whose events follow each
    /// other every 3.75 ms or less without delay (§4.4.2.4.3).
    func finishAdvertisingEvent(_ set: AdvertisingSet) {
        guard let run = set.run else { return }
        run.listening = nil
        run.eventsCompleted += 1
        if let maximum = run.maximumEvents, run.eventsCompleted >= maximum {
            stopAdvertisingRun(of: set)
            reportAdvertisingSetTerminated(set, status: .limitReached, connectionHandle: 0, events: run.eventsCompleted)
            return
        }
        let next: VirtualInstant
        if set.parameters.isHighDutyCycle {
            next = run.eventStart.advanced(by: .microseconds(3750))
        } else {
            let interval = Duration.microseconds(Int64(set.parameters.intervalMin) * 625)
            let delay = Duration.microseconds(Int64.random(in: 0...10_000, using: &random))
            next = run.eventStart.advanced(by: interval + delay)
        }
        run.pendingStep = air.queue.schedule(at: max(next, now)) { [weak self, weak set] in
            guard let self, let set else { return }
            self.beginAdvertisingEvent(set)
        }
    }

    /// Duration elapsed (§7.8.56) or high duty cycle directed advertising ran its 1.28 s
    /// (§7.8.9): the set stops and the host hears 0x3C Advertising Timeout.
    private func advertisingDeadlineReached(_ set: AdvertisingSet) {
        guard let run = set.run else { return }
        stopAdvertisingRun(of: set)
        // High duty cycle directed advertising that found no initiator fails the connection
        // (§7.8.9, §7.8.56); an extended set also reports its end (§7.7.65.18).
        if set.parameters.isHighDutyCycle {
            sendConnectionComplete(failure: .advertisingTimeout, role: .peripheral)
        }
        reportAdvertisingSetTerminated(
            set, status: .advertisingTimeout, connectionHandle: 0, events: run.eventsCompleted)
    }

    func reportAdvertisingSetTerminated(_ set: AdvertisingSet, status: HCIStatus, connectionHandle: ConnectionHandle, events: Int)
    {
        guard !set.isLegacyCommandSet else { return }
        send(
            le: .advertisingSetTerminated(
                .init(
                    status: status, advertisingHandle: set.handle, connectionHandle: connectionHandle,
                    numCompletedExtendedAdvertisingEvents: UInt8(clamping: events))))
    }

    // MARK: Legacy PDUs (§4.4.2.3–§4.4.2.6)

    private func legacyPDU(_ set: AdvertisingSet, run: AdvertisingRun) -> AdvertisingChannelPDU {
        let data = set.data.bytes
        let address = run.address
        switch set.parameters.legacyPDU {
        case .connectableUndirected, nil, .other: return .advInd(advertiser: address, data: data)
        case .connectableDirectedHighDutyCycle, .connectableDirectedLowDutyCycle:
            return .advDirectInd(advertiser: address, target: run.target ?? set.parameters.peer)
        case .scannableUndirected: return .advScanInd(advertiser: address, data: data)
        case .nonConnectableUndirected: return .advNonconnInd(advertiser: address, data: data)
        }
    }

    private func sendLegacyPDU(_ set: AdvertisingSet, channelIndex: Int) {
        guard let run = set.run else { return }
        let channels = set.parameters.channels
        guard channelIndex < channels.count else {
            finishAdvertisingEvent(set)
            return
        }
        let transmission = AirTransmission(
            sender: radio, channel: channels[channelIndex], phy: .le1M, txPower: set.parameters.txPower,
            start: now, pdu: legacyPDU(set, run: run))
        air.transmit(transmission)
        let end = transmission.end
        var next = end.advanced(by: RadioTiming.interFrameSpace)
        if set.parameters.isConnectable || set.parameters.isScannable {
            run.listening = AdvertisingRun.ListenWindow(
                channel: transmission.channel, phy: .le1M, opens: end,
                closes: end.advanced(by: RadioTiming.interFrameSpace + Self.interFrameTolerance), auxiliary: false)
            let request = PHY.le1M.airTime(payloadOctets: Self.longestRequestPayload)
            next = end.advanced(by: RadioTiming.interFrameSpace * 2 + request)
        }
        scheduleLegacyStep(set, channelIndex: channelIndex + 1, at: next)
    }

    private func scheduleLegacyStep(_ set: AdvertisingSet, channelIndex: Int, at time: VirtualInstant) {
        guard let run = set.run else { return }
        run.pendingStep = air.queue.schedule(at: time) { [weak self, weak set] in
            guard let self, let set else { return }
            set.run?.listening = nil
            self.sendLegacyPDU(set, channelIndex: channelIndex)
        }
    }

    /// SCAN_REQ addressed to a listening legacy set: SCAN_RSP T_IFS later on the same channel,
    /// then the event goes on (§4.4.2.3).
    func answerLegacyScanRequest(_ set: AdvertisingSet, request: AirTransmission) {
        guard let run = set.run, let pending = run.pendingStep else { return }
        air.queue.cancel(pending)
        run.listening = nil
        let response = AirTransmission(
            sender: radio, channel: request.channel, phy: .le1M, txPower: set.parameters.txPower,
            start: request.end.advanced(by: RadioTiming.interFrameSpace),
            pdu: .scanRsp(advertiser: run.address, data: set.scanResponse.bytes))
        air.transmit(response)
        let channelIndex = (set.parameters.channels.firstIndex(of: request.channel) ?? 2) + 1
        scheduleLegacyStep(set, channelIndex: channelIndex, at: response.end.advanced(by: RadioTiming.interFrameSpace))
    }

    // MARK: Extended advertising (§4.4.2.2, §4.4.2.7–§4.4.2.9)

    private func sendExtendedPrimaryPDUs(_ set: AdvertisingSet) {
        guard set.run != nil else { return }
        let p = set.parameters
        let mode: ExtendedAdvertisingMode =
            p.isConnectable ? .connectable : (p.isScannable ? .scannable : .nonConnectableNonScannable)
        let dataInfo = ExtendedAdvertisingPDU.DataInfo(did: set.dataID, sid: p.sid)
        let placeholder = ExtendedAdvertisingPDU.AuxPointer(channel: 0, offset: .zero, phy: p.secondaryPHY)
        let template = ExtendedAdvertisingPDU(
            kind: .advExtInd, mode: mode, advertiser: nil, target: nil, dataInfo: dataInfo, auxPointer: placeholder,
            txPower: nil, data: [])
        let duration = p.primaryPHY.airTime(payloadOctets: template.payloadLength)
        let spacing = duration + RadioTiming.interFrameSpace
        let channels = p.channels
        let lastStart = now.advanced(by: spacing * (channels.count - 1))
        let auxStart = lastStart.advanced(by: duration + RadioTiming.minimumAuxFrameSpace)
        let auxChannel = UInt8.random(in: 0...36, using: &random)
        set.run?.auxiliaryChannel = auxChannel
        for (index, channel) in channels.enumerated() {
            let start = now.advanced(by: spacing * index)
            var pdu = template
            pdu.auxPointer = .init(channel: auxChannel, offset: start.duration(to: auxStart), phy: p.secondaryPHY)
            air.transmit(
                AirTransmission(
                    sender: radio, channel: channel, phy: p.primaryPHY, txPower: p.txPower, start: start,
                    pdu: .extended(pdu)))
        }
        set.run?.pendingStep = air.queue.schedule(at: auxStart) { [weak self, weak set] in
            guard let self, let set else { return }
            self.sendAuxiliaryAdvertising(set, channel: auxChannel)
        }
    }

    /// AUX_ADV_IND and, for non-connectable non-scannable sets, the AUX_CHAIN_INDs of the rest
    /// of the data.
    private func sendAuxiliaryAdvertising(_ set: AdvertisingSet, channel: UInt8) {
        guard let run = set.run else { return }
        let p = set.parameters
        let mode: ExtendedAdvertisingMode =
            p.isConnectable ? .connectable : (p.isScannable ? .scannable : .nonConnectableNonScannable)
        let first = ExtendedAdvertisingPDU(
            kind: .auxAdvInd, mode: mode, advertiser: p.isAnonymous ? nil : run.address,
            target: p.isDirected ? (run.target ?? p.peer) : nil, dataInfo: .init(did: set.dataID, sid: p.sid),
            auxPointer: nil,
            txPower: p.properties.contains(.includeTxPower) ? p.txPower : nil, data: [])
        let data = p.supportsAdvertisingData ? set.data.bytes : []
        let chain = makeChain(first: first, data: data[...], keepDataInfo: true)
        let end = transmitChain(chain, firstChannel: channel, phy: p.secondaryPHY, txPower: p.txPower, start: now)
        if p.isConnectable || p.isScannable {
            let firstEnd = now.advanced(by: p.secondaryPHY.airTime(payloadOctets: chain[0].payloadLength))
            run.listening = AdvertisingRun.ListenWindow(
                channel: channel, phy: p.secondaryPHY, opens: firstEnd,
                closes: firstEnd.advanced(by: RadioTiming.interFrameSpace + Self.interFrameTolerance), auxiliary: true)
            let request = p.secondaryPHY.airTime(payloadOctets: Self.longestRequestPayload)
            let next = firstEnd.advanced(by: RadioTiming.interFrameSpace * 2 + request)
            scheduleFinish(set, at: next)
        } else {
            scheduleFinish(set, at: end)
        }
    }

    private func scheduleFinish(_ set: AdvertisingSet, at time: VirtualInstant) {
        set.run?.pendingStep = air.queue.schedule(at: time) { [weak self, weak set] in
            guard let self, let set else { return }
            self.finishAdvertisingEvent(set)
        }
    }

    /// AUX_SCAN_REQ addressed to a listening extended set: AUX_SCAN_RSP (and AUX_CHAIN_INDs)
    /// T_IFS later (§4.4.2.9).
    func answerAuxiliaryScanRequest(_ set: AdvertisingSet, request: AirTransmission) {
        guard let run = set.run, let pending = run.pendingStep else { return }
        air.queue.cancel(pending)
        run.listening = nil
        let p = set.parameters
        let first = ExtendedAdvertisingPDU(
            kind: .auxScanRsp, mode: .nonConnectableNonScannable, advertiser: p.isAnonymous ? nil : run.address,
            target: nil, dataInfo: .init(did: set.dataID, sid: p.sid), auxPointer: nil, txPower: nil, data: [])
        let chain = makeChain(first: first, data: set.scanResponse.bytes[...], keepDataInfo: true)
        let end = transmitChain(
            chain, firstChannel: request.channel, phy: request.phy, txPower: p.txPower,
            start: request.end.advanced(by: RadioTiming.interFrameSpace))
        scheduleFinish(set, at: end)
    }

    /// Cuts `data` into the PDUs of an auxiliary chain: `first` (AUX_ADV_IND or AUX_SCAN_RSP)
    /// then AUX_CHAIN_INDs, each holding what fits in 255 octets beside its header (§2.3.4).
    /// The AuxPtr fields are placeholders until `transmitChain` places the PDUs in time.
    func makeChain(first: ExtendedAdvertisingPDU, data: ArraySlice<UInt8>, keepDataInfo: Bool)
        -> [ExtendedAdvertisingPDU]
    {
        var pdus: [ExtendedAdvertisingPDU] = []
        var template = first
        var rest = data
        let placeholder = ExtendedAdvertisingPDU.AuxPointer(channel: 0, offset: .zero, phy: .le1M)
        while true {
            var last = template
            last.data = []
            let room = ExtendedAdvertisingPDU.maximumPayload - last.payloadLength
            if rest.count <= room {
                last.data = rest
                pdus.append(last)
                return pdus
            }
            var linked = template
            linked.auxPointer = placeholder
            linked.data = []
            let linkedRoom = ExtendedAdvertisingPDU.maximumPayload - linked.payloadLength
            linked.data = rest.prefix(linkedRoom)
            rest = rest.dropFirst(linkedRoom)
            pdus.append(linked)
            template = ExtendedAdvertisingPDU(
                kind: .auxChainInd, mode: .nonConnectableNonScannable, advertiser: nil, target: nil,
                dataInfo: keepDataInfo ? first.dataInfo : nil, auxPointer: nil, txPower: nil, data: [])
        }
    }

    /// Sends a chain T_MAFS apart, each PDU after the first on a fresh secondary channel, with
    /// AuxPtr pointing at the next one. Returns the end of the last PDU.
    @discardableResult
    func transmitChain(
        _ chain: [ExtendedAdvertisingPDU], firstChannel: UInt8, phy: PHY, txPower: Int8, start: VirtualInstant
    ) -> VirtualInstant {
        var start = start
        var channel = firstChannel
        var end = start
        for index in chain.indices {
            var pdu = chain[index]
            let duration = phy.airTime(payloadOctets: pdu.payloadLength)
            let nextStart = start.advanced(by: duration + RadioTiming.minimumAuxFrameSpace)
            let nextChannel = UInt8.random(in: 0...36, using: &random)
            if pdu.auxPointer != nil {
                pdu.auxPointer = .init(channel: nextChannel, offset: start.duration(to: nextStart), phy: phy)
            }
            air.transmit(
                AirTransmission(
                    sender: radio, channel: channel, phy: phy, txPower: txPower, start: start, pdu: .extended(pdu)))
            end = start.advanced(by: duration)
            start = nextStart
            channel = nextChannel
        }
        return end
    }
}
