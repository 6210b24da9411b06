import BLEWire

// The LL privacy commands: the resolving list, address resolution, the RPA timeout and the
// privacy mode (Core 5.4 Vol 4 Part E §7.8.38–§7.8.45, §7.8.77).

extension VirtualController {
    /// Advertising (other than periodic advertising), scanning, or a pending create connection:
    /// while one of them runs, address resolution may not be switched (§7.8.44).
    var privacyInUse: Bool { isAdvertising || scanner != nil || initiator != nil }

    /// The resolving list may not change while address resolution is enabled and in use
    /// (§7.8.38–§7.8.40, §7.8.77).
    private var resolvingListLocked: Bool { privacy.resolutionEnabled && privacyInUse }

    /// Peer_Identity_Address_Type and Peer_Identity_Address as an identity address; nil for a
    /// type other than 0x00 (public) or 0x01 (random static).
    private static func identity(_ type: AddressType, _ address: BluetoothAddress) -> LEAddress? {
        switch type {
        case .public, .random: LEAddress(address, type: type)
        default: nil
        }
    }

    /// HCI_LE_Add_Device_To_Resolving_List (§7.8.38): a second entry for the same identity, or
    /// with the same non-zero peer IRK, is refused with 0x12; a full list with 0x07. The entry
    /// starts in network privacy mode.
    func leAddDeviceToResolvingList(
        _ command: HCI.LEAddDeviceToResolvingList
    ) -> CommandResult<HCI.StatusReturnParameters> {
        if resolvingListLocked { return .failed(.commandDisallowed) }
        guard let identity = Self.identity(command.peerIdentityAddressType, command.peerIdentityAddress) else {
            return .failed(.invalidHCICommandParameters)
        }
        let duplicate = privacy.resolvingList.contains {
            $0.isIdentity(identity) || ($0.hasPeerIRK && $0.peerIRK == command.peerIRK)
        }
        if duplicate { return .failed(.invalidHCICommandParameters) }
        if privacy.resolvingList.count >= Int(configuration.resolvingListSize) {
            return .failed(.memoryCapacityExceeded)
        }
        privacy.resolvingList.append(
            ResolvingListEntry(identity: identity, peerIRK: command.peerIRK, localIRK: command.localIRK))
        return .complete(.init())
    }

    /// HCI_LE_Remove_Device_From_Resolving_List (§7.8.39): 0x02 when the device is not listed.
    func leRemoveDeviceFromResolvingList(
        _ command: HCI.LERemoveDeviceFromResolvingList
    ) -> CommandResult<HCI.StatusReturnParameters> {
        if resolvingListLocked { return .failed(.commandDisallowed) }
        guard let identity = Self.identity(command.peerIdentityAddressType, command.peerIdentityAddress) else {
            return .failed(.invalidHCICommandParameters)
        }
        guard let index = privacy.index(of: identity) else { return .failed(.unknownConnectionIdentifier) }
        privacy.resolvingList.remove(at: index)
        return .complete(.init())
    }

    /// HCI_LE_Clear_Resolving_List (§7.8.40).
    func leClearResolvingList() -> CommandResult<HCI.StatusReturnParameters> {
        if resolvingListLocked { return .failed(.commandDisallowed) }
        privacy.resolvingList = []
        return .complete(.init())
    }

    /// HCI_LE_Read_Resolving_List_Size (§7.8.41).
    func leReadResolvingListSize() -> CommandResult<HCI.LEReadResolvingListSize.ReturnParameters> {
        .complete(.init(resolvingListSize: configuration.resolvingListSize))
    }

    /// HCI_LE_Read_Peer_Resolvable_Address (§7.8.42): the peer's current RPA; 0x02 when the peer
    /// is not listed or no RPA of it is known yet.
    func leReadPeerResolvableAddress(
        _ command: HCI.LEReadPeerResolvableAddress
    ) -> CommandResult<HCI.ResolvableAddressReturnParameters> {
        guard let identity = Self.identity(command.peerIdentityAddressType, command.peerIdentityAddress) else {
            return .failed(.invalidHCICommandParameters)
        }
        guard let index = privacy.index(of: identity), let rpa = privacy.resolvingList[index].peerRPA else {
            return .failed(.unknownConnectionIdentifier)
        }
        return .complete(.init(resolvableAddress: rpa))
    }

    /// HCI_LE_Read_Local_Resolvable_Address (§7.8.43): the RPA this device currently uses toward
    /// the peer; 0x02 when the peer is not listed or no RPA is in use for it.
    func leReadLocalResolvableAddress(
        _ command: HCI.LEReadLocalResolvableAddress
    ) -> CommandResult<HCI.ResolvableAddressReturnParameters> {
        guard let identity = Self.identity(command.peerIdentityAddressType, command.peerIdentityAddress) else {
            return .failed(.invalidHCICommandParameters)
        }
        guard let index = privacy.index(of: identity), let rpa = privacy.resolvingList[index].localRPA else {
            return .failed(.unknownConnectionIdentifier)
        }
        return .complete(.init(resolvableAddress: rpa))
    }

    /// HCI_LE_Set_Address_Resolution_Enable (§7.8.44): disallowed while advertising, scanning or
    /// initiating.
    func leSetAddressResolutionEnable(
        _ command: HCI.LESetAddressResolutionEnable
    ) -> CommandResult<HCI.StatusReturnParameters> {
        if privacyInUse { return .failed(.commandDisallowed) }
        privacy.resolutionEnabled = command.addressResolutionEnable
        return .complete(.init())
    }

    /// HCI_LE_Set_Resolvable_Private_Address_Timeout (§7.8.45): 1 s to 1 hour. A running timer
    /// keeps its start and expires after the new timeout.
    func leSetResolvablePrivateAddressTimeout(
        _ command: HCI.LESetResolvablePrivateAddressTimeout
    ) -> CommandResult<HCI.StatusReturnParameters> {
        guard (0x0001...0x0E10).contains(command.rpaTimeout) else { return .failed(.invalidHCICommandParameters) }
        privacy.rpaTimeout = .seconds(Int64(command.rpaTimeout))
        if let timer = privacy.rpaTimer { scheduleRPATimer(started: timer.started) }
        return .complete(.init())
    }

    /// HCI_LE_Set_Privacy_Mode (§7.8.77): network privacy refuses a listed peer that shows its
    /// identity address; device privacy accepts it too. 0x02 when the peer is not listed.
    func leSetPrivacyMode(_ command: HCI.LESetPrivacyMode) -> CommandResult<HCI.StatusReturnParameters> {
        if resolvingListLocked { return .failed(.commandDisallowed) }
        guard let identity = Self.identity(command.peerIdentityAddressType, command.peerIdentityAddress) else {
            return .failed(.invalidHCICommandParameters)
        }
        if case .other = command.privacyMode { return .failed(.invalidHCICommandParameters) }
        guard let index = privacy.index(of: identity) else { return .failed(.unknownConnectionIdentifier) }
        privacy.resolvingList[index].privacyMode = command.privacyMode
        return .complete(.init())
    }

    /// Forgets every privacy setting (HCI_Reset, §7.3.2).
    func resetPrivacy() {
        cancelRPATimer()
        privacy = PrivacyState()
    }
}
