import BLEWire

// Legacy advertising commands (Core 5.4 Vol 4 Part E §7.8.5–§7.8.9), which drive the one set
// `AdvertisingSet.legacyHandle`.

extension VirtualController {
    /// The set the legacy commands configure, created with the defaults of §7.8.5.
    func legacyAdvertisingSet() -> AdvertisingSet {
        if let set = advertisingSets[AdvertisingSet.legacyHandle] { return set }
        let set = AdvertisingSet(
            handle: AdvertisingSet.legacyHandle,
            parameters: .legacyDefault(txPower: configuration.txPower),
            dataID: UInt16.random(in: 0...0x0FFF, using: &random))
        advertisingSets[AdvertisingSet.legacyHandle] = set
        return set
    }

    /// HCI_LE_Set_Advertising_Parameters (§7.8.5): disallowed while advertising is enabled.
    func leSetAdvertisingParameters(
        _ command: HCI.LESetAdvertisingParameters
    ) -> CommandResult<HCI.StatusReturnParameters> {
        let set = legacyAdvertisingSet()
        if set.run != nil { return .failed(.commandDisallowed) }
        guard let properties = AdvertisingSetParameters.properties(of: command.advertisingType) else {
            return .failed(.invalidHCICommandParameters)
        }
        let highDuty = command.advertisingType == .connectableDirectedHighDutyCycle
        if !highDuty {
            let range: ClosedRange<UInt16> = 0x0020...0x4000
            guard range.contains(command.advertisingIntervalMin), range.contains(command.advertisingIntervalMax),
                command.advertisingIntervalMin <= command.advertisingIntervalMax
            else { return .failed(.invalidHCICommandParameters) }
        }
        if case .other = command.ownAddressType { return .failed(.invalidHCICommandParameters) }
        if case .other = command.advertisingFilterPolicy { return .failed(.invalidHCICommandParameters) }
        let map = command.advertisingChannelMap
        guard map.rawValue != 0, map.rawValue & ~0x07 == 0 else { return .failed(.invalidHCICommandParameters) }
        if properties.contains(.directed) {
            guard command.peerAddressType == .public || command.peerAddressType == .random else {
                return .failed(.invalidHCICommandParameters)
            }
        }
        set.parameters = AdvertisingSetParameters(
            properties: properties, intervalMin: UInt32(command.advertisingIntervalMin),
            intervalMax: UInt32(command.advertisingIntervalMax), channelMap: map,
            ownAddressType: command.ownAddressType, peer: LEAddress(command.peerAddress, type: command.peerAddressType),
            filterPolicy: command.advertisingFilterPolicy, txPower: configuration.txPower, primaryPHY: .le1M,
            secondaryPHY: .le1M, sid: 0, scanRequestNotification: false)
        return .complete(.init())
    }

    /// HCI_LE_Set_Advertising_Data (§7.8.7): takes effect from the next advertising PDU.
    func leSetAdvertisingData(_ command: HCI.LESetAdvertisingData) -> CommandResult<HCI.StatusReturnParameters> {
        let set = legacyAdvertisingSet()
        set.data.replace(with: Array(command.advertisingData))
        set.dataChanged()
        return .complete(.init())
    }

    /// HCI_LE_Set_Scan_Response_Data (§7.8.8).
    func leSetScanResponseData(_ command: HCI.LESetScanResponseData) -> CommandResult<HCI.StatusReturnParameters> {
        let set = legacyAdvertisingSet()
        set.scanResponse.replace(with: Array(command.scanResponseData))
        return .complete(.init())
    }

    /// HCI_LE_Set_Advertising_Enable (§7.8.9). Enabling connectable advertising when no further
    /// connection can be accepted is refused with 0x0D; high duty cycle directed advertising
    /// stops by itself after 1.28 s.
    func leSetAdvertisingEnable(_ command: HCI.LESetAdvertisingEnable) -> CommandResult<HCI.StatusReturnParameters> {
        let set = legacyAdvertisingSet()
        guard command.advertisingEnable else {
            stopAdvertisingRun(of: set)
            return .complete(.init())
        }
        if set.run != nil { return .complete(.init()) }
        let p = set.parameters
        guard let address = ownAddress(p.ownAddressType, random: randomAddress, peer: p.peer) else {
            return .failed(.invalidHCICommandParameters)
        }
        if set.parameters.isConnectable && connections.count >= configuration.maximumConnections {
            return .failed(.connectionRejectedLimitedResources)
        }
        let duration: Duration? = set.parameters.isHighDutyCycle ? .milliseconds(1280) : nil
        startAdvertising(set, address: address, duration: duration, maximumEvents: nil)
        return .complete(.init())
    }
}
