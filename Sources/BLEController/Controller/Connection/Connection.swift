import BLESimulation
import BLEWire

/// The data channel shared by the two ends of one connection: its timing, its PHYs, the
/// connection event counter and the pending changes that take effect at an instant (Core 5.4
/// Vol 6 Part B §4.5, §5.1.1, §5.1.10).
///
/// The central's controller drives the connection events; each end detaches itself when its
/// connection ends, so the other end's packets go unanswered and its supervision timer runs
/// out, as on a real radio.
final class ConnectionLink {
    let accessAddress: UInt32
    let centralRadio: AirRadioID
    var peripheralRadio: AirRadioID?
    var central: Connection?
    var peripheral: Connection?
    var timing: ConnectionTimingParameters
    /// connEventCounter of the next event.
    var eventCounter: UInt16 = 0
    var nextAnchor: VirtualInstant
    /// CE_Length from the host's Max_CE_Length (0: the whole interval).
    var eventLength: Duration?
    var centralToPeripheralPHY: PHY
    var peripheralToCentralPHY: PHY
    var pendingTimingUpdate: (instant: UInt16, timing: ConnectionTimingParameters)?
    var pendingPHYUpdate: (instant: UInt16, centralToPeripheral: PHY?, peripheralToCentral: PHY?)?
    /// False once the peripheral missed an instant: it no longer hears the central.
    var peripheralInStep = true
    /// Whether the peripheral received the LL_CONNECTION_UPDATE_IND / LL_PHY_UPDATE_IND of the
    /// pending change before its instant.
    var peripheralHasTimingUpdate = false
    var peripheralHasPHYUpdate = false
    var eventToken: EventQueue.Token?
    /// The central skipped the previous connection event to share its radio (`RadioSharing`).
    var skippedLastEvent = false
    /// Acts on each connection event's outcome at its instants; reused from event to event.
    var delivery = ConnectionEventDelivery()
    /// The RSSI each way as last worked out (path loss costs, and radios rarely move).
    var rssi: LinkRSSI?
    /// The planner that sizes the first pair of an event for radio sharing, kept while the
    /// link's directions stay the same.
    var firstPairPlanner = ConnectionEventPlannerCache()

    init(
        accessAddress: UInt32, centralRadio: AirRadioID, timing: ConnectionTimingParameters,
        firstAnchor: VirtualInstant,
        phy: PHY
    ) {
        self.accessAddress = accessAddress
        self.centralRadio = centralRadio
        self.timing = timing
        self.nextAnchor = firstAnchor
        self.centralToPeripheralPHY = phy
        self.peripheralToCentralPHY = phy
    }

    func connection(_ role: ConnectionRole) -> Connection? { role == .central ? central : peripheral }

    /// The PHY `role` transmits on.
    func transmitPHY(of role: ConnectionRole) -> PHY {
        role == .central ? centralToPeripheralPHY : peripheralToCentralPHY
    }
}

/// The RSSI at each end of a link, and what it was worked out from: it holds while the air's
/// geometry and both ends' transmit powers stay the same.
struct LinkRSSI {
    var geometryVersion: Int
    var peripheralRadio: AirRadioID
    var centralPower: Int8
    var peripheralPower: Int8
    /// At the peripheral, of the central's packets; nil when out of range.
    var atPeripheral: Int8?
    /// At the central, of the peripheral's packets.
    var atCentral: Int8?
}

/// Encryption of a connection as one side sees it (Core 5.4 Vol 6 Part B §5.1.3, §5.1.4).
enum EncryptionState: Hashable {
    case off
    /// Central: LL_PAUSE_ENC_REQ sent to refresh the key; `key` is the new one.
    case pausing(key: HCI.Key128, random: UInt64, diversifier: UInt16)
    /// Central: LL_ENC_REQ sent, waiting for LL_START_ENC_REQ.
    case requested(key: HCI.Key128, refresh: Bool)
    /// Peripheral: LL_PAUSE_ENC_REQ answered; the refresh's LL_ENC_REQ is due.
    case paused
    /// Peripheral: LL_ENC_REQ received, LE Long Term Key Request sent to the host.
    case awaitingKey(refresh: Bool)
    /// Peripheral: LL_START_ENC_REQ sent with the host's key; central: LL_START_ENC_RSP sent.
    case starting(key: HCI.Key128, refresh: Bool)
    case on(key: HCI.Key128)

    var isOn: Bool {
        if case .on = self { return true }
        return false
    }

    var inProgress: Bool {
        switch self {
        case .off, .on: false
        default: true
        }
    }
}

/// One side of a connection (Core 5.4 Vol 6 Part B §4.5), owned by that side's controller.
final class Connection {
    let handle: ConnectionHandle
    let role: ConnectionRole
    /// The peer's address as it appeared on air, and its identity when resolved (Vol 6 Part B §6).
    let peerAddress: ReceivedAddress
    /// The RPA this device used to make the connection; zeros when it used its public or random
    /// address (Vol 4 Part E §7.7.65.10).
    let localRPA: BluetoothAddress
    let link: ConnectionLink
    let createdAt: VirtualInstant
    weak var owner: VirtualController?

    var transmit = LinkTransmitQueue()
    /// Time of the last packet received from the peer; nil before the first (the connection
    /// is then created but not yet established, §4.5.2).
    var lastReceived: VirtualInstant?
    var lastRSSI: Int8?
    var supervisionToken: EventQueue.Token?
    /// Set once LL_TERMINATE_IND is queued: the reason the peer will see.
    var terminationReason: HCIStatus?
    /// The peer asked to terminate: the central acknowledges at its next event, then ends.
    var terminationReceived: HCIStatus?
    var encryption = EncryptionState.off
    /// Completed host packets not yet reported in Number Of Completed Packets.
    var completedPackets = 0
    /// The host's ACL packets this side holds a controller buffer for: accepted and not yet
    /// reported in Number Of Completed Packets, wherever they are (queued, on air, acknowledged
    /// and awaiting the delivery step, completed and awaiting the report). The controller's
    /// count is the sum over its connections, so ending a connection frees exactly these
    /// (Core 5.4 Vol 4 Part E §7.7.5: the host counts them as flushed).
    var hostPacketsHeld = 0

    // Data length (§4.5.10): this side's connMaxTx/Rx and the peer's, and the effective values.
    var localTx: (octets: UInt16, time: UInt16)
    var localRx: (octets: UInt16, time: UInt16)
    var remoteTx: (octets: UInt16, time: UInt16) = (27, 328)
    var remoteRx: (octets: UInt16, time: UInt16) = (27, 328)
    var effective = DataLengthValues(maxRxOctets: 27, maxRxTime: 328, maxTxOctets: 27, maxTxTime: 328)
    var lengthProcedurePending = false

    /// The host's PHY preferences (LE Set PHY), nil for none.
    var preferredTxPHYs: HCI.LEPHYs?
    var preferredRxPHYs: HCI.LEPHYs?
    var codedPreference: PHY = .codedS8
    /// LE Set PHY from this host awaits its PHY Update Complete.
    var hostRequestedPHYUpdate = false
    var phyProcedurePending = false
    /// LE Connection Update / parameter request from this host awaits completion.
    var hostRequestedUpdate = false
    var parameterRequestPending: ConnectionParameterRange?

    var remoteFeatures: LEFeatures?
    var hostWantsRemoteFeatures = false
    var remoteVersion: (version: UInt8, company: UInt16, subversion: UInt16)?
    var versionSent = false
    var hostWantsRemoteVersion = false

    init(
        handle: ConnectionHandle, role: ConnectionRole, peerAddress: ReceivedAddress, localRPA: BluetoothAddress,
        link: ConnectionLink, createdAt: VirtualInstant, owner: VirtualController, localTx: (UInt16, UInt16),
        localRx: (UInt16, UInt16)
    ) {
        self.handle = handle
        self.role = role
        self.peerAddress = peerAddress
        self.localRPA = localRPA
        self.link = link
        self.createdAt = createdAt
        self.owner = owner
        self.localTx = localTx
        self.localRx = localRx
    }

    var peer: Connection? { link.connection(role.peer) }
    var timing: ConnectionTimingParameters { link.timing }
    var isEstablished: Bool { lastReceived != nil }
    var transmitPHY: PHY { link.transmitPHY(of: role) }
    var receivePHY: PHY { link.transmitPHY(of: role.peer) }

    /// Lmax_tx: the largest payload this side may send now (§4.5.10, with the MIC of an
    /// encrypted link).
    var maximumPayload: Int {
        max(
            1,
            AirTime.largestPayload(
                maxTxOctets: Int(effective.maxTxOctets), maxTxMicroseconds: Int(effective.maxTxTime),
                phy: transmitPHY, encrypted: encryption.isOn))
    }
}
