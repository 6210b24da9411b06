import BLESimulation
import BLEWire

/// One advertising set (Core 5.4 Vol 6 Part B §4.4.2, Vol 4 Part E §7.8.53). Legacy advertising
/// is the set `legacyHandle`, configured by the legacy commands (§7.8.5–§7.8.9) with legacy
/// event properties.
final class AdvertisingSet {
    /// The handle of the set the legacy commands drive; outside 0x00–0xEF, so it never meets an
    /// extended set, and 0xFF is what the v2 connection event reports for "no set".
    static let legacyHandle: UInt8 = 0xFF

    let handle: UInt8
    var parameters: AdvertisingSetParameters
    var data = AdvertisingDataStore()
    var scanResponse = AdvertisingDataStore()
    /// Advertising Data ID: changes whenever the data does, so scanners filtering duplicates by
    /// ADI report the new data (§4.4.2.11).
    var dataID: UInt16
    /// LE_Set_Advertising_Set_Random_Address (§7.8.52); legacy uses the controller's.
    var randomAddress: BluetoothAddress?
    /// Nil while disabled.
    var run: AdvertisingRun?

    init(handle: UInt8, parameters: AdvertisingSetParameters, dataID: UInt16) {
        self.handle = handle
        self.parameters = parameters
        self.dataID = dataID & 0x0FFF
    }

    var isLegacyCommandSet: Bool { handle == Self.legacyHandle }

    func dataChanged() { dataID = (dataID &+ 1) & 0x0FFF }
}

/// The parameters of a set, as LE Set Extended Advertising Parameters carries them (§7.8.53).
struct AdvertisingSetParameters {
    var properties: HCI.AdvertisingEventProperties
    /// 0.625 ms units.
    var intervalMin: UInt32
    var intervalMax: UInt32
    var channelMap: HCI.AdvertisingChannelMap
    var ownAddressType: HCI.OwnAddressType
    /// The target of directed advertising.
    var peer: LEAddress
    var filterPolicy: HCI.AdvertisingFilterPolicy
    /// The power the controller selected, dBm.
    var txPower: Int8
    var primaryPHY: PHY
    var secondaryPHY: PHY
    var sid: UInt8
    var scanRequestNotification: Bool

    /// Defaults of LE Set Advertising Parameters (§7.8.5): ADV_IND every 1.28 s on all channels.
    static func legacyDefault(txPower: Int8) -> AdvertisingSetParameters {
        AdvertisingSetParameters(
            properties: [.legacy, .connectable, .scannable], intervalMin: 0x0800, intervalMax: 0x0800,
            channelMap: .all, ownAddressType: .public, peer: LEAddress(.zero, type: .public),
            filterPolicy: .acceptAll, txPower: txPower, primaryPHY: .le1M, secondaryPHY: .le1M, sid: 0,
            scanRequestNotification: false)
    }

    var isLegacy: Bool { properties.contains(.legacy) }
    var isConnectable: Bool { properties.contains(.connectable) }
    var isScannable: Bool { properties.contains(.scannable) }
    var isDirected: Bool { properties.contains(.directed) }
    var isHighDutyCycle: Bool { isLegacy && properties.contains(.highDutyCycleDirectedConnectable) }
    var isAnonymous: Bool { properties.contains(.anonymous) }

    /// Whether the set's PDUs carry advertising data: not legacy directed advertising, nor
    /// scannable extended advertising, whose data is all in the scan response (§7.8.54).
    var supportsAdvertisingData: Bool {
        isLegacy ? !isDirected : !isScannable
    }

    /// Whether the set answers scan requests with a scan response.
    var supportsScanResponseData: Bool { isScannable }

    /// The legacy PDU type the properties select, or nil when they are not one of the five
    /// legacy combinations (§7.8.53, table 7.2).
    var legacyPDU: HCI.AdvertisingType? {
        switch properties.rawValue & 0x1F {
        case 0b1_0011: .connectableUndirected
        case 0b1_1101: .connectableDirectedHighDutyCycle
        case 0b1_0101: .connectableDirectedLowDutyCycle
        case 0b1_0010: .scannableUndirected
        case 0b1_0000: .nonConnectableUndirected
        default: nil
        }
    }

    /// The legacy event properties of an Advertising_Type (§7.8.53, table 7.2).
    static func properties(of type: HCI.AdvertisingType) -> HCI.AdvertisingEventProperties? {
        switch type {
        case .connectableUndirected: [.legacy, .connectable, .scannable]
        case .connectableDirectedHighDutyCycle: [.legacy, .connectable, .directed, .highDutyCycleDirectedConnectable]
        case .connectableDirectedLowDutyCycle: [.legacy, .connectable, .directed]
        case .scannableUndirected: [.legacy, .scannable]
        case .nonConnectableUndirected: [.legacy]
        case .other: nil
        }
    }

    /// The primary channels in use, in the order an advertising event visits them.
    var channels: [UInt8] {
        var channels: [UInt8] = []
        if channelMap.contains(.channel37) { channels.append(37) }
        if channelMap.contains(.channel38) { channels.append(38) }
        if channelMap.contains(.channel39) { channels.append(39) }
        return channels
    }
}

/// A set's advertising or scan response data as the host supplies it, whole or in fragments
/// (Core 5.4 Vol 4 Part E §7.8.54, §7.8.55).
struct AdvertisingDataStore {
    private(set) var bytes: [UInt8] = []
    /// False between a first fragment and the last one.
    private(set) var isComplete = true

    /// Applies one fragment. Returns the status the command answers with; on failure caused by
    /// the length the data is discarded, as §7.8.54 requires.
    mutating func apply(
        _ operation: HCI.AdvertisingDataOperation, _ fragment: ArraySlice<UInt8>, capacity: Int
    ) -> HCIStatus {
        switch operation {
        case .completeData:
            guard fragment.count <= capacity else { return discard() }
            bytes = Array(fragment)
            isComplete = true
        case .firstFragment:
            guard fragment.count <= capacity else { return discard() }
            bytes = Array(fragment)
            isComplete = false
        case .intermediateFragment, .lastFragment:
            guard !isComplete else { return .commandDisallowed }
            guard bytes.count + fragment.count <= capacity else { return discard() }
            bytes.append(contentsOf: fragment)
            isComplete = operation == .lastFragment
        case .unchangedData:
            guard fragment.isEmpty, !bytes.isEmpty, isComplete else { return .invalidHCICommandParameters }
        case .other:
            return .invalidHCICommandParameters
        }
        return .success
    }

    mutating func replace(with data: [UInt8]) {
        bytes = data
        isComplete = true
    }

    private mutating func discard() -> HCIStatus {
        bytes = []
        isComplete = true
        return .memoryCapacityExceeded
    }
}

/// The running state of an enabled set (Core 5.4 Vol 6 Part B §4.4.2: advertising events).
final class AdvertisingRun {
    /// AdvA: the address the set advertises with (renewed at the RPA timeout when it is one the
    /// controller generated, Vol 6 Part B §6.2).
    var address: LEAddress
    /// TargetA of directed advertising: the peer's identity, or an RPA from its IRK (§6.2).
    var target: LEAddress?
    let startedAt: VirtualInstant
    /// When the set stops by itself (duration, or 1.28 s of high duty cycle directed).
    let deadline: VirtualInstant?
    /// Max_Extended_Advertising_Events; nil for no limit.
    let maximumEvents: Int?
    var eventsCompleted = 0
    /// Start of the current advertising event.
    var eventStart: VirtualInstant
    /// The next scheduled step of the event (next PDU, next event, or the deadline).
    var pendingStep: EventQueue.Token?
    var deadlineToken: EventQueue.Token?
    /// Where the set listens for SCAN_REQ / CONNECT_IND (or their AUX_ forms) right now.
    var listening: ListenWindow?
    /// The scan response chain to send after an AUX_SCAN_RSP, kept for the current event.
    var auxiliaryChannel: UInt8 = 0

    /// A receive window after an advertising PDU (§4.4.2.3–§4.4.2.5).
    struct ListenWindow {
        let channel: UInt8
        let phy: PHY
        let opens: VirtualInstant
        let closes: VirtualInstant
        /// On a secondary channel, answering AUX_SCAN_REQ / AUX_CONNECT_REQ.
        let auxiliary: Bool
    }

    init(address: LEAddress, startedAt: VirtualInstant, deadline: VirtualInstant?, maximumEvents: Int?) {
        self.address = address
        self.startedAt = startedAt
        self.deadline = deadline
        self.maximumEvents = maximumEvents
        self.eventStart = startedAt
    }

    func cancel(on queue: EventQueue) {
        if let pendingStep { queue.cancel(pendingStep) }
        if let deadlineToken { queue.cancel(deadlineToken) }
        pendingStep = nil
        deadlineToken = nil
        listening = nil
    }
}
