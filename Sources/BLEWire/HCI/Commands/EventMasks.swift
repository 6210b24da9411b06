// The three event masks a host sets at start-up. Bits without a name here are kept in
// `rawValue` (a later specification may define them).

extension HCI {
    /// Event_Mask of HCI_Set_Event_Mask (Core 5.4 Vol 4 Part E §7.3.1). Bit n enables the event
    /// listed as bit n; events not in any mask (Command Complete, Command Status, Number Of
    /// Completed Packets) are always enabled.
    public struct EventMask: OptionSet, Hashable, Sendable, CustomRendering {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        public static let inquiryComplete = EventMask(rawValue: 1 << 0)
        public static let inquiryResult = EventMask(rawValue: 1 << 1)
        public static let connectionComplete = EventMask(rawValue: 1 << 2)
        public static let connectionRequest = EventMask(rawValue: 1 << 3)
        public static let disconnectionComplete = EventMask(rawValue: 1 << 4)
        public static let authenticationComplete = EventMask(rawValue: 1 << 5)
        public static let remoteNameRequestComplete = EventMask(rawValue: 1 << 6)
        public static let encryptionChange = EventMask(rawValue: 1 << 7)
        public static let changeConnectionLinkKeyComplete = EventMask(rawValue: 1 << 8)
        public static let linkKeyTypeChanged = EventMask(rawValue: 1 << 9)
        public static let readRemoteSupportedFeaturesComplete = EventMask(rawValue: 1 << 10)
        public static let readRemoteVersionInformationComplete = EventMask(rawValue: 1 << 11)
        public static let qosSetupComplete = EventMask(rawValue: 1 << 12)
        public static let hardwareError = EventMask(rawValue: 1 << 15)
        public static let flushOccurred = EventMask(rawValue: 1 << 16)
        public static let roleChange = EventMask(rawValue: 1 << 17)
        public static let modeChange = EventMask(rawValue: 1 << 19)
        public static let returnLinkKeys = EventMask(rawValue: 1 << 20)
        public static let pinCodeRequest = EventMask(rawValue: 1 << 21)
        public static let linkKeyRequest = EventMask(rawValue: 1 << 22)
        public static let linkKeyNotification = EventMask(rawValue: 1 << 23)
        public static let loopbackCommand = EventMask(rawValue: 1 << 24)
        public static let dataBufferOverflow = EventMask(rawValue: 1 << 25)
        public static let maxSlotsChange = EventMask(rawValue: 1 << 26)
        public static let readClockOffsetComplete = EventMask(rawValue: 1 << 27)
        public static let connectionPacketTypeChanged = EventMask(rawValue: 1 << 28)
        public static let qosViolation = EventMask(rawValue: 1 << 29)
        public static let pageScanRepetitionModeChange = EventMask(rawValue: 1 << 31)
        public static let flowSpecificationComplete = EventMask(rawValue: 1 << 32)
        public static let inquiryResultWithRSSI = EventMask(rawValue: 1 << 33)
        public static let readRemoteExtendedFeaturesComplete = EventMask(rawValue: 1 << 34)
        public static let synchronousConnectionComplete = EventMask(rawValue: 1 << 43)
        public static let synchronousConnectionChanged = EventMask(rawValue: 1 << 44)
        public static let sniffSubrating = EventMask(rawValue: 1 << 45)
        public static let extendedInquiryResult = EventMask(rawValue: 1 << 46)
        public static let encryptionKeyRefreshComplete = EventMask(rawValue: 1 << 47)
        public static let ioCapabilityRequest = EventMask(rawValue: 1 << 48)
        public static let ioCapabilityResponse = EventMask(rawValue: 1 << 49)
        public static let userConfirmationRequest = EventMask(rawValue: 1 << 50)
        public static let userPasskeyRequest = EventMask(rawValue: 1 << 51)
        public static let remoteOOBDataRequest = EventMask(rawValue: 1 << 52)
        public static let simplePairingComplete = EventMask(rawValue: 1 << 53)
        public static let linkSupervisionTimeoutChanged = EventMask(rawValue: 1 << 55)
        public static let enhancedFlushComplete = EventMask(rawValue: 1 << 56)
        public static let userPasskeyNotification = EventMask(rawValue: 1 << 58)
        public static let keypressNotification = EventMask(rawValue: 1 << 59)
        public static let remoteHostSupportedFeaturesNotification = EventMask(rawValue: 1 << 60)
        public static let leMeta = EventMask(rawValue: 1 << 61)

        /// The value after HCI_Reset: 0x00001FFFFFFFFFFF.
        public static let defaultMask = EventMask(rawValue: 0x0000_1FFF_FFFF_FFFF)

        static let bitNames: [(Int, String)] = [
            (0, "inquiryComplete"), (1, "inquiryResult"), (2, "connectionComplete"),
            (3, "connectionRequest"), (4, "disconnectionComplete"), (5, "authenticationComplete"),
            (6, "remoteNameRequestComplete"), (7, "encryptionChange"),
            (8, "changeConnectionLinkKeyComplete"), (9, "linkKeyTypeChanged"),
            (10, "readRemoteSupportedFeaturesComplete"), (11, "readRemoteVersionInformationComplete"),
            (12, "qosSetupComplete"), (15, "hardwareError"), (16, "flushOccurred"), (17, "roleChange"),
            (19, "modeChange"), (20, "returnLinkKeys"), (21, "pinCodeRequest"), (22, "linkKeyRequest"),
            (23, "linkKeyNotification"), (24, "loopbackCommand"), (25, "dataBufferOverflow"),
            (26, "maxSlotsChange"), (27, "readClockOffsetComplete"), (28, "connectionPacketTypeChanged"),
            (29, "qosViolation"), (31, "pageScanRepetitionModeChange"), (32, "flowSpecificationComplete"),
            (33, "inquiryResultWithRSSI"), (34, "readRemoteExtendedFeaturesComplete"),
            (43, "synchronousConnectionComplete"), (44, "synchronousConnectionChanged"),
            (45, "sniffSubrating"), (46, "extendedInquiryResult"), (47, "encryptionKeyRefreshComplete"),
            (48, "ioCapabilityRequest"), (49, "ioCapabilityResponse"), (50, "userConfirmationRequest"),
            (51, "userPasskeyRequest"), (52, "remoteOOBDataRequest"), (53, "simplePairingComplete"),
            (55, "linkSupervisionTimeoutChanged"), (56, "enhancedFlushComplete"),
            (58, "userPasskeyNotification"), (59, "keypressNotification"),
            (60, "remoteHostSupportedFeaturesNotification"), (61, "leMeta"),
        ]

        public var rendered: RenderedValue { HCI.renderBits(rawValue, width: 64, names: Self.bitNames) }
    }

    /// Event_Mask_Page_2 of HCI_Set_Event_Mask_Page_2 (Core 5.4 Vol 4 Part E §7.3.69). Only the
    /// bits an LE host uses are named; the rest are BR/EDR events.
    public struct EventMaskPage2: OptionSet, Hashable, Sendable, CustomRendering {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        public static let triggeredClockCapture = EventMaskPage2(rawValue: 1 << 14)
        public static let authenticatedPayloadTimeoutExpired = EventMaskPage2(rawValue: 1 << 23)
        /// HCI_Encryption_Change [v2], which also reports the key size.
        public static let encryptionChangeV2 = EventMaskPage2(rawValue: 1 << 25)

        static let bitNames: [(Int, String)] = [
            (14, "triggeredClockCapture"), (23, "authenticatedPayloadTimeoutExpired"),
            (25, "encryptionChangeV2"),
        ]

        public var rendered: RenderedValue { HCI.renderBits(rawValue, width: 64, names: Self.bitNames) }
    }

    /// LE_Event_Mask of HCI_LE_Set_Event_Mask (Core 5.4 Vol 4 Part E §7.8.1): which LE Meta
    /// subevents the controller may send.
    public struct LEEventMask: OptionSet, Hashable, Sendable, CustomRendering {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        public static let connectionComplete = LEEventMask(rawValue: 1 << 0)
        public static let advertisingReport = LEEventMask(rawValue: 1 << 1)
        public static let connectionUpdateComplete = LEEventMask(rawValue: 1 << 2)
        public static let readRemoteFeaturesComplete = LEEventMask(rawValue: 1 << 3)
        public static let longTermKeyRequest = LEEventMask(rawValue: 1 << 4)
        public static let remoteConnectionParameterRequest = LEEventMask(rawValue: 1 << 5)
        public static let dataLengthChange = LEEventMask(rawValue: 1 << 6)
        public static let readLocalP256PublicKeyComplete = LEEventMask(rawValue: 1 << 7)
        public static let generateDHKeyComplete = LEEventMask(rawValue: 1 << 8)
        public static let enhancedConnectionComplete = LEEventMask(rawValue: 1 << 9)
        public static let directedAdvertisingReport = LEEventMask(rawValue: 1 << 10)
        public static let phyUpdateComplete = LEEventMask(rawValue: 1 << 11)
        public static let extendedAdvertisingReport = LEEventMask(rawValue: 1 << 12)
        public static let periodicAdvertisingSyncEstablished = LEEventMask(rawValue: 1 << 13)
        public static let periodicAdvertisingReport = LEEventMask(rawValue: 1 << 14)
        public static let periodicAdvertisingSyncLost = LEEventMask(rawValue: 1 << 15)
        public static let scanTimeout = LEEventMask(rawValue: 1 << 16)
        public static let advertisingSetTerminated = LEEventMask(rawValue: 1 << 17)
        public static let scanRequestReceived = LEEventMask(rawValue: 1 << 18)
        public static let channelSelectionAlgorithm = LEEventMask(rawValue: 1 << 19)
        public static let cisEstablished = LEEventMask(rawValue: 1 << 24)
        public static let cisRequest = LEEventMask(rawValue: 1 << 25)
        public static let subrateChange = LEEventMask(rawValue: 1 << 34)
        /// HCI_LE_Enhanced_Connection_Complete [v2].
        public static let enhancedConnectionCompleteV2 = LEEventMask(rawValue: 1 << 40)

        /// The value after HCI_Reset: the five events of Bluetooth 4.0 (0x000000000000001F).
        public static let defaultMask = LEEventMask(rawValue: 0x1F)

        static let bitNames: [(Int, String)] = [
            (0, "connectionComplete"), (1, "advertisingReport"), (2, "connectionUpdateComplete"),
            (3, "readRemoteFeaturesComplete"), (4, "longTermKeyRequest"),
            (5, "remoteConnectionParameterRequest"), (6, "dataLengthChange"),
            (7, "readLocalP256PublicKeyComplete"), (8, "generateDHKeyComplete"),
            (9, "enhancedConnectionComplete"), (10, "directedAdvertisingReport"), (11, "phyUpdateComplete"),
            (12, "extendedAdvertisingReport"), (13, "periodicAdvertisingSyncEstablished"),
            (14, "periodicAdvertisingReport"), (15, "periodicAdvertisingSyncLost"), (16, "scanTimeout"),
            (17, "advertisingSetTerminated"), (18, "scanRequestReceived"), (19, "channelSelectionAlgorithm"),
            (24, "cisEstablished"), (25, "cisRequest"), (34, "subrateChange"),
            (40, "enhancedConnectionCompleteV2"),
        ]

        public var rendered: RenderedValue { HCI.renderBits(rawValue, width: 64, names: Self.bitNames) }
    }
}
