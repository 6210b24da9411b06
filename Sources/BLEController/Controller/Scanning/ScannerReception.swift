import BLESimulation
import BLEWire

// The scanner on the air (Core 5.4 Vol 6 Part B §4.4.3): what it hears, the scan requests it
// sends, the auxiliary chains it follows, and the reports its host gets (Vol 4 Part E
// §7.7.65.2, §7.7.65.13).

extension VirtualController {
    /// Whether the scanner hears `transmission`: a response or chain PDU it expects, or an
    /// advertising PDU on the channel and PHY it scans now.
    func scannerListens(to transmission: AirTransmission) -> Bool {
        guard let scan = scanner, scan.active else { return false }
        if scan.pendingScanResponses.contains(where: { $0.expectation.matches(transmission) }) { return true }
        if scan.followed.contains(where: { $0.expectation.matches(transmission) }) { return true }
        switch transmission.pdu {
        case .advInd, .advDirectInd, .advNonconnInd, .advScanInd: return scan.scan(hearing: transmission) != nil
        case .extended(let pdu) where pdu.kind == .advExtInd:
            return scan.format == .extended && scan.scan(hearing: transmission) != nil
        default: return false
        }
    }

    func scannerReceive(_ transmission: AirTransmission, rssi: Int8) {
        guard let scan = scanner else { return }
        if let index = scan.pendingScanResponses.firstIndex(where: { $0.expectation.matches(transmission) }) {
            let pending = scan.pendingScanResponses.remove(at: index)
            if let token = pending.expectation.timeout { air.queue.cancel(token) }
            if case .scanRsp(let advertiser, let data) = transmission.pdu {
                receivedScanResponse(scan, advertiser: advertiser, data: data, answering: pending.answering, rssi: rssi)
            }
            return
        }
        if let index = scan.followed.firstIndex(where: { $0.expectation.matches(transmission) }) {
            let follow = scan.followed.remove(at: index)
            if let token = follow.expectation.timeout { air.queue.cancel(token) }
            if case .extended(let pdu) = transmission.pdu {
                receivedAuxiliary(scan, pdu: pdu, train: follow.train, transmission: transmission, rssi: rssi)
            }
            return
        }
        guard let phyScan = scan.scan(hearing: transmission) else { return }
        switch transmission.pdu {
        case .advInd(let advertiser, let data):
            receivedLegacy(scan, phyScan, .advInd, advertiser, nil, data, transmission, rssi)
        case .advDirectInd(let advertiser, let target):
            receivedLegacy(scan, phyScan, .advDirectInd, advertiser, target, [], transmission, rssi)
        case .advNonconnInd(let advertiser, let data):
            receivedLegacy(scan, phyScan, .advNonconnInd, advertiser, nil, data, transmission, rssi)
        case .advScanInd(let advertiser, let data):
            receivedLegacy(scan, phyScan, .advScanInd, advertiser, nil, data, transmission, rssi)
        case .extended(let pdu) where pdu.kind == .advExtInd && scan.format == .extended:
            guard let pointer = pdu.auxPointer else { return }
            let train = FollowedTrain(
                stage: .awaitingAuxiliary, primaryPHY: transmission.phy, secondaryPHY: pointer.phy, mode: pdu.mode,
                dataInfo: pdu.dataInfo, advertiser: nil, peer: nil, target: nil, txPower: nil)
            follow(scan, train, sender: transmission.sender, pointer: pointer, from: transmission.start)
        default: return
        }
    }

    // MARK: Legacy PDUs

    /// The scanner filter policy (§4.3.3): on the advertiser's identity once its RPA is
    /// resolved; a TargetA must name this device (or, with the extended policies, be an RPA it
    /// could not resolve).
    private func scannerAccepts(_ scan: ScanRun, advertiser: ReceivedAddress?, target: LEAddress?) -> Bool {
        if let target, !isAddressedToMe(target, own: scan.ownAddress, from: advertiser) {
            // Extended policies also report directed advertising to unresolved private addresses.
            let extendedPolicy = scan.filterPolicy == .extendedUnfiltered || scan.filterPolicy == .extendedFiltered
            guard extendedPolicy, LEAddress(target.address, type: .random).kind == .resolvablePrivate else {
                return false
            }
        }
        switch scan.filterPolicy {
        case .basicFiltered, .extendedFiltered: return filterAcceptListContains(advertiser?.filterAddress)
        default: return true
        }
    }

    func isOwn(_ address: LEAddress, as own: LEAddress) -> Bool {
        address.address == own.address && address.type.isRandom == own.type.isRandom
    }

    /// Duplicate filtering (§7.8.11, §7.8.65): true when this report was already sent.
    private func isDuplicate(_ scan: ScanRun, _ key: DuplicateKey) -> Bool {
        guard scan.filtersDuplicates else { return false }
        return !scan.reported.insert(key).inserted
    }

    private func receivedLegacy(
        _ scan: ScanRun, _ phyScan: ScanRun.PHYScan, _ type: LEMetaEvent.AdvertisingReport.EventType,
        _ advertiser: LEAddress, _ target: LEAddress?, _ data: [UInt8], _ transmission: AirTransmission, _ rssi: Int8
    ) {
        // AdvA is resolved first; the filter policy then decides (§6.3).
        guard let peer = receivedPeer(advertiser), scannerAccepts(scan, advertiser: peer, target: target) else {
            return
        }
        let key = DuplicateKey(address: peer.reported, kind: UInt16(type.rawValue), sid: 0xFF, did: 0)
        if !isDuplicate(scan, key) {
            reportLegacy(scan, type: type, advertiser: peer.reported, target: target, data: data, rssi: rssi)
        }
        let scannable = type == .advInd || type == .advScanInd
        guard scannable, phyScan.active else { return }
        if scan.filtersDuplicates && scan.answered.contains(advertiser) { return }
        // SCAN_REQ T_IFS after the advertising PDU, on the same channel (§4.4.3.2).
        let request = AirTransmission(
            sender: radio, channel: transmission.channel, phy: .le1M, txPower: configuration.txPower,
            start: transmission.end.advanced(by: RadioTiming.interFrameSpace),
            pdu: .scanRequest(
                scanner: localAddress(scan.ownAddressType, fallback: scan.ownAddress, toward: peer),
                advertiser: advertiser, auxiliary: false))
        air.transmit(request)
        var expectation = AirExpectation(
            id: scan.makeExpectationID(), sender: transmission.sender, channel: transmission.channel, phy: .le1M,
            start: request.end.advanced(by: RadioTiming.interFrameSpace))
        expectation.timeout = expire(expectation, in: scan)
        scan.pendingScanResponses.append((expectation, type))
    }

    private func receivedScanResponse(
        _ scan: ScanRun, advertiser: LEAddress, data: [UInt8],
        answering: LEMetaEvent.AdvertisingReport.EventType, rssi: Int8
    ) {
        scan.answered.insert(advertiser)
        guard let advertiser = receivedPeer(advertiser)?.reported else { return }
        let key = DuplicateKey(
            address: advertiser, kind: UInt16(LEMetaEvent.AdvertisingReport.EventType.scanRsp.rawValue), sid: 0xFF,
            did: 0)
        if isDuplicate(scan, key) { return }
        switch scan.format {
        case .legacy:
            reportLegacy(scan, type: .scanRsp, advertiser: advertiser, target: nil, data: data, rssi: rssi)
        case .extended:
            var bits: LEMetaEvent.ExtendedAdvertisingReport.EventType = [.legacy, .scanResponse, .scannable]
            if answering == .advInd { bits.insert(.connectable) }
            sendExtendedReports(
                bits: bits, address: advertiser, primaryPHY: .le1M, secondaryPHY: nil, sid: 0xFF, txPower: nil,
                rssi: rssi, target: nil, data: data[...], final: true)
        }
    }

    private func reportLegacy(
        _ scan: ScanRun, type: LEMetaEvent.AdvertisingReport.EventType, advertiser: LEAddress, target: LEAddress?,
        data: [UInt8], rssi: Int8
    ) {
        switch scan.format {
        case .legacy:
            let report = LEMetaEvent.AdvertisingReport.Report(
                eventType: type, address: advertiser, data: data[...], rssi: rssi)
            send(le: .advertisingReport(.init(reports: [report])))
        case .extended:
            let bits: LEMetaEvent.ExtendedAdvertisingReport.EventType
            switch type {
            case .advInd: bits = [.legacy, .connectable, .scannable]
            case .advDirectInd: bits = [.legacy, .connectable, .directed]
            case .advScanInd: bits = [.legacy, .scannable]
            default: bits = [.legacy]
            }
            sendExtendedReports(
                bits: bits, address: advertiser, primaryPHY: .le1M, secondaryPHY: nil, sid: 0xFF, txPower: nil,
                rssi: rssi, target: target, data: data[...], final: true)
        }
    }

    /// LE Extended Advertising Reports of `data`, cut into pieces of at most 229 octets; all
    /// but the last say "more to come", the last says complete when `final` (§7.7.65.13).
    func sendExtendedReports(
        bits: LEMetaEvent.ExtendedAdvertisingReport.EventType, address: LEAddress?, primaryPHY: PHY,
        secondaryPHY: PHY?, sid: UInt8, txPower: Int8?, rssi: Int8, target: LEAddress?,
        data: ArraySlice<UInt8>, final: Bool
    ) {
        typealias Report = LEMetaEvent.ExtendedAdvertisingReport
        var rest = data
        repeat {
            let piece = rest.prefix(Report.maximumDataLength)
            rest = rest.dropFirst(piece.count)
            var eventType = bits
            eventType.dataStatus = (rest.isEmpty && final) ? .complete : .incompleteMoreToCome
            let report = Report.Report(
                eventType: eventType, address: address ?? LEAddress(.zero, type: .other(0xFF)),
                primaryPHY: primaryPHY.hci, secondaryPHY: secondaryPHY?.hci, advertisingSID: sid,
                txPower: txPower ?? 127, rssi: rssi, periodicAdvertisingInterval: 0,
                directAddress: target ?? LEAddress(.zero, type: .public), data: Array(piece)[...])
            send(le: .extendedAdvertisingReport(.init(reports: [report])))
        } while !rest.isEmpty
    }

    // MARK: Extended advertising trains (§4.4.3.5)

    private func follow(
        _ scan: ScanRun, _ train: FollowedTrain, sender: AirRadioID, pointer: ExtendedAdvertisingPDU.AuxPointer,
        from start: VirtualInstant
    ) {
        var expectation = AirExpectation(
            id: scan.makeExpectationID(), sender: sender, channel: pointer.channel, phy: pointer.phy,
            start: start.advanced(by: pointer.offset))
        expectation.timeout = expire(expectation, in: scan)
        scan.followed.append((expectation, train))
    }

    private func receivedAuxiliary(
        _ scan: ScanRun, pdu: ExtendedAdvertisingPDU, train: FollowedTrain, transmission: AirTransmission, rssi: Int8
    ) {
        var train = train
        switch (train.stage, pdu.kind) {
        case (.awaitingAuxiliary, .auxAdvInd):
            train.advertiser = pdu.advertiser
            if let advertiser = pdu.advertiser {
                guard let peer = receivedPeer(advertiser) else { return }
                train.peer = peer
            }
            train.target = pdu.target
            train.txPower = pdu.txPower
            train.dataInfo = pdu.dataInfo ?? train.dataInfo
            guard scannerAccepts(scan, advertiser: train.peer, target: pdu.target) else { return }
            let key = duplicateKey(train)
            if isDuplicate(scan, key) { return }
            train.stage = .advertisingChain
            reportTrainPart(train, pdu: pdu, rssi: rssi)
            train.reportedPart = true
            if let pointer = pdu.auxPointer {
                follow(scan, train, sender: transmission.sender, pointer: pointer, from: transmission.start)
            }
            let activeHere = scan.phys.contains { $0.active && $0.schedule.coded == train.primaryPHY.isCoded }
            if pdu.mode == .scannable, activeHere, let advertiser = pdu.advertiser {
                requestAuxiliaryScanResponse(scan, train, advertiser: advertiser, after: transmission)
            }
        case (.advertisingChain, .auxChainInd), (.scanResponseChain, .auxChainInd),
            (.awaitingScanResponse, .auxScanRsp):
            if train.stage == .awaitingScanResponse {
                train.stage = .scanResponseChain
                if isDuplicate(scan, duplicateKey(train)) { return }
            }
            reportTrainPart(train, pdu: pdu, rssi: rssi)
            train.reportedPart = true
            if let pointer = pdu.auxPointer {
                follow(scan, train, sender: transmission.sender, pointer: pointer, from: transmission.start)
            }
        default:
            return
        }
    }

    private func duplicateKey(_ train: FollowedTrain) -> DuplicateKey {
        DuplicateKey(
            address: train.reportedAdvertiser, kind: train.eventTypeBits.rawValue, sid: train.dataInfo?.sid ?? 0xFF,
            did: train.dataInfo?.did ?? 0)
    }

    private func reportTrainPart(_ train: FollowedTrain, pdu: ExtendedAdvertisingPDU, rssi: Int8) {
        let final = pdu.auxPointer == nil
        // Nothing to say yet: an empty PDU that points further carries no data.
        if pdu.data.isEmpty && !final { return }
        sendExtendedReports(
            bits: train.eventTypeBits, address: train.reportedAdvertiser, primaryPHY: train.primaryPHY,
            secondaryPHY: train.secondaryPHY, sid: train.dataInfo?.sid ?? 0xFF, txPower: train.txPower, rssi: rssi,
            target: train.target, data: pdu.data, final: final)
    }

    private func requestAuxiliaryScanResponse(
        _ scan: ScanRun, _ train: FollowedTrain, advertiser: LEAddress, after transmission: AirTransmission
    ) {
        let request = AirTransmission(
            sender: radio, channel: transmission.channel, phy: transmission.phy, txPower: configuration.txPower,
            start: transmission.end.advanced(by: RadioTiming.interFrameSpace),
            pdu: .scanRequest(
                scanner: localAddress(scan.ownAddressType, fallback: scan.ownAddress, toward: train.peer),
                advertiser: advertiser, auxiliary: true))
        air.transmit(request)
        var next = train
        next.stage = .awaitingScanResponse
        next.reportedPart = false
        var expectation = AirExpectation(
            id: scan.makeExpectationID(), sender: transmission.sender, channel: transmission.channel,
            phy: transmission.phy, start: request.end.advanced(by: RadioTiming.interFrameSpace))
        expectation.timeout = expire(expectation, in: scan)
        scan.followed.append((expectation, next))
    }

    /// Drops an expectation that was not met; a chain whose start was reported ends with an
    /// "incomplete, truncated" report (§7.7.65.13).
    private func expire(_ expectation: AirExpectation, in scan: ScanRun) -> EventQueue.Token {
        return air.queue.schedule(at: expectation.deadline) { [weak self, weak scan] in
            guard let self, let scan, self.scanner === scan else { return }
            scan.pendingScanResponses.removeAll { $0.expectation.id == expectation.id }
            guard let index = scan.followed.firstIndex(where: { $0.expectation.id == expectation.id }) else { return }
            let train = scan.followed.remove(at: index).train
            guard train.reportedPart else { return }
            var bits = train.eventTypeBits
            bits.dataStatus = .incompleteTruncated
            let report = LEMetaEvent.ExtendedAdvertisingReport.Report(
                eventType: bits, address: train.reportedAdvertiser ?? LEAddress(.zero, type: .other(0xFF)),
                primaryPHY: train.primaryPHY.hci, secondaryPHY: train.secondaryPHY.hci,
                advertisingSID: train.dataInfo?.sid ?? 0xFF, txPower: train.txPower ?? 127, rssi: 127,
                periodicAdvertisingInterval: 0, directAddress: train.target ?? LEAddress(.zero, type: .public), data: []
            )
            self.send(le: .extendedAdvertisingReport(.init(reports: [report])))
        }
    }
}
