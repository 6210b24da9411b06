import BLEWire

// Commands on an existing connection (Core 5.4 Vol 4 Part E §7.1.6, §7.1.23, §7.8.18,
// §7.8.21, §7.8.31–§7.8.35, §7.8.47–§7.8.49).

extension VirtualController {
    /// The ranges of §7.8.12 and §7.8.18, and the rule that the supervision timeout exceeds
    /// (1 + latency) × interval × 2 (Vol 6 Part B §4.5.2).
    static func isValid(_ p: HCI.ConnectionParameters) -> Bool {
        let intervals: ClosedRange<UInt16> = 0x0006...0x0C80
        guard intervals.contains(p.connectionIntervalMin), intervals.contains(p.connectionIntervalMax),
            p.connectionIntervalMin <= p.connectionIntervalMax, p.maxLatency <= 0x01F3,
            (0x000A...0x0C80).contains(p.supervisionTimeout), p.minCELength <= p.maxCELength
        else { return false }
        // Timeout (10 ms units) × 10 > (1 + latency) × interval (1.25 ms units) × 1.25 × 2.
        return Int(p.supervisionTimeout) * 4 > (1 + Int(p.maxLatency)) * Int(p.connectionIntervalMax)
    }

    /// The timing the controller picks from a requested range: the shortest interval.
    static func timing(for p: HCI.ConnectionParameters) -> ConnectionTimingParameters {
        ConnectionTimingParameters(
            interval: p.connectionIntervalMin, latency: p.maxLatency, timeout: p.supervisionTimeout)
    }

    /// HCI_Disconnect (§7.1.6): Command Status now; Disconnection Complete with 0x16 once the
    /// peer acknowledged LL_TERMINATE_IND (the peer's host gets the reason sent).
    func disconnect(_ command: HCI.Disconnect, on c: Connection) -> HCIStatus {
        let allowed: Set<UInt8> = [0x05, 0x13, 0x14, 0x15, 0x1A, 0x29, 0x3B]
        guard allowed.contains(command.reason.rawValue) else { return .invalidHCICommandParameters }
        if c.terminationReason != nil { return .commandDisallowed }
        c.terminationReason = command.reason
        c.transmit.enqueueFirst(.terminateInd(command.reason))
        return .success
    }

    /// HCI_Read_Remote_Version_Information (§7.1.23): LL_VERSION_IND is exchanged once per
    /// connection; later requests are answered from what was learnt.
    func readRemoteVersion(_ command: HCI.ReadRemoteVersionInformation, on c: Connection) -> HCIStatus {
        c.hostWantsRemoteVersion = true
        if c.remoteVersion != nil {
            completeRemoteVersion(c)
        } else if !c.versionSent {
            sendVersion(c)
        }
        return .success
    }

    /// HCI_LE_Read_Remote_Features (§7.8.21): LL_FEATURE_REQ from the central,
    /// LL_PERIPHERAL_FEATURE_REQ from the peripheral.
    func leReadRemoteFeatures(_ command: HCI.LEReadRemoteFeatures, on c: Connection) -> HCIStatus {
        if c.role == .peripheral && !configuration.leFeatures.contains(.peripheralInitiatedFeaturesExchange) {
            return .unsupportedRemoteFeature
        }
        c.hostWantsRemoteFeatures = true
        if c.remoteFeatures != nil {
            completeRemoteFeatures(c)
        } else {
            let own = configuration.leFeatures
            c.transmit.enqueue(c.role == .central ? .featureReq(own) : .peripheralFeatureReq(own))
        }
        return .success
    }

    /// HCI_LE_Connection_Update (§7.8.18): the central updates at an instant; a peripheral asks
    /// its central with LL_CONNECTION_PARAM_REQ.
    func leConnectionUpdate(_ command: HCI.LEConnectionUpdate, on c: Connection) -> HCIStatus {
        guard Self.isValid(command.connectionParameters) else { return .invalidHCICommandParameters }
        if c.hostRequestedUpdate || c.link.pendingTimingUpdate != nil || c.terminationReason != nil {
            return .commandDisallowed
        }
        // A peripheral asks through the LL Connection Parameters Request procedure only
        // (Vol 6 Part B §5.1.7); without it, its host must use L2CAP.
        if c.role == .peripheral && !configuration.leFeatures.contains(.connectionParametersRequestProcedure) {
            return .unsupportedFeatureOrParameterValue
        }
        c.hostRequestedUpdate = true
        let p = command.connectionParameters
        switch c.role {
        case .central:
            sendConnectionUpdate(Self.timing(for: p), on: c)
        case .peripheral:
            let range = ConnectionParameterRange(
                intervalMin: p.connectionIntervalMin, intervalMax: p.connectionIntervalMax, latency: p.maxLatency,
                timeout: p.supervisionTimeout)
            c.parameterRequestPending = range
            c.transmit.enqueue(.connectionParamReq(range))
        }
        return .success
    }

    /// HCI_LE_Remote_Connection_Parameter_Request_Reply (§7.8.31).
    func leRemoteConnectionParameterRequestReply(
        _ command: HCI.LERemoteConnectionParameterRequestReply, on c: Connection
    ) -> CommandResult<HCI.ConnectionHandleReturnParameters> {
        let handle = command.connectionHandle
        guard c.role == .central, c.parameterRequestPending != nil else {
            return .complete(.init(status: .commandDisallowed, connectionHandle: handle))
        }
        guard Self.isValid(command.connectionParameters) else {
            return .complete(.init(status: .invalidHCICommandParameters, connectionHandle: handle))
        }
        c.parameterRequestPending = nil
        sendConnectionUpdate(Self.timing(for: command.connectionParameters), on: c)
        return .complete(.init(connectionHandle: handle))
    }

    /// HCI_LE_Remote_Connection_Parameter_Request_Negative_Reply (§7.8.32).
    func leRemoteConnectionParameterRequestNegativeReply(
        _ command: HCI.LERemoteConnectionParameterRequestNegativeReply, on c: Connection
    ) -> CommandResult<HCI.ConnectionHandleReturnParameters> {
        let handle = command.connectionHandle
        guard c.role == .central, c.parameterRequestPending != nil else {
            return .complete(.init(status: .commandDisallowed, connectionHandle: handle))
        }
        c.parameterRequestPending = nil
        c.transmit.enqueue(.rejectExtInd(rejectedOpcode: 0x0F, command.reason))
        return .complete(.init(connectionHandle: handle))
    }

    // MARK: Data length (§7.8.33–§7.8.35)

    private static let octetRange: ClosedRange<UInt16> = 27...251
    private static let timeRange: ClosedRange<UInt16> = 328...17040

    /// HCI_LE_Set_Data_Length (§7.8.33): Command Complete now, LE Data Length Change on both
    /// sides once LL_LENGTH_REQ/RSP are exchanged (if the effective values change).
    func leSetDataLength(
        _ command: HCI.LESetDataLength, on c: Connection
    ) -> CommandResult<HCI.ConnectionHandleReturnParameters> {
        let handle = command.connectionHandle
        // Without Data Packet Length Extension the command does not exist (Vol 6 Part B §4.6.5).
        guard configuration.leFeatures.contains(.leDataPacketLengthExtension) else {
            return .complete(.init(status: .unknownHCICommand, connectionHandle: handle))
        }
        guard Self.octetRange.contains(command.txOctets), Self.timeRange.contains(command.txTime) else {
            return .complete(.init(status: .invalidHCICommandParameters, connectionHandle: handle))
        }
        c.localTx = (
            min(command.txOctets, configuration.supportedMaxTxOctets),
            min(command.txTime, configuration.supportedMaxTxTime)
        )
        startDataLengthProcedure(c)
        return .complete(.init(connectionHandle: handle))
    }

    /// HCI_LE_Write_Suggested_Default_Data_Length (§7.8.35): new connections negotiate these.
    func leWriteSuggestedDefaultDataLength(
        _ command: HCI.LEWriteSuggestedDefaultDataLength
    ) -> CommandResult<HCI.StatusReturnParameters> {
        guard Self.octetRange.contains(command.suggestedMaxTXOctets),
            Self.timeRange.contains(command.suggestedMaxTXTime)
        else { return .failed(.invalidHCICommandParameters) }
        suggestedMaxTxOctets = min(command.suggestedMaxTXOctets, configuration.supportedMaxTxOctets)
        suggestedMaxTxTime = min(command.suggestedMaxTXTime, configuration.supportedMaxTxTime)
        return .complete(.init())
    }

    // MARK: PHY (§7.8.47–§7.8.49)

    /// HCI_LE_Read_PHY (§7.8.47).
    func leReadPHY(_ command: HCI.LEReadPHY, on c: Connection) -> CommandResult<HCI.LEReadPHY.ReturnParameters> {
        .complete(.init(connectionHandle: command.connectionHandle, txPHY: c.transmitPHY.hci, rxPHY: c.receivePHY.hci))
    }

    /// Checks a PHY preference: nil for "no preference", else a non-empty set of supported
    /// PHYs. Returns the status to refuse with, if any.
    private func validatePreference(_ phys: HCI.LEPHYs, noPreference: Bool) -> HCIStatus? {
        if noPreference { return nil }
        if phys.isEmpty { return .invalidHCICommandParameters }
        if phys.rawValue & ~0x07 != 0 { return .invalidHCICommandParameters }
        if !supportedPHYs.isSuperset(of: phys) { return .unsupportedFeatureOrParameterValue }
        return nil
    }

    /// HCI_LE_Set_Default_PHY (§7.8.48).
    func leSetDefaultPHY(_ command: HCI.LESetDefaultPHY) -> CommandResult<HCI.StatusReturnParameters> {
        let noTx = command.allPHYs.contains(.noTransmitPreference)
        let noRx = command.allPHYs.contains(.noReceivePreference)
        if command.allPHYs.rawValue & ~0x03 != 0 { return .failed(.invalidHCICommandParameters) }
        if let status = validatePreference(command.txPHYs, noPreference: noTx) { return .failed(status) }
        if let status = validatePreference(command.rxPHYs, noPreference: noRx) { return .failed(status) }
        defaultTxPHYs = noTx ? nil : command.txPHYs
        defaultRxPHYs = noRx ? nil : command.rxPHYs
        return .complete(.init())
    }

    /// HCI_LE_Set_PHY (§7.8.49): Command Status, then LE PHY Update Complete on both sides at
    /// the instant (only to this host when nothing changes).
    func leSetPHY(_ command: HCI.LESetPHY, on c: Connection) -> HCIStatus {
        let noTx = command.allPHYs.contains(.noTransmitPreference)
        let noRx = command.allPHYs.contains(.noReceivePreference)
        if command.allPHYs.rawValue & ~0x03 != 0 { return .invalidHCICommandParameters }
        if let status = validatePreference(command.txPHYs, noPreference: noTx) { return status }
        if let status = validatePreference(command.rxPHYs, noPreference: noRx) { return status }
        if case .other = command.phyOptions { return .invalidHCICommandParameters }
        c.preferredTxPHYs = noTx ? nil : command.txPHYs
        c.preferredRxPHYs = noRx ? nil : command.rxPHYs
        c.codedPreference = command.phyOptions == .preferS2 ? .codedS2 : .codedS8
        c.hostRequestedPHYUpdate = true
        if !c.phyProcedurePending && c.link.pendingPHYUpdate == nil { startPHYProcedure(c) }
        return .success
    }
}
