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
            // ScanA is resolved first; the filter policy then applies to the identity (§6.2).
            guard let set = listeningSet(for: transmission), set.parameters.isScannable,
                let requester = receivedPeer(scanner), advertiserAccepts(set, requester, forConnection: false)
            else { return }
            if set.parameters.scanRequestNotification && !set.isLegacyCommandSet {
                send(
                    le: .scanRequestReceived(
                        .init(advertisingHandle: set.handle, scannerAddress: requester.reported)))
            }
            if auxiliary {
                answerAuxiliaryScanRequest(set, request: transmission)
            } else {
                answerLegacyScanRequest(set, request: transmission)
            }
        case .connectRequest(let initiator, _, let request, let auxiliary):
            guard let set = listeningSet(for: transmission), set.parameters.isConnectable,
                let requester = receivedPeer(initiator), advertiserAccepts(set, requester, forConnection: true),
                connections.count < configuration.maximumConnections
            else { return }
            acceptConnection(set, initiator: requester, request: request, auxiliary: auxiliary, at: transmission)
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

    /// The advertising filter policy (§7.8.5) and, for directed advertising, the target; both
    /// look at the requester's identity when its RPA was resolved.
    private func advertiserAccepts(_ set: AdvertisingSet, _ requester: ReceivedAddress, forConnection: Bool) -> Bool {
        let p = set.parameters
        if p.isDirected && !requester.names(p.peer) { return false }
        let listed = filterAcceptListContains(requester.filterAddress)
        switch p.filterPolicy {
        case .acceptAll: return true
        case .scanFilterAcceptList: return forConnection || listed
        case .connectFilterAcceptList: return !forConnection || listed
        case .scanAndConnectFilterAcceptList, .other: return listed
        }
    }

    /// CONNECT_IND (or AUX_CONNECT_REQ, answered with AUX_CONNECT_RSP) accepted: the set stops
    /// advertising and this side of the connection opens (§4.4.2, §4.5).
    private func acceptConnection(
        _ set: AdvertisingSet, initiator: ReceivedAddress, request: ConnectionRequestData, auxiliary: Bool,
        at transmission: AirTransmission
    ) {
        guard let run = set.run else { return }
        let events = run.eventsCompleted
        let localRPA = localResolvableAddress(set.parameters.ownAddressType, used: run.address)
        stopAdvertisingRun(of: set)
        let open = { [weak self, weak set] in
            guard let self, let set else { return }
            let connection = self.openConnection(
                role: .peripheral, link: request.link, peer: initiator, localRPA: localRPA,
                advertisingHandle: set.handle, centralClockAccuracy: request.sleepClockAccuracy)
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
                    kind: .auxConnectRsp, mode: .nonConnectableNonScannable, advertiser: run.address,
                    target: initiator.onAir,
                    dataInfo: nil, auxPointer: nil, txPower: nil, data: [])))
        air.transmit(response)
        air.queue.schedule(at: response.end, open)
    }
}
