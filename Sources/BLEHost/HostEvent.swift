import BLETransport
import BLEWire

/// A live LE connection as the host knows it (Core 5.4 Vol 4 Part E §7.7.65.1, §7.7.65.10).
public struct ConnectionInfo: Sendable, Hashable {
    public var handle: ConnectionHandle
    public var role: LEMetaEvent.Role
    public var peerAddress: LEAddress
    /// Units of 1.25 ms.
    public var connectionInterval: UInt16
    public var peripheralLatency: UInt16
    /// Units of 10 ms.
    public var supervisionTimeout: UInt16
    public var attMTU: Int = ATTBearer.defaultMTU
    public var isEncrypted = false
    public var maxTxOctets: UInt16 = 27
    public var maxRxOctets: UInt16 = 27
    /// Max_TX_Time / Max_RX_Time in µs (Core 5.4 Vol 4 Part E §7.7.65.7).
    public var maxTxTime: UInt16 = 328
    public var maxRxTime: UInt16 = 328
    public var txPHY = PHY.le1M.hci
    public var rxPHY = PHY.le1M.hci
}

/// What the host reports upward, in order.
public enum HostEvent: Sendable {
    case advertisingReport(LEMetaEvent.AdvertisingReport.Report)
    case extendedAdvertisingReport(LEMetaEvent.ExtendedAdvertisingReport.Report)
    case connected(ConnectionInfo)
    /// A connection attempt ended without a connection (e.g. cancelled: 0x02).
    case connectionFailed(HCIStatus)
    case disconnected(handle: ConnectionHandle, reason: HCIStatus)
    case connectionUpdated(ConnectionInfo)
    case encryptionChanged(handle: ConnectionHandle, enabled: Bool, status: HCIStatus)
    /// Pairing, bonding and encryption of a link (Core 5.4 Vol 3 Part H).
    case security(handle: ConnectionHandle, SecurityEvent)
    case attMTUChanged(handle: ConnectionHandle, mtu: Int)
    /// The peer sent a notification (ATT_HANDLE_VALUE_NTF or one of a multiple notification).
    case notification(handle: ConnectionHandle, attributeHandle: UInt16, value: [UInt8])
    /// The peer sent an indication; the host has confirmed it.
    case indication(handle: ConnectionHandle, attributeHandle: UInt16, value: [UInt8])
    /// The link can take more write-without-response / notifications
    /// (Core Bluetooth's peripheralIsReady / peripheralManagerIsReady).
    case readyToSend(handle: ConnectionHandle)
    case hardwareError(UInt8)
    /// The transport to the controller ended on its own (the controller process was killed, the
    /// dongle unplugged, the socket closed). Every link is reported `.disconnected` (Hardware
    /// Failure) right after, and then the host stops.
    case transportLost(HCITransportError)
    /// Any other event, for whoever wants it.
    case other(HCIEvent)
}
