/// The LE features of a controller or peer (Core 5.4 Vol 6 Part B §4.6): bit n of the 64-bit
/// FeatureSet, sent least significant octet first by HCI_LE_Read_Local_Supported_Features
/// (Vol 4 Part E §7.8.3) and the LE Read Remote Features Complete event.
///
/// Bits this version does not name are kept in `rawValue`, so a feature set from a newer
/// controller re-encodes unchanged.
public struct LEFeatures: OptionSet, Hashable, Sendable, CustomRendering {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let leEncryption = LEFeatures(rawValue: 1 << 0)
    public static let connectionParametersRequestProcedure = LEFeatures(rawValue: 1 << 1)
    public static let extendedRejectIndication = LEFeatures(rawValue: 1 << 2)
    public static let peripheralInitiatedFeaturesExchange = LEFeatures(rawValue: 1 << 3)
    public static let lePing = LEFeatures(rawValue: 1 << 4)
    public static let leDataPacketLengthExtension = LEFeatures(rawValue: 1 << 5)
    public static let llPrivacy = LEFeatures(rawValue: 1 << 6)
    public static let extendedScanningFilterPolicies = LEFeatures(rawValue: 1 << 7)
    public static let le2MPHY = LEFeatures(rawValue: 1 << 8)
    public static let stableModulationIndexTransmitter = LEFeatures(rawValue: 1 << 9)
    public static let stableModulationIndexReceiver = LEFeatures(rawValue: 1 << 10)
    public static let leCodedPHY = LEFeatures(rawValue: 1 << 11)
    public static let leExtendedAdvertising = LEFeatures(rawValue: 1 << 12)
    public static let lePeriodicAdvertising = LEFeatures(rawValue: 1 << 13)
    public static let channelSelectionAlgorithm2 = LEFeatures(rawValue: 1 << 14)
    public static let lePowerClass1 = LEFeatures(rawValue: 1 << 15)
    public static let minimumNumberOfUsedChannelsProcedure = LEFeatures(rawValue: 1 << 16)
    public static let connectionCTERequest = LEFeatures(rawValue: 1 << 17)
    public static let connectionCTEResponse = LEFeatures(rawValue: 1 << 18)
    public static let connectionlessCTETransmitter = LEFeatures(rawValue: 1 << 19)
    public static let connectionlessCTEReceiver = LEFeatures(rawValue: 1 << 20)
    public static let antennaSwitchingDuringCTETransmission = LEFeatures(rawValue: 1 << 21)
    public static let antennaSwitchingDuringCTEReception = LEFeatures(rawValue: 1 << 22)
    public static let receivingConstantToneExtensions = LEFeatures(rawValue: 1 << 23)
    public static let periodicAdvertisingSyncTransferSender = LEFeatures(rawValue: 1 << 24)
    public static let periodicAdvertisingSyncTransferRecipient = LEFeatures(rawValue: 1 << 25)
    public static let sleepClockAccuracyUpdates = LEFeatures(rawValue: 1 << 26)
    public static let remotePublicKeyValidation = LEFeatures(rawValue: 1 << 27)
    public static let connectedIsochronousStreamCentral = LEFeatures(rawValue: 1 << 28)
    public static let connectedIsochronousStreamPeripheral = LEFeatures(rawValue: 1 << 29)
    public static let isochronousBroadcaster = LEFeatures(rawValue: 1 << 30)
    public static let synchronizedReceiver = LEFeatures(rawValue: 1 << 31)
    public static let connectedIsochronousStreamHostSupport = LEFeatures(rawValue: 1 << 32)
    /// LE Power Control Request; the specification assigns it bits 33 and 34, which shall match.
    public static let lePowerControlRequest = LEFeatures(rawValue: 1 << 33)
    public static let lePowerControlRequestBit34 = LEFeatures(rawValue: 1 << 34)
    public static let lePathLossMonitoring = LEFeatures(rawValue: 1 << 35)
    public static let periodicAdvertisingADISupport = LEFeatures(rawValue: 1 << 36)
    public static let connectionSubrating = LEFeatures(rawValue: 1 << 37)
    public static let connectionSubratingHostSupport = LEFeatures(rawValue: 1 << 38)
    public static let channelClassification = LEFeatures(rawValue: 1 << 39)
    public static let advertisingCodingSelection = LEFeatures(rawValue: 1 << 40)
    public static let advertisingCodingSelectionHostSupport = LEFeatures(rawValue: 1 << 41)
    public static let periodicAdvertisingWithResponsesAdvertiser = LEFeatures(rawValue: 1 << 43)
    public static let periodicAdvertisingWithResponsesScanner = LEFeatures(rawValue: 1 << 44)

    static let bitNames: [(Int, String)] = [
        (0, "leEncryption"), (1, "connectionParametersRequestProcedure"), (2, "extendedRejectIndication"),
        (3, "peripheralInitiatedFeaturesExchange"), (4, "lePing"), (5, "leDataPacketLengthExtension"),
        (6, "llPrivacy"), (7, "extendedScanningFilterPolicies"), (8, "le2MPHY"),
        (9, "stableModulationIndexTransmitter"), (10, "stableModulationIndexReceiver"), (11, "leCodedPHY"),
        (12, "leExtendedAdvertising"), (13, "lePeriodicAdvertising"), (14, "channelSelectionAlgorithm2"),
        (15, "lePowerClass1"), (16, "minimumNumberOfUsedChannelsProcedure"), (17, "connectionCTERequest"),
        (18, "connectionCTEResponse"), (19, "connectionlessCTETransmitter"),
        (20, "connectionlessCTEReceiver"), (21, "antennaSwitchingDuringCTETransmission"),
        (22, "antennaSwitchingDuringCTEReception"), (23, "receivingConstantToneExtensions"),
        (24, "periodicAdvertisingSyncTransferSender"), (25, "periodicAdvertisingSyncTransferRecipient"),
        (26, "sleepClockAccuracyUpdates"), (27, "remotePublicKeyValidation"),
        (28, "connectedIsochronousStreamCentral"), (29, "connectedIsochronousStreamPeripheral"),
        (30, "isochronousBroadcaster"), (31, "synchronizedReceiver"),
        (32, "connectedIsochronousStreamHostSupport"), (33, "lePowerControlRequest"),
        (34, "lePowerControlRequestBit34"), (35, "lePathLossMonitoring"),
        (36, "periodicAdvertisingADISupport"), (37, "connectionSubrating"),
        (38, "connectionSubratingHostSupport"), (39, "channelClassification"),
        (40, "advertisingCodingSelection"), (41, "advertisingCodingSelectionHostSupport"),
        (43, "periodicAdvertisingWithResponsesAdvertiser"), (44, "periodicAdvertisingWithResponsesScanner"),
    ]

    public var rendered: RenderedValue { HCI.renderBits(rawValue, width: 64, names: Self.bitNames) }
}

extension HCI {
    /// LMP_Features page 0 (Core 5.4 Vol 2 Part C §3.3), returned by HCI_Read_Local_Supported_
    /// Features (Vol 4 Part E §7.4.3). Only the bits an LE host looks at are named.
    public struct LMPFeatures: OptionSet, Hashable, Sendable, CustomRendering {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        public static let encryption = LMPFeatures(rawValue: 1 << 2)
        public static let bredrNotSupported = LMPFeatures(rawValue: 1 << 37)
        public static let leSupportedController = LMPFeatures(rawValue: 1 << 38)
        public static let simultaneousLEAndBREDRController = LMPFeatures(rawValue: 1 << 49)
        public static let secureSimplePairingController = LMPFeatures(rawValue: 1 << 51)
        public static let extendedFeatures = LMPFeatures(rawValue: 1 << 63)

        static let bitNames: [(Int, String)] = [
            (2, "encryption"), (37, "bredrNotSupported"), (38, "leSupportedController"),
            (49, "simultaneousLEAndBREDRController"), (51, "secureSimplePairingController"),
            (63, "extendedFeatures"),
        ]

        public var rendered: RenderedValue { HCI.renderBits(rawValue, width: 64, names: Self.bitNames) }
    }
}
