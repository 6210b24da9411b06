import BLEWire

// Extended advertising commands (Core 5.4 Vol 4 Part E §7.8.52–§7.8.60).

extension VirtualController {
    private var extendedSetCount: Int { advertisingSets.keys.filter { $0 != AdvertisingSet.legacyHandle }.count }

    /// The set named by an Advertising_Handle, which must be 0x00–0xEF.
    private func extendedSet(_ handle: UInt8) -> AdvertisingSet? {
        handle <= 0xEF ? advertisingSets[handle] : nil
    }

    /// HCI_LE_Set_Advertising_Set_Random_Address (§7.8.52).
    func leSetAdvertisingSetRandomAddress(
        _ command: HCI.LESetAdvertisingSetRandomAddress
    ) -> CommandResult<HCI.StatusReturnParameters> {
        guard let set = extendedSet(command.advertisingHandle) else { return .failed(.unknownAdvertisingIdentifier) }
        if set.run != nil && set.parameters.isConnectable { return .failed(.commandDisallowed) }
        set.randomAddress = command.randomAddress
        return .complete(.init())
    }

    /// HCI_LE_Set_Extended_Advertising_Parameters [v1] and [v2] (§7.8.53): creates or changes a
    /// set; disallowed while it is enabled.
    func leSetExtendedAdvertisingParameters(
        _ command: HCI.LESetExtendedAdvertisingParameters
    ) -> CommandResult<HCI.LESetExtendedAdvertisingParameters.ReturnParameters> {
        let handle = command.advertisingHandle
        guard handle <= 0xEF else { return .failed(.invalidHCICommandParameters) }
        let existing = advertisingSets[handle]
        if existing?.run != nil { return .failed(.commandDisallowed) }
        if existing == nil && extendedSetCount >= Int(configuration.advertisingSets) {
            return .failed(.memoryCapacityExceeded)
        }
        guard let parameters = validatedParameters(command) else { return .failed(.invalidHCICommandParameters) }
        if let existing {
            // Data the new properties cannot carry makes the change invalid (§7.8.53).
            let p = parameters
            if (!p.supportsAdvertisingData && !existing.data.bytes.isEmpty)
                || (p.isLegacy && (existing.data.bytes.count > 31 || existing.scanResponse.bytes.count > 31))
            {
                return .failed(.invalidHCICommandParameters)
            }
            existing.parameters = parameters
        } else {
            advertisingSets[handle] = AdvertisingSet(
                handle: handle, parameters: parameters, dataID: UInt16.random(in: 0...0x0FFF, using: &random))
        }
        return .complete(.init(selectedTXPower: parameters.txPower))
    }

    private func validatedParameters(_ c: HCI.LESetExtendedAdvertisingParameters) -> AdvertisingSetParameters? {
        let properties = HCI.AdvertisingEventProperties(rawValue: c.advertisingEventProperties.rawValue & 0x7F)
        guard properties.rawValue == c.advertisingEventProperties.rawValue else { return nil }
        let legacy = properties.contains(.legacy)
        let highDuty = properties.contains(.highDutyCycleDirectedConnectable)
        if legacy {
            var probe = AdvertisingSetParameters.legacyDefault(txPower: 0)
            probe.properties = properties
            guard probe.legacyPDU != nil, !properties.contains(.anonymous) else { return nil }
        } else {
            if properties.contains(.connectable) && properties.contains(.scannable) { return nil }
            if properties.contains(.anonymous) && properties.contains(.connectable) { return nil }
            if highDuty && !(properties.contains(.connectable) && properties.contains(.directed)) { return nil }
        }
        if !(legacy && highDuty) {
            guard c.primaryAdvertisingIntervalMin >= 0x20,
                c.primaryAdvertisingIntervalMin <= c.primaryAdvertisingIntervalMax
            else { return nil }
        }
        let map = c.primaryAdvertisingChannelMap
        guard map.rawValue != 0, map.rawValue & ~0x07 == 0 else { return nil }
        if case .other = c.ownAddressType { return nil }
        if case .other = c.advertisingFilterPolicy { return nil }
        if properties.contains(.directed) {
            guard c.peerAddressType == .public || c.peerAddressType == .random else { return nil }
        }
        guard c.advertisingSID <= 0x0F else { return nil }
        let coded = configuration.leFeatures.contains(.leCodedPHY)
        let primary: PHY
        switch c.primaryAdvertisingPHY.phy(coded: .codedS8) {
        case .le1M?: primary = .le1M
        case .codedS8? where coded && !legacy: primary = .codedS8
        default: return nil
        }
        let secondary: PHY
        switch c.secondaryAdvertisingPHY.phy(coded: .codedS8) {
        case .le1M?: secondary = .le1M
        case .le2M? where configuration.leFeatures.contains(.le2MPHY): secondary = .le2M
        case .codedS8? where coded: secondary = .codedS8
        default: return nil
        }
        let range = configuration.txPowerRange
        let power =
            c.advertisingTXPower == HCI.LESetExtendedAdvertisingParameters.noTXPowerPreference
            ? configuration.txPower : min(range.upperBound, max(range.lowerBound, c.advertisingTXPower))
        return AdvertisingSetParameters(
            properties: properties, intervalMin: c.primaryAdvertisingIntervalMin,
            intervalMax: c.primaryAdvertisingIntervalMax, channelMap: map, ownAddressType: c.ownAddressType,
            peer: LEAddress(c.peerAddress, type: c.peerAddressType), filterPolicy: c.advertisingFilterPolicy,
            txPower: power, primaryPHY: primary, secondaryPHY: secondary, sid: c.advertisingSID,
            scanRequestNotification: c.scanRequestNotificationEnable)
    }

    /// The advertising data one AUX_ADV_IND of `set` can carry: connectable extended
    /// advertising cannot chain (§4.4.2.7).
    private func singlePDUCapacity(_ set: AdvertisingSet) -> Int {
        let p = set.parameters
        let header = ExtendedAdvertisingPDU.headerLength(
            advertiser: !p.isAnonymous, target: p.isDirected, dataInfo: true, auxPointer: false,
            txPower: p.properties.contains(.includeTxPower))
        return ExtendedAdvertisingPDU.maximumPayload - 1 - header
    }

    /// HCI_LE_Set_Extended_Advertising_Data (§7.8.54): whole data or fragments of up to 251
    /// octets, reassembled up to Max_Advertising_Data_Length.
    func leSetExtendedAdvertisingData(
        _ command: HCI.LESetExtendedAdvertisingData
    ) -> CommandResult<HCI.StatusReturnParameters> {
        guard let set = extendedSet(command.advertisingHandle) else { return .failed(.unknownAdvertisingIdentifier) }
        let p = set.parameters
        let data = command.advertisingData
        if !p.supportsAdvertisingData && !data.isEmpty { return .failed(.invalidHCICommandParameters) }
        let status = applyFragment(
            to: set, scanResponse: false, operation: command.operation, data: data,
            capacity: p.isLegacy
                ? 31 : (p.isConnectable ? singlePDUCapacity(set) : configuration.maximumAdvertisingDataLength))
        return status.isSuccess ? .complete(.init()) : .failed(status)
    }

    /// HCI_LE_Set_Extended_Scan_Response_Data (§7.8.55).
    func leSetExtendedScanResponseData(
        _ command: HCI.LESetExtendedScanResponseData
    ) -> CommandResult<HCI.StatusReturnParameters> {
        guard let set = extendedSet(command.advertisingHandle) else { return .failed(.unknownAdvertisingIdentifier) }
        let p = set.parameters
        let data = command.scanResponseData
        if !p.supportsScanResponseData && !data.isEmpty { return .failed(.invalidHCICommandParameters) }
        let status = applyFragment(
            to: set, scanResponse: true, operation: command.operation, data: data,
            capacity: p.isLegacy ? 31 : configuration.maximumAdvertisingDataLength)
        return status.isSuccess ? .complete(.init()) : .failed(status)
    }

    private func applyFragment(
        to set: AdvertisingSet, scanResponse: Bool, operation: HCI.AdvertisingDataOperation,
        data: ArraySlice<UInt8>, capacity: Int
    ) -> HCIStatus {
        let p = set.parameters
        if p.isLegacy && (operation != .completeData || data.count > 31) { return .invalidHCICommandParameters }
        if set.run != nil && operation != .completeData && operation != .unchangedData { return .commandDisallowed }
        if p.isConnectable && !p.isLegacy && !scanResponse {
            let store = set.data
            let total =
                (operation == .completeData || operation == .firstFragment)
                ? data.count : store.bytes.count + data.count
            if total > capacity { return .invalidHCICommandParameters }
        }
        var store = scanResponse ? set.scanResponse : set.data
        let status = store.apply(operation, data, capacity: capacity)
        if scanResponse { set.scanResponse = store } else { set.data = store }
        if status.isSuccess && store.isComplete { set.dataChanged() }
        return status
    }

    /// HCI_LE_Set_Extended_Advertising_Enable (§7.8.56).
    func leSetExtendedAdvertisingEnable(
        _ command: HCI.LESetExtendedAdvertisingEnable
    ) -> CommandResult<HCI.StatusReturnParameters> {
        guard command.enable else {
            if command.sets.isEmpty {
                for (handle, set) in advertisingSets where handle != AdvertisingSet.legacyHandle {
                    stopAdvertisingRun(of: set)
                }
                return .complete(.init())
            }
            for entry in command.sets where extendedSet(entry.advertisingHandle) == nil {
                return .failed(.unknownAdvertisingIdentifier)
            }
            for entry in command.sets {
                if let set = extendedSet(entry.advertisingHandle) { stopAdvertisingRun(of: set) }
            }
            return .complete(.init())
        }
        let handles = command.sets.map(\.advertisingHandle)
        guard !handles.isEmpty, Set(handles).count == handles.count else {
            return .failed(.invalidHCICommandParameters)
        }
        var starts: [(AdvertisingSet, LEAddress, Duration?, Int?)] = []
        for entry in command.sets {
            guard let set = extendedSet(entry.advertisingHandle) else { return .failed(.unknownAdvertisingIdentifier) }
            let p = set.parameters
            guard set.data.isComplete, set.scanResponse.isComplete else { return .failed(.commandDisallowed) }
            if p.isScannable && !p.isLegacy && set.scanResponse.bytes.isEmpty { return .failed(.commandDisallowed) }
            guard let address = ownAddress(p.ownAddressType, random: set.randomAddress, peer: p.peer) else {
                return .failed(.invalidHCICommandParameters)
            }
            if p.isConnectable && connections.count >= configuration.maximumConnections {
                return .failed(.connectionRejectedLimitedResources)
            }
            var duration: Duration? = entry.duration == 0 ? nil : .milliseconds(Int64(entry.duration) * 10)
            if p.isHighDutyCycle {
                if entry.duration > 128 { return .failed(.invalidHCICommandParameters) }
                duration = duration ?? .milliseconds(1280)
            }
            let events = entry.maxExtendedAdvertisingEvents == 0 ? nil : Int(entry.maxExtendedAdvertisingEvents)
            starts.append((set, address, duration, events))
        }
        for (set, address, duration, events) in starts {
            stopAdvertisingRun(of: set)
            startAdvertising(set, address: address, duration: duration, maximumEvents: events)
        }
        return .complete(.init())
    }

    /// HCI_LE_Read_Maximum_Advertising_Data_Length (§7.8.57).
    func leReadMaximumAdvertisingDataLength(
        _ command: HCI.LEReadMaximumAdvertisingDataLength
    ) -> CommandResult<HCI.LEReadMaximumAdvertisingDataLength.ReturnParameters> {
        .complete(.init(maxAdvertisingDataLength: UInt16(configuration.maximumAdvertisingDataLength)))
    }

    /// HCI_LE_Read_Number_of_Supported_Advertising_Sets (§7.8.58).
    func leReadNumberOfSupportedAdvertisingSets(
        _ command: HCI.LEReadNumberOfSupportedAdvertisingSets
    ) -> CommandResult<HCI.LEReadNumberOfSupportedAdvertisingSets.ReturnParameters> {
        .complete(.init(numSupportedAdvertisingSets: configuration.advertisingSets))
    }

    /// HCI_LE_Remove_Advertising_Set (§7.8.59).
    func leRemoveAdvertisingSet(_ command: HCI.LERemoveAdvertisingSet) -> CommandResult<HCI.StatusReturnParameters> {
        guard let set = extendedSet(command.advertisingHandle) else { return .failed(.unknownAdvertisingIdentifier) }
        if set.run != nil { return .failed(.commandDisallowed) }
        advertisingSets[command.advertisingHandle] = nil
        return .complete(.init())
    }

    /// HCI_LE_Clear_Advertising_Sets (§7.8.60).
    func leClearAdvertisingSets() -> CommandResult<HCI.StatusReturnParameters> {
        if advertisingSets.values.contains(where: { $0.run != nil }) { return .failed(.commandDisallowed) }
        advertisingSets = advertisingSets.filter { $0.key == AdvertisingSet.legacyHandle }
        return .complete(.init())
    }
}
