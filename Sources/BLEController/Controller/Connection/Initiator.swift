import BLESimulation
import BLEWire

/// An initiator (Core 5.4 Vol 6 Part B §4.4.4): it scans for its target's connectable
/// advertising and answers with CONNECT_IND, or with AUX_CONNECT_REQ on the secondary channel of
/// extended advertising.
final class InitiatorRun {
    enum State {
        case scanning
        /// CONNECT_IND or AUX_CONNECT_REQ is on its way; too late to cancel.
        case connecting
    }

    /// LE Extended Create Connection (§7.8.66) rather than LE Create Connection (§7.8.12).
    let extended: Bool
    /// Own_Address_Type: 0x02 / 0x03 send an RPA toward a listed peer (Vol 6 Part B §6.4).
    let ownAddressType: HCI.OwnAddressType
    /// The public or random address used toward a peer without an RPA.
    let ownAddress: LEAddress
    let filterPolicy: HCI.InitiatorFilterPolicy
    /// The peer to connect to, unless the Filter Accept List decides.
    let peer: LEAddress?
    let scans: [ScanSchedule]
    /// Connection parameters per PHY of the new connection.
    let le1M: HCI.ConnectionParameters?
    let le2M: HCI.ConnectionParameters?
    let leCoded: HCI.ConnectionParameters?
    var state = State.scanning
    /// AUX_ADV_IND of a followed connectable train, or AUX_CONNECT_RSP after our request (with
    /// the advertiser and the InitA we sent).
    var expectations: [Expectation] = []
    var nextExpectationID = 0

    struct Expectation {
        var expectation: AirExpectation
        var request: ConnectionRequestData?
        var advertiser: ReceivedAddress?
        var initiatorAddress: LEAddress?
    }

    init(
        extended: Bool, ownAddressType: HCI.OwnAddressType, ownAddress: LEAddress,
        filterPolicy: HCI.InitiatorFilterPolicy, peer: LEAddress?,
        scans: [ScanSchedule], le1M: HCI.ConnectionParameters?, le2M: HCI.ConnectionParameters?,
        leCoded: HCI.ConnectionParameters?
    ) {
        self.extended = extended
        self.ownAddressType = ownAddressType
        self.ownAddress = ownAddress
        self.filterPolicy = filterPolicy
        self.peer = peer
        self.scans = scans
        self.le1M = le1M
        self.le2M = le2M
        self.leCoded = leCoded
    }

    var usesFilterAcceptList: Bool { filterPolicy == .filterAcceptList }

    /// The connection parameters for a connection on `phy` (LE 2M falls back to LE 1M's).
    func parameters(for phy: PHY) -> HCI.ConnectionParameters? {
        switch phy {
        case .le1M: le1M
        case .le2M: le2M ?? le1M
        case .codedS2, .codedS8: leCoded
        }
    }

    func hears(_ transmission: AirTransmission) -> Bool {
        scans.contains { $0.listens(at: transmission.start, channel: transmission.channel, phy: transmission.phy) }
    }

    func cancelPending(on queue: EventQueue) {
        for entry in expectations { if let token = entry.expectation.timeout { queue.cancel(token) } }
        expectations = []
    }
}

extension VirtualController {
    // MARK: Commands (§7.8.12, §7.8.13, §7.8.66)

    /// Checks shared by both create commands; nil when the request may go ahead.
    private func refuseCreateConnection(
        filterPolicy: HCI.InitiatorFilterPolicy, peerType: AddressType, ownType: HCI.OwnAddressType
    ) -> HCIStatus? {
        if initiator != nil { return .commandDisallowed }
        if case .other = filterPolicy { return .invalidHCICommandParameters }
        if case .other = ownType { return .invalidHCICommandParameters }
        if filterPolicy == .peerAddress, case .other = peerType { return .invalidHCICommandParameters }
        if ownAddress(ownType, random: randomAddress) == nil { return .invalidHCICommandParameters }
        if connections.count >= configuration.maximumConnections { return .connectionLimitExceeded }
        return nil
    }

    private func peerTarget(_ policy: HCI.InitiatorFilterPolicy, _ type: AddressType, _ address: BluetoothAddress)
        -> LEAddress?
    {
        guard policy == .peerAddress else { return nil }
        // Without a resolving list an identity address is matched as the address itself.
        return LEAddress(address, type: type.isRandom ? .random : .public)
    }

    private func alreadyConnected(to peer: LEAddress?) -> Bool {
        guard let peer else { return false }
        return connections.values.contains { $0.peerAddress.names(peer) }
    }

    /// HCI_LE_Create_Connection (§7.8.12).
    func leCreateConnection(_ command: HCI.LECreateConnection) -> HCIStatus {
        if let status = refuseCreateConnection(
            filterPolicy: command.initiatorFilterPolicy, peerType: command.peerAddressType,
            ownType: command.ownAddressType)
        {
            return status
        }
        let range: ClosedRange<UInt16> = 0x0004...0x4000
        guard range.contains(command.leScanInterval), range.contains(command.leScanWindow),
            command.leScanWindow <= command.leScanInterval, Self.isValid(command.connectionParameters),
            let own = ownAddress(command.ownAddressType, random: randomAddress)
        else { return .invalidHCICommandParameters }
        let peer = peerTarget(command.initiatorFilterPolicy, command.peerAddressType, command.peerAddress)
        if alreadyConnected(to: peer) { return .connectionAlreadyExists }
        initiator = InitiatorRun(
            extended: false, ownAddressType: command.ownAddressType, ownAddress: own,
            filterPolicy: command.initiatorFilterPolicy, peer: peer,
            scans: [ScanSchedule(interval: command.leScanInterval, window: command.leScanWindow, start: now)],
            le1M: command.connectionParameters, le2M: nil, leCoded: nil)
        return .success
    }

    /// HCI_LE_Extended_Create_Connection (§7.8.66).
    func leExtendedCreateConnection(_ command: HCI.LEExtendedCreateConnection) -> HCIStatus {
        if let status = refuseCreateConnection(
            filterPolicy: command.initiatorFilterPolicy, peerType: command.peerAddressType,
            ownType: command.ownAddressType)
        {
            return status
        }
        // Scanning happens on LE 1M or LE Coded; LE 2M parameters only apply after AUX_CONNECT_REQ.
        guard command.le1M != nil || command.leCoded != nil else { return .invalidHCICommandParameters }
        if command.le2M != nil && !configuration.leFeatures.contains(.le2MPHY) {
            return .unsupportedFeatureOrParameterValue
        }
        if command.leCoded != nil && !configuration.leFeatures.contains(.leCodedPHY) {
            return .unsupportedFeatureOrParameterValue
        }
        for entry in [command.le1M, command.le2M, command.leCoded].compactMap({ $0 }) {
            guard Self.isValid(entry.connectionParameters) else { return .invalidHCICommandParameters }
        }
        var scans: [ScanSchedule] = []
        for (entry, coded) in [(command.le1M, false), (command.leCoded, true)] {
            guard let entry else { continue }
            guard entry.scanInterval >= 4, entry.scanWindow >= 4, entry.scanWindow <= entry.scanInterval else {
                return .invalidHCICommandParameters
            }
            scans.append(ScanSchedule(interval: entry.scanInterval, window: entry.scanWindow, start: now, coded: coded))
        }
        guard let own = ownAddress(command.ownAddressType, random: randomAddress) else {
            return .invalidHCICommandParameters
        }
        let peer = peerTarget(command.initiatorFilterPolicy, command.peerAddressType, command.peerAddress)
        if alreadyConnected(to: peer) { return .connectionAlreadyExists }
        initiator = InitiatorRun(
            extended: true, ownAddressType: command.ownAddressType, ownAddress: own,
            filterPolicy: command.initiatorFilterPolicy, peer: peer, scans: scans,
            le1M: command.le1M?.connectionParameters, le2M: command.le2M?.connectionParameters,
            leCoded: command.leCoded?.connectionParameters)
        return .success
    }

    /// HCI_LE_Create_Connection_Cancel (§7.8.13): Command Complete, then the connection
    /// complete event with 0x02 Unknown Connection Identifier. Once CONNECT_IND is on its way
    /// the connection is being made and the cancel is disallowed.
    func leCreateConnectionCancel() -> CommandResult<HCI.StatusReturnParameters> {
        guard let run = initiator, run.state == .scanning else { return .failed(.commandDisallowed) }
        run.cancelPending(on: air.queue)
        initiator = nil
        sendConnectionComplete(failure: .unknownConnectionIdentifier, role: .central)
        return .complete(.init())
    }

    // MARK: On air (§4.4.4)

    func initiatorListens(to transmission: AirTransmission) -> Bool {
        guard let run = initiator else { return false }
        if run.expectations.contains(where: { $0.expectation.matches(transmission) }) { return true }
        guard run.state == .scanning else { return false }
        switch transmission.pdu {
        case .advInd, .advDirectInd: return run.le1M != nil && run.hears(transmission)
        case .extended(let pdu) where pdu.kind == .advExtInd && pdu.mode == .connectable:
            return run.extended && run.hears(transmission)
        default: return false
        }
    }

    /// The advertiser resolved (nil when privacy refuses it) if the initiator connects to it:
    /// the initiator filter policy looks at its identity once its RPA is resolved, and a TargetA
    /// must name this device (§4.3.5, §6.4).
    private func initiatorWants(_ run: InitiatorRun, advertiser: LEAddress?, target: LEAddress?) -> ReceivedAddress? {
        guard let advertiser, let peer = receivedPeer(advertiser) else { return nil }
        if let target, !isAddressedToMe(target, own: run.ownAddress, from: peer) { return nil }
        if connections.count >= configuration.maximumConnections { return nil }
        if let wanted = run.peer { return peer.names(wanted) ? peer : nil }
        return filterAcceptListContains(peer.filterAddress) ? peer : nil
    }

    /// InitA toward `peer` (§6.4).
    private func initiatorAddress(_ run: InitiatorRun, toward peer: ReceivedAddress) -> LEAddress {
        localAddress(run.ownAddressType, fallback: run.ownAddress, toward: peer)
    }

    func initiatorReceive(_ transmission: AirTransmission, rssi: Int8) {
        guard let run = initiator else { return }
        if let index = run.expectations.firstIndex(where: { $0.expectation.matches(transmission) }) {
            let entry = run.expectations.remove(at: index)
            if let token = entry.expectation.timeout { air.queue.cancel(token) }
            guard case .extended(let pdu) = transmission.pdu else { return }
            if let request = entry.request {
                // AUX_CONNECT_RSP addressed to us: the connection exists (§4.4.4.3).
                guard pdu.kind == .auxConnectRsp, let target = pdu.target, let sent = entry.initiatorAddress,
                    isOwn(target, as: sent), let advertiser = entry.advertiser
                else { return }
                initiator = nil
                openConnection(
                    role: .central, link: request.link, peer: advertiser,
                    localRPA: localResolvableAddress(run.ownAddressType, used: sent))
            } else if pdu.kind == .auxAdvInd, run.state == .scanning, pdu.mode == .connectable,
                let advertiser = initiatorWants(run, advertiser: pdu.advertiser, target: pdu.target)
            {
                sendAuxiliaryConnectRequest(run, to: advertiser, after: transmission)
            }
            return
        }
        guard run.state == .scanning else { return }
        switch transmission.pdu {
        case .advInd(let advertiser, _):
            guard let peer = initiatorWants(run, advertiser: advertiser, target: nil) else { return }
            sendConnectIndication(run, to: peer, after: transmission)
        case .advDirectInd(let advertiser, let target):
            guard let peer = initiatorWants(run, advertiser: advertiser, target: target) else { return }
            sendConnectIndication(run, to: peer, after: transmission)
        case .extended(let pdu) where pdu.kind == .advExtInd:
            guard let pointer = pdu.auxPointer, run.parameters(for: pointer.phy) != nil else { return }
            run.nextExpectationID += 1
            var expectation = AirExpectation(
                id: run.nextExpectationID, sender: transmission.sender, channel: pointer.channel, phy: pointer.phy,
                start: transmission.start.advanced(by: pointer.offset))
            expectation.timeout = expireInitiatorExpectation(expectation, run)
            run.expectations.append(.init(expectation: expectation))
        default:
            return
        }
    }

    /// The LLData of a new connection: random access address and CRC seed, the shortest
    /// interval asked for, WinSize 1, and the WinOffset that keeps its anchors clear of the
    /// other connections this controller leads (§2.3.3.1, `firstAnchorOffset`).
    private func makeRequest(_ p: HCI.ConnectionParameters, phy: PHY, earliestAnchor: VirtualInstant)
        -> ConnectionRequestData
    {
        let timing = Self.timing(for: p)
        let offset = firstAnchorOffset(earliest: earliestAnchor, interval: timing.intervalDuration)
        let link = ConnectionLink(
            accessAddress: UInt32.random(in: 0...UInt32.max, using: &random), centralRadio: radio, timing: timing,
            firstAnchor: earliestAnchor.advanced(by: .microseconds(Int64(offset) * 1250)), phy: phy)
        if p.maxCELength != 0 { link.eventLength = .microseconds(Int64(p.maxCELength) * 625) }
        return ConnectionRequestData(
            accessAddress: link.accessAddress, crcInit: UInt32.random(in: 0...0xFF_FFFF, using: &random), windowSize: 1,
            windowOffset: offset, interval: timing.interval, latency: timing.latency, timeout: timing.timeout,
            channelMap: hostChannelClassification, hop: UInt8.random(in: 5...16, using: &random),
            sleepClockAccuracy: configuration.sleepClockAccuracy, phy: phy, link: link)
    }

    /// CONNECT_IND T_IFS after the advertising PDU; the connection is created when it has been
    /// sent, whether or not the advertiser heard it (§4.5: it then fails to be established).
    private func sendConnectIndication(
        _ run: InitiatorRun, to advertiser: ReceivedAddress, after advertising: AirTransmission
    ) {
        guard let parameters = run.le1M else { return }
        run.state = .connecting
        let start = advertising.end.advanced(by: RadioTiming.interFrameSpace)
        let end = start.advanced(by: PHY.le1M.airTime(payloadOctets: Self.longestRequestPayload))
        let request = makeRequest(
            parameters, phy: .le1M, earliestAnchor: end.advanced(by: RadioTiming.transmitWindowDelayLegacy))
        let own = initiatorAddress(run, toward: advertiser)
        let transmission = AirTransmission(
            sender: radio, channel: advertising.channel, phy: .le1M, txPower: configuration.txPower, start: start,
            pdu: .connectRequest(initiator: own, advertiser: advertiser.onAir, request: request, auxiliary: false))
        air.transmit(transmission)
        let localRPA = localResolvableAddress(run.ownAddressType, used: own)
        air.queue.schedule(at: transmission.end) { [weak self, weak run] in
            guard let self, let run, self.initiator === run else { return }
            self.initiator = nil
            self.openConnection(role: .central, link: request.link, peer: advertiser, localRPA: localRPA)
        }
    }

    /// AUX_CONNECT_REQ T_IFS after a connectable AUX_ADV_IND; the connection exists once
    /// AUX_CONNECT_RSP arrives (§4.4.4.3).
    private func sendAuxiliaryConnectRequest(
        _ run: InitiatorRun, to advertiser: ReceivedAddress, after advertising: AirTransmission
    ) {
        guard let parameters = run.parameters(for: advertising.phy) else { return }
        run.state = .connecting
        let phy = advertising.phy
        let start = advertising.end.advanced(by: RadioTiming.interFrameSpace)
        let end = start.advanced(by: phy.airTime(payloadOctets: Self.longestRequestPayload))
        let delay = phy.isCoded ? Duration.microseconds(3750) : RadioTiming.transmitWindowDelayAuxiliary
        let request = makeRequest(parameters, phy: phy, earliestAnchor: end.advanced(by: delay))
        let own = initiatorAddress(run, toward: advertiser)
        air.transmit(
            AirTransmission(
                sender: radio, channel: advertising.channel, phy: phy, txPower: configuration.txPower, start: start,
                pdu: .connectRequest(initiator: own, advertiser: advertiser.onAir, request: request, auxiliary: true)))
        run.nextExpectationID += 1
        var expectation = AirExpectation(
            id: run.nextExpectationID, sender: advertising.sender, channel: advertising.channel, phy: phy,
            start: end.advanced(by: RadioTiming.interFrameSpace))
        expectation.timeout = expireInitiatorExpectation(expectation, run)
        run.expectations.append(
            .init(expectation: expectation, request: request, advertiser: advertiser, initiatorAddress: own))
    }

    /// An expected packet that did not come: a missing AUX_CONNECT_RSP sends the initiator back
    /// to scanning.
    private func expireInitiatorExpectation(_ expectation: AirExpectation, _ run: InitiatorRun) -> EventQueue.Token {
        air.queue.schedule(at: expectation.deadline) { [weak self, weak run] in
            guard let self, let run, self.initiator === run else { return }
            guard let index = run.expectations.firstIndex(where: { $0.expectation.id == expectation.id }) else {
                return
            }
            let entry = run.expectations.remove(at: index)
            if entry.request != nil { run.state = .scanning }
        }
    }
}
