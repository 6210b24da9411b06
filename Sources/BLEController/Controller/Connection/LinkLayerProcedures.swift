import BLEWire

// The link layer control procedures (Core 5.4 Vol 6 Part B §5.1) other than encryption: what a
// controller does with each LL Control PDU it receives.

extension VirtualController {
    /// The PHYs the controller implements (Vol 6 Part B §4.6: LE 2M and LE Coded features).
    var supportedPHYs: HCI.LEPHYs {
        var phys: HCI.LEPHYs = [.le1M]
        if configuration.leFeatures.contains(.le2MPHY) { phys.insert(.le2M) }
        if configuration.leFeatures.contains(.leCodedPHY) { phys.insert(.leCoded) }
        return phys
    }

    func handleControl(_ pdu: LLControlPDU, on c: Connection) {
        switch pdu {
        case .connectionUpdateInd:
            if c.role == .peripheral { c.link.peripheralHasTimingUpdate = true }
        case .terminateInd(let reason):
            // The peripheral's answer in this event acknowledges it; the central acknowledges
            // in its next event, then ends (§5.1.6).
            if c.role == .peripheral { closeConnection(c, reason: reason) } else { c.terminationReceived = reason }
        case .encReq, .encRsp, .startEncReq, .startEncRsp, .pauseEncReq, .pauseEncRsp:
            handleEncryptionControl(pdu, on: c)
        case .unknownRsp(let opcode):
            handleUnknownResponse(to: opcode, on: c)
        case .featureReq(let features), .peripheralFeatureReq(let features):
            c.remoteFeatures = features
            c.transmit.enqueue(.featureRsp(configuration.leFeatures))
        case .featureRsp(let features):
            c.remoteFeatures = features
            if c.hostWantsRemoteFeatures { completeRemoteFeatures(c) }
        case .versionInd(let version, let company, let subversion):
            c.remoteVersion = (version, company, subversion)
            if !c.versionSent { sendVersion(c) }
            if c.hostWantsRemoteVersion { completeRemoteVersion(c) }
        case .rejectInd(let status):
            handleRejection(of: nil, status: status, on: c)
        case .rejectExtInd(let opcode, let status):
            handleRejection(of: opcode, status: status, on: c)
        case .connectionParamReq(let range):
            // A controller without the procedure does not know the PDU (§2.4.2.8).
            guard configuration.leFeatures.contains(.connectionParametersRequestProcedure) else {
                return c.transmit.enqueue(.unknownRsp(0x0F))
            }
            receivedParameterRequest(range, on: c)
        case .lengthReq(let values):
            guard configuration.leFeatures.contains(.leDataPacketLengthExtension) else {
                return c.transmit.enqueue(.unknownRsp(0x14))
            }
            c.remoteRx = (values.maxRxOctets, values.maxRxTime)
            c.remoteTx = (values.maxTxOctets, values.maxTxTime)
            c.transmit.enqueue(.lengthRsp(localDataLength(c)))
            recomputeDataLength(c)
        case .lengthRsp(let values):
            c.remoteRx = (values.maxRxOctets, values.maxRxTime)
            c.remoteTx = (values.maxTxOctets, values.maxTxTime)
            c.lengthProcedurePending = false
            recomputeDataLength(c)
        case .phyReq(let tx, let rx):
            // The PHY update procedure comes with LE 2M or LE Coded (Vol 6 Part B §5.1.10).
            guard supportedPHYs != [.le1M] else { return c.transmit.enqueue(.unknownRsp(0x16)) }
            receivedPHYRequest(tx: tx, rx: rx, on: c)
        case .phyRsp(let tx, let rx):
            if c.role == .central { decidePHYUpdate(c, peripheralTx: tx, peripheralRx: rx) }
        case .phyUpdateInd(let toPeripheral, let toCentral, _):
            guard c.role == .peripheral else { return }
            if toPeripheral == nil && toCentral == nil {
                if c.hostRequestedPHYUpdate { completePHYUpdate(on: c) }
                c.phyProcedurePending = false
            } else {
                c.link.peripheralHasPHYUpdate = true
            }
        }
    }

    /// LL_UNKNOWN_RSP (§2.4.2.8): the peer lacks the procedure we started; it ends, and a host
    /// that asked learns so with Unsupported Remote Feature (0x1A).
    private func handleUnknownResponse(to opcode: UInt8, on c: Connection) {
        switch opcode {
        case 0x14:
            c.lengthProcedurePending = false
        case 0x0F, 0x16:
            handleRejection(of: opcode, status: .unsupportedRemoteFeature, on: c)
        default:
            return
        }
    }

    private func handleRejection(of opcode: UInt8?, status: HCIStatus, on c: Connection) {
        switch opcode {
        case 0x0F?:
            // LL_CONNECTION_PARAM_REQ refused: the requesting host learns why (§7.7.65.3).
            c.parameterRequestPending = nil
            if c.hostRequestedUpdate {
                c.hostRequestedUpdate = false
                let t = c.timing
                send(
                    le: .connectionUpdateComplete(
                        .init(
                            status: status, connectionHandle: c.handle, connectionInterval: t.interval,
                            peripheralLatency: t.latency, supervisionTimeout: t.timeout)))
            }
        case 0x16?:
            c.phyProcedurePending = false
            if c.hostRequestedPHYUpdate {
                c.hostRequestedPHYUpdate = false
                send(
                    le: .phyUpdateComplete(
                        .init(
                            status: status, connectionHandle: c.handle, txPHY: c.transmitPHY.hci,
                            rxPHY: c.receivePHY.hci)))
            }
        default:
            if c.encryption.inProgress { encryptionRejected(status, on: c) }
        }
    }

    // MARK: Feature exchange and version exchange (§5.1.4, §5.1.5)

    func completeRemoteFeatures(_ c: Connection) {
        guard let features = c.remoteFeatures else { return }
        c.hostWantsRemoteFeatures = false
        send(le: .readRemoteFeaturesComplete(.init(connectionHandle: c.handle, leFeatures: features.rawValue)))
    }

    func sendVersion(_ c: Connection) {
        c.versionSent = true
        c.transmit.enqueue(
            .versionInd(
                version: configuration.lmpVersion, company: configuration.companyIdentifier,
                subversion: configuration.lmpSubversion))
    }

    func completeRemoteVersion(_ c: Connection) {
        guard let version = c.remoteVersion else { return }
        c.hostWantsRemoteVersion = false
        send(
            .readRemoteVersionInformationComplete(
                .init(
                    connectionHandle: c.handle, version: version.version, manufacturerName: version.company,
                    subversion: version.subversion)))
    }

    // MARK: Connection parameters (§5.1.1, §5.1.7)

    /// The central asks its host (LE Remote Connection Parameter Request); a host that masked
    /// the event gets the request refused with 0x1A Unsupported Remote Feature (§7.7.65.6).
    private func receivedParameterRequest(_ range: ConnectionParameterRange, on c: Connection) {
        guard c.role == .central else {
            c.transmit.enqueue(.rejectExtInd(rejectedOpcode: 0x0F, .unsupportedLMPParameterValue))
            return
        }
        guard masks.allowsLE(.remoteConnectionParameterRequest) else {
            c.transmit.enqueue(.rejectExtInd(rejectedOpcode: 0x0F, .unsupportedRemoteFeature))
            return
        }
        c.parameterRequestPending = range
        send(
            le: .remoteConnectionParameterRequest(
                .init(
                    connectionHandle: c.handle, intervalMin: range.intervalMin, intervalMax: range.intervalMax,
                    maxLatency: range.latency, timeout: range.timeout)))
    }

    /// The central sends LL_CONNECTION_UPDATE_IND with an instant six events ahead.
    func sendConnectionUpdate(_ timing: ConnectionTimingParameters, on c: Connection) {
        let instant = c.link.eventCounter &+ 6
        c.link.pendingTimingUpdate = (instant, timing)
        c.link.peripheralHasTimingUpdate = false
        c.transmit.enqueue(.connectionUpdateInd(timing, instant: instant))
    }

    // MARK: Data length (§5.1.9, §4.5.10)

    func localDataLength(_ c: Connection) -> DataLengthValues {
        DataLengthValues(
            maxRxOctets: c.localRx.octets, maxRxTime: c.localRx.time, maxTxOctets: c.localTx.octets,
            maxTxTime: c.localTx.time)
    }

    func startDataLengthProcedure(_ c: Connection) {
        c.lengthProcedurePending = true
        c.transmit.enqueue(.lengthReq(localDataLength(c)))
    }

    /// The effective values (§4.5.10) and, when they changed, LE Data Length Change.
    func recomputeDataLength(_ c: Connection) {
        let txFloor: UInt16 = c.transmitPHY.isCoded ? 2704 : 328
        let rxFloor: UInt16 = c.receivePHY.isCoded ? 2704 : 328
        let values = DataLengthValues(
            maxRxOctets: max(27, min(c.localRx.octets, c.remoteTx.octets)),
            maxRxTime: max(rxFloor, min(c.localRx.time, c.remoteTx.time)),
            maxTxOctets: max(27, min(c.localTx.octets, c.remoteRx.octets)),
            maxTxTime: max(txFloor, min(c.localTx.time, c.remoteRx.time)))
        guard values != c.effective else { return }
        c.effective = values
        send(
            le: .dataLengthChange(
                .init(
                    connectionHandle: c.handle, maxTxOctets: values.maxTxOctets, maxTxTime: values.maxTxTime,
                    maxRxOctets: values.maxRxOctets, maxRxTime: values.maxRxTime)))
    }

    // MARK: PHY update (§5.1.10)

    /// This side's preferences: the host's for this connection, else its defaults, else every
    /// supported PHY.
    private func preferences(_ c: Connection) -> (tx: HCI.LEPHYs, rx: HCI.LEPHYs) {
        let all = supportedPHYs
        return ((c.preferredTxPHYs ?? all).intersection(all), (c.preferredRxPHYs ?? all).intersection(all))
    }

    func startPHYProcedure(_ c: Connection) {
        c.phyProcedurePending = true
        let own = preferences(c)
        c.transmit.enqueue(.phyReq(tx: own.tx, rx: own.rx))
    }

    private func receivedPHYRequest(tx: HCI.LEPHYs, rx: HCI.LEPHYs, on c: Connection) {
        switch c.role {
        case .peripheral:
            let own = preferences(c)
            c.transmit.enqueue(.phyRsp(tx: own.tx, rx: own.rx))
        case .central:
            decidePHYUpdate(c, peripheralTx: tx, peripheralRx: rx)
        }
    }

    /// The central picks each direction's PHY from what the sender may send and the receiver
    /// accepts, preferring LE 2M, then LE 1M, then LE Coded; an unchanged direction is left out.
    private func decidePHYUpdate(_ c: Connection, peripheralTx: HCI.LEPHYs, peripheralRx: HCI.LEPHYs) {
        let own = preferences(c)
        let peripheralCoding = c.peer?.codedPreference ?? .codedS8
        let toPeripheral = choosePHY(
            own.tx.intersection(peripheralRx), current: c.transmitPHY, coding: c.codedPreference)
        let toCentral = choosePHY(peripheralTx.intersection(own.rx), current: c.receivePHY, coding: peripheralCoding)
        if toPeripheral == nil && toCentral == nil {
            c.transmit.enqueue(.phyUpdateInd(centralToPeripheral: nil, peripheralToCentral: nil, instant: 0))
            c.phyProcedurePending = false
            if c.hostRequestedPHYUpdate { completePHYUpdate(on: c) }
            return
        }
        let instant = c.link.eventCounter &+ 6
        c.link.pendingPHYUpdate = (instant, toPeripheral, toCentral)
        c.link.peripheralHasPHYUpdate = false
        c.transmit.enqueue(
            .phyUpdateInd(centralToPeripheral: toPeripheral, peripheralToCentral: toCentral, instant: instant))
    }

    private func choosePHY(_ allowed: HCI.LEPHYs, current: PHY, coding: PHY) -> PHY? {
        let choice: PHY
        if allowed.contains(.le2M) {
            choice = .le2M
        } else if allowed.contains(.le1M) {
            choice = .le1M
        } else if allowed.contains(.leCoded) {
            choice = coding
        } else {
            return nil
        }
        return choice == current ? nil : choice
    }

    /// LE PHY Update Complete with the PHYs now in use (§7.7.65.12).
    func completePHYUpdate(on c: Connection) {
        c.phyProcedurePending = false
        c.hostRequestedPHYUpdate = false
        send(
            le: .phyUpdateComplete(
                .init(connectionHandle: c.handle, txPHY: c.transmitPHY.hci, rxPHY: c.receivePHY.hci)))
        recomputeDataLength(c)
    }
}
