import BLEWire

// The controller as a radio on the air: which packets it is listening for, and what it does
// with each (Core 5.4 Vol 6 Part B §4.4).

extension VirtualController: AirRadio {
    func isListening(to transmission: AirTransmission) -> Bool {
        switch transmission.pdu {
        case .scanRequest, .connectRequest:
            return listeningSet(for: transmission) != nil
        default:
            return scannerListens(to: transmission) || initiatorListens(to: transmission)
        }
    }

    func receive(_ transmission: AirTransmission, rssi: Int8) {
        switch transmission.pdu {
        case .scanRequest(let scanner, _, let auxiliary):
            guard let set = listeningSet(for: transmission), set.parameters.isScannable,
                advertiserAccepts(set, scanner, forConnection: false)
            else { return }
            if set.parameters.scanRequestNotification && !set.isLegacyCommandSet {
                send(le: .scanRequestReceived(.init(advertisingHandle: set.handle, scannerAddress: scanner)))
            }
            if auxiliary {
                answerAuxiliaryScanRequest(set, request: transmission)
            } else {
                answerLegacyScanRequest(set, request: transmission)
            }
        case .connectRequest(let initiator, _, let request, let auxiliary):
            guard let set = listeningSet(for: transmission), set.parameters.isConnectable,
                advertiserAccepts(set, initiator, forConnection: true),
                connections.count < configuration.maximumConnections
            else { return }
            acceptConnection(set, initiator: initiator, request: request, auxiliary: auxiliary, at: transmission)
        default:
            scannerReceive(transmission, rssi: rssi)
            initiatorReceive(transmission, rssi: rssi)
        }
    }

    /// The enabled set whose receive window `transmission` falls in and which it addresses.
    private func listeningSet(for transmission: AirTransmission) -> AdvertisingSet? {
        guard let advertiser = transmission.pdu.advertiserAddress else { return nil }
        let auxiliary: Bool
        switch transmission.pdu {
        case .scanRequest(_, _, let aux), .connectRequest(_, _, _, let aux): auxiliary = aux
        default: return nil
        }
        for handle in advertisingSets.keys.sorted() {
            guard let set = advertisingSets[handle], let run = set.run, let window = run.listening else { continue }
            if window.auxiliary == auxiliary && window.channel == transmission.channel && window.phy == transmission.phy
                && transmission.start >= window.opens && transmission.start <= window.closes
                && run.address == advertiser
            {
                return set
            }
        }
        return nil
    }

    /// The advertising filter policy (§7.8.5) and, for directed advertising, the target.
    private func advertiserAccepts(_ set: AdvertisingSet, _ requester: LEAddress, forConnection: Bool) -> Bool {
        let p = set.parameters
        if p.isDirected && !isOwn(requester, as: p.peer) { return false }
        switch p.filterPolicy {
        case .acceptAll: return true
        case .scanFilterAcceptList: return forConnection || filterAcceptListContains(requester)
        case .connectFilterAcceptList: return !forConnection || filterAcceptListContains(requester)
        case .scanAndConnectFilterAcceptList, .other: return filterAcceptListContains(requester)
        }
    }

    /// CONNECT_IND (or AUX_CONNECT_REQ, answered with AUX_CONNECT_RSP) accepted: the set stops
    /// advertising and this side of the connection opens (§4.4.2, §4.5).
    private func acceptConnection(
        _ set: AdvertisingSet, initiator: LEAddress, request: ConnectionRequestData, auxiliary: Bool,
        at transmission: AirTransmission
    ) {
        guard let run = set.run else { return }
        let events = run.eventsCompleted
        stopAdvertisingRun(of: set)
        let open = { [weak self, weak set] in
            guard let self, let set else { return }
            let connection = self.openConnection(
                role: .peripheral, link: request.link, peer: initiator, advertisingHandle: set.handle,
                centralClockAccuracy: request.sleepClockAccuracy)
            self.reportAdvertisingSetTerminated(
                set, status: .success, connectionHandle: connection.handle, events: events + 1)
        }
        guard auxiliary else {
            open()
            return
        }
        let response = AirTransmission(
            sender: radio, channel: transmission.channel, phy: transmission.phy, txPower: set.parameters.txPower,
            start: transmission.end.advanced(by: RadioTiming.interFrameSpace),
            pdu: .extended(
                ExtendedAdvertisingPDU(
                    kind: .auxConnectRsp, mode: .nonConnectableNonScannable, advertiser: run.address, target: initiator,
                    dataInfo: nil, auxPointer: nil, txPower: nil, data: [])))
        air.transmit(response)
        air.queue.schedule(at: response.end, open)
    }
}
