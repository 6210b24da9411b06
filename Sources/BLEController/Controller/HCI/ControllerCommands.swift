import BLEWire

// Commands about the controller itself: Reset, event masks, identity, buffers, addresses and the
// Filter Accept List (Core 5.4 Vol 4 Part E §7.3, §7.4, §7.5, §7.8).

extension VirtualController {
    /// HCI_Reset (Core 5.4 Vol 4 Part E §7.3.2): the controller returns to its power-on state.
    /// Advertising, scanning and initiating stop and every connection is dropped without a word
    /// on air, so each peer sees its link go silent and times out (reason 0x08).
    func reset() -> CommandResult<HCI.StatusReturnParameters> {
        for set in advertisingSets.values { stopAdvertisingRun(of: set) }
        advertisingSets = [:]
        stopScanning()
        if let initiator { initiator.cancelPending(on: air.queue) }
        initiator = nil
        for connection in connections.values { abandon(connection) }
        connections = [:]
        masks = EventMasks()
        commandFamily = .undecided
        aclPacketsInController = 0
        hostACLDataPacketLength = configuration.defaultHostACLDataPacketLength
        leHostSupported = true
        randomAddress = defaultRandomAddress
        legacyScanParameters = HCI.LESetScanParameters()
        extendedScanParameters = nil
        filterAcceptList = []
        suggestedMaxTxOctets = 27
        suggestedMaxTxTime = 328
        defaultTxPHYs = nil
        defaultRxPHYs = nil
        hostChannelClassification = .allDataChannels
        resetPrivacy()
        return .complete(.init())
    }

    /// HCI_Set_Event_Mask (§7.3.1).
    func setEventMask(_ command: HCI.SetEventMask) -> CommandResult<HCI.StatusReturnParameters> {
        masks.page1 = command.eventMask
        return .complete(.init())
    }

    /// HCI_Set_Event_Mask_Page_2 (§7.3.69).
    func setEventMaskPage2(_ command: HCI.SetEventMaskPage2) -> CommandResult<HCI.StatusReturnParameters> {
        masks.page2 = command.eventMaskPage2
        return .complete(.init())
    }

    /// HCI_LE_Set_Event_Mask (§7.8.1).
    func leSetEventMask(_ command: HCI.LESetEventMask) -> CommandResult<HCI.StatusReturnParameters> {
        masks.le = command.leEventMask
        return .complete(.init())
    }

    /// HCI_Read_Local_Version_Information (§7.4.1).
    func readLocalVersion() -> CommandResult<HCI.ReadLocalVersionInformation.ReturnParameters> {
        let c = configuration
        return .complete(
            .init(
                hciVersion: c.hciVersion, hciSubversion: c.hciSubversion, lmpVersion: c.lmpVersion,
                companyIdentifier: c.companyIdentifier, lmpSubversion: c.lmpSubversion))
    }

    /// HCI_Read_Local_Extended_Features (§7.4.4): page 0 is the LMP features, page 1 the host's
    /// (bit 1: LE Supported (Host)).
    func readLocalExtendedFeatures(
        _ command: HCI.ReadLocalExtendedFeatures
    ) -> CommandResult<HCI.ReadLocalExtendedFeatures.ReturnParameters> {
        switch command.pageNumber {
        case 0:
            let features: HCI.LMPFeatures = [.bredrNotSupported, .leSupportedController, .extendedFeatures]
            return .complete(.init(pageNumber: 0, maxPageNumber: 1, extendedLMPFeatures: features.rawValue))
        case 1:
            return .complete(.init(pageNumber: 1, maxPageNumber: 1, extendedLMPFeatures: leHostSupported ? 0b10 : 0))
        default:
            return .failed(.invalidHCICommandParameters)
        }
    }

    /// HCI_Read_Buffer_Size (§7.4.5): LE and BR/EDR would share these buffers; an LE-only
    /// controller reports its LE ACL buffers here too.
    func readBufferSize() -> CommandResult<HCI.ReadBufferSize.ReturnParameters> {
        .complete(
            .init(
                aclDataPacketLength: configuration.aclBufferSize, synchronousDataPacketLength: 0,
                totalNumACLDataPackets: UInt16(configuration.aclBufferCount), totalNumSynchronousDataPackets: 0))
    }

    /// HCI_LE_Read_Buffer_Size [v1] (§7.8.2).
    func leReadBufferSize() -> CommandResult<HCI.LEReadBufferSize.ReturnParameters> {
        .complete(
            .init(
                leACLDataPacketLength: configuration.aclBufferSize,
                totalNumLEACLDataPackets: configuration.aclBufferCount))
    }

    /// HCI_Host_Buffer_Size (§7.3.39): ACL data toward the host is cut to the host's length.
    func hostBufferSize(_ command: HCI.HostBufferSize) -> CommandResult<HCI.StatusReturnParameters> {
        guard command.hostACLDataPacketLength > 0, command.hostTotalNumACLDataPackets > 0 else {
            return .failed(.invalidHCICommandParameters)
        }
        hostACLDataPacketLength = command.hostACLDataPacketLength
        return .complete(.init())
    }

    /// HCI_Read_LE_Host_Support (§7.3.78).
    func readLEHostSupport() -> CommandResult<HCI.ReadLEHostSupport.ReturnParameters> {
        .complete(.init(leSupportedHost: leHostSupported ? 1 : 0))
    }

    /// HCI_Write_LE_Host_Support (§7.3.79).
    func writeLEHostSupport(_ command: HCI.WriteLEHostSupport) -> CommandResult<HCI.StatusReturnParameters> {
        guard command.unused == 0 else { return .failed(.invalidHCICommandParameters) }
        leHostSupported = command.leSupportedHost
        return .complete(.init())
    }

    /// HCI_Read_Transmit_Power_Level (§7.3.35): the connection's current or maximum power.
    func readTransmitPowerLevel(
        _ command: HCI.ReadTransmitPowerLevel, on _: Connection
    ) -> CommandResult<HCI.ReadTransmitPowerLevel.ReturnParameters> {
        let handle = command.connectionHandle
        switch command.type {
        case .current: return .complete(.init(connectionHandle: handle, txPowerLevel: configuration.txPower))
        case .maximum:
            return .complete(.init(connectionHandle: handle, txPowerLevel: configuration.txPowerRange.upperBound))
        case .other:
            return .complete(.init(status: .invalidHCICommandParameters, connectionHandle: handle, txPowerLevel: 0))
        }
    }

    /// HCI_Read_RSSI (§7.5.4): on LE, the strength of the last packet received on the
    /// connection (127 before any).
    func readRSSI(_ command: HCI.ReadRSSI, on connection: Connection) -> CommandResult<HCI.ReadRSSI.ReturnParameters> {
        .complete(.init(handle: command.handle, rssi: connection.lastRSSI ?? 127))
    }

    /// HCI_LE_Set_Random_Address (§7.8.4): refused while legacy advertising, scanning or
    /// initiating uses the current one.
    func leSetRandomAddress(_ command: HCI.LESetRandomAddress) -> CommandResult<HCI.StatusReturnParameters> {
        let legacyAdvertising = advertisingSets[AdvertisingSet.legacyHandle]?.run != nil
        if legacyAdvertising || scanner != nil || initiator != nil { return .failed(.commandDisallowed) }
        randomAddress = command.randomAddress
        return .complete(.init())
    }

    /// HCI_LE_Read_Advertising_Physical_Channel_Tx_Power (§7.8.6).
    func leReadAdvertisingTxPower() -> CommandResult<HCI.LEReadAdvertisingPhysicalChannelTxPower.ReturnParameters> {
        .complete(.init(txPowerLevel: configuration.txPower))
    }

    /// HCI_LE_Set_Host_Channel_Classification (§7.8.19): at least two channels must stay in use.
    func leSetHostChannelClassification(
        _ command: HCI.LESetHostChannelClassification
    ) -> CommandResult<HCI.StatusReturnParameters> {
        let map = command.channelMap
        let used = (0..<37).filter { map.contains(channel: $0) }.count
        if map.rawValue >> 37 != 0 || used < 2 { return .failed(.invalidHCICommandParameters) }
        hostChannelClassification = map
        return .complete(.init())
    }

    /// HCI_LE_Read_Channel_Map (§7.8.20).
    func leReadChannelMap(
        _ command: HCI.LEReadChannelMap, on _: Connection
    ) -> CommandResult<HCI.LEReadChannelMap.ReturnParameters> {
        .complete(.init(connectionHandle: command.connectionHandle, channelMap: hostChannelClassification))
    }

    // MARK: Filter Accept List (§7.8.14–§7.8.17)

    /// Whether advertising, scanning or initiating currently filters with the list: it may not
    /// change then.
    var filterAcceptListInUse: Bool {
        for set in advertisingSets.values where set.run != nil {
            if set.parameters.filterPolicy != .acceptAll { return true }
        }
        if let scanner, scanner.filterPolicy == .basicFiltered || scanner.filterPolicy == .extendedFiltered {
            return true
        }
        if let initiator, initiator.usesFilterAcceptList { return true }
        return false
    }

    func filterAcceptListContains(_ address: LEAddress?) -> Bool {
        guard let address else { return filterAcceptList.contains { $0.type == .other(0xFF) } }
        return filterAcceptList.contains(address)
    }

    func leClearFilterAcceptList() -> CommandResult<HCI.StatusReturnParameters> {
        if filterAcceptListInUse { return .failed(.commandDisallowed) }
        filterAcceptList = []
        return .complete(.init())
    }

    func leAddDeviceToFilterAcceptList(
        _ command: HCI.LEAddDeviceToFilterAcceptList
    ) -> CommandResult<HCI.StatusReturnParameters> {
        if filterAcceptListInUse { return .failed(.commandDisallowed) }
        let entry: LEAddress
        switch command.addressType {
        case .public, .random: entry = LEAddress(command.address, type: command.addressType)
        case .other(0xFF): entry = LEAddress(.zero, type: .other(0xFF))
        default: return .failed(.invalidHCICommandParameters)
        }
        if filterAcceptList.contains(entry) { return .complete(.init()) }
        if filterAcceptList.count >= Int(configuration.filterAcceptListSize) {
            return .failed(.memoryCapacityExceeded)
        }
        filterAcceptList.append(entry)
        return .complete(.init())
    }

    func leRemoveDeviceFromFilterAcceptList(
        _ command: HCI.LERemoveDeviceFromFilterAcceptList
    ) -> CommandResult<HCI.StatusReturnParameters> {
        if filterAcceptListInUse { return .failed(.commandDisallowed) }
        switch command.addressType {
        case .public, .random:
            filterAcceptList.removeAll { $0 == LEAddress(command.address, type: command.addressType) }
        case .other(0xFF): filterAcceptList.removeAll { $0.type == .other(0xFF) }
        default: return .failed(.invalidHCICommandParameters)
        }
        return .complete(.init())
    }
}
