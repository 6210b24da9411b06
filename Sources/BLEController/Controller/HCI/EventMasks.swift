import BLEWire

/// The three masks a host sets to choose which events it receives: HCI_Set_Event_Mask
/// (Core 5.4 Vol 4 Part E §7.3.1), HCI_Set_Event_Mask_Page_2 (§7.3.69) and HCI_LE_Set_Event_Mask
/// (§7.8.1). Command Complete, Command Status and Number Of Completed Packets are never masked.
struct EventMasks {
    var page1 = HCI.EventMask.defaultMask
    var page2 = HCI.EventMaskPage2()
    var le = HCI.LEEventMask.defaultMask

    func allows(_ event: HCIEvent) -> Bool {
        switch event {
        case .commandComplete, .commandStatus, .numberOfCompletedPackets: true
        case .disconnectionComplete: page1.contains(.disconnectionComplete)
        case .encryptionChange: page1.contains(.encryptionChange)
        case .encryptionChangeV2: page2.contains(.encryptionChangeV2)
        case .readRemoteVersionInformationComplete: page1.contains(.readRemoteVersionInformationComplete)
        case .hardwareError: page1.contains(.hardwareError)
        case .dataBufferOverflow: page1.contains(.dataBufferOverflow)
        case .encryptionKeyRefreshComplete: page1.contains(.encryptionKeyRefreshComplete)
        case .le(let subevent): page1.contains(.leMeta) && le.contains(Self.bit(of: subevent))
        case .unknown: true
        }
    }

    /// Whether the host would receive an LE subevent at all.
    func allowsLE(_ bit: HCI.LEEventMask) -> Bool { page1.contains(.leMeta) && le.contains(bit) }

    /// The LE_Event_Mask bit of each subevent (§7.8.1).
    static func bit(of event: LEMetaEvent) -> HCI.LEEventMask {
        switch event {
        case .connectionComplete: .connectionComplete
        case .advertisingReport: .advertisingReport
        case .connectionUpdateComplete: .connectionUpdateComplete
        case .readRemoteFeaturesComplete: .readRemoteFeaturesComplete
        case .longTermKeyRequest: .longTermKeyRequest
        case .remoteConnectionParameterRequest: .remoteConnectionParameterRequest
        case .dataLengthChange: .dataLengthChange
        case .readLocalP256PublicKeyComplete: .readLocalP256PublicKeyComplete
        case .generateDHKeyComplete: .generateDHKeyComplete
        case .enhancedConnectionComplete: .enhancedConnectionComplete
        case .directedAdvertisingReport: .directedAdvertisingReport
        case .phyUpdateComplete: .phyUpdateComplete
        case .extendedAdvertisingReport: .extendedAdvertisingReport
        case .scanTimeout: .scanTimeout
        case .advertisingSetTerminated: .advertisingSetTerminated
        case .scanRequestReceived: .scanRequestReceived
        case .channelSelectionAlgorithm: .channelSelectionAlgorithm
        case .enhancedConnectionCompleteV2: .enhancedConnectionCompleteV2
        case .unknown(let subevent, _): HCI.LEEventMask(rawValue: subevent == 0 ? 0 : 1 << UInt64((subevent - 1) & 63))
        }
    }
}
