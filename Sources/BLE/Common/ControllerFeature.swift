import BLEHost
import BLEWire

/// A controller capability an app may depend on (Core Bluetooth's `CBCentralManager.Feature`,
/// asked with `supports(_:)`), read from the controller's LE features (HCI_LE_Read_Local_Supported_
/// Features, Core 5.4 Vol 4 Part E §7.8.3; the bits are Vol 6 Part B §4.6).
public enum ControllerFeature: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Extended advertising and scanning: advertising data up to 1,650 octets, advertising sets
    /// (LE Extended Advertising, Vol 6 Part B §4.6.12).
    case extendedAdvertising
    /// Periodic advertising (Vol 6 Part B §4.6.13).
    case periodicAdvertising
    /// The LE 2M PHY (Vol 6 Part B §4.6.9).
    case le2MPHY
    /// The LE Coded PHY, long range (Vol 6 Part B §4.6.12).
    case leCodedPHY
    /// Data packets longer than 27 octets (LE Data Packet Length Extension, Vol 6 Part B §4.6.6).
    case dataLengthExtension
    /// Address resolution in the controller (LL Privacy, Vol 6 Part B §4.6.7).
    case privacy
    /// Encryption of links (LE Encryption, Vol 6 Part B §4.6.1).
    case encryption
    /// The Connection Parameters Request procedure (Vol 6 Part B §4.6.2, §5.1.7).
    case connectionParametersRequest
    /// LE Channel Selection Algorithm #2 (Vol 6 Part B §4.6.14).
    case channelSelectionAlgorithm2
    /// LE Power Control (Vol 6 Part B §4.6.31).
    case powerControl

    /// The feature bit that announces it.
    package var leFeature: LEFeatures {
        switch self {
        case .extendedAdvertising: .leExtendedAdvertising
        case .periodicAdvertising: .lePeriodicAdvertising
        case .le2MPHY: .le2MPHY
        case .leCodedPHY: .leCodedPHY
        case .dataLengthExtension: .leDataPacketLengthExtension
        case .privacy: .llPrivacy
        case .encryption: .leEncryption
        case .connectionParametersRequest: .connectionParametersRequestProcedure
        case .channelSelectionAlgorithm2: .channelSelectionAlgorithm2
        case .powerControl: .lePowerControlRequest
        }
    }

    public var description: String {
        switch self {
        case .extendedAdvertising: "extended advertising"
        case .periodicAdvertising: "periodic advertising"
        case .le2MPHY: "LE 2M PHY"
        case .leCodedPHY: "LE Coded PHY"
        case .dataLengthExtension: "data length extension"
        case .privacy: "LL privacy"
        case .encryption: "LE encryption"
        case .connectionParametersRequest: "connection parameters request"
        case .channelSelectionAlgorithm2: "channel selection algorithm #2"
        case .powerControl: "LE power control"
        }
    }
}

extension HostStack {
    /// Whether the controller announced `feature`; false until the host has read its features
    /// (the first `powerOn()`). Asked in place: only from a manager on the host's executor.
    func supports(_ feature: ControllerFeature) -> Bool {
        inPlace(passing: feature.leFeature) { host, bit in host.controllerInfo.leFeatures.contains(bit) }
    }
}
