import BLEHost
import BLEWire

/// The PHY a direction of a link uses (Core 5.4 Vol 6 Part A §3.2).
public enum LinkPHY: Sendable, Hashable, CustomStringConvertible {
    case le1M
    case le2M
    case leCoded

    init(_ value: PHY.HCIValue) {
        switch value.phy() {
        case .le2M?: self = .le2M
        case .codedS2?, .codedS8?: self = .leCoded
        case .le1M?, nil: self = .le1M
        }
    }

    var hci: HCI.LEPHYs {
        switch self {
        case .le1M: .le1M
        case .le2M: .le2M
        case .leCoded: .leCoded
        }
    }

    public var description: String {
        switch self {
        case .le1M: "LE 1M"
        case .le2M: "LE 2M"
        case .leCoded: "LE Coded"
        }
    }
}

/// A link's state as both ends see it: connection timing (Core 5.4 Vol 4 Part E §7.7.65.1,
/// §7.7.65.3), the PHY (§7.7.65.12) and data length (§7.7.65.7) of each direction, and the
/// ATT_MTU (Vol 3 Part F §3.4.2). "Tx" is this side's sending direction.
public struct LinkParameters: Sendable, Hashable, CustomStringConvertible {
    public var connectionInterval: Duration
    /// Connection events the peripheral may skip.
    public var peripheralLatency: Int
    public var supervisionTimeout: Duration
    public var txPHY: LinkPHY
    public var rxPHY: LinkPHY
    /// The longest LL payload this side sends, in octets, and its air time in µs.
    public var maxTxOctets: Int
    public var maxTxTime: Int
    /// The longest LL payload this side receives, in octets, and its air time in µs.
    public var maxRxOctets: Int
    public var maxRxTime: Int
    public var attMTU: Int

    package init(_ info: ConnectionInfo) {
        connectionInterval = .microseconds(Int(info.connectionInterval) * 1250)
        peripheralLatency = Int(info.peripheralLatency)
        supervisionTimeout = .milliseconds(Int(info.supervisionTimeout) * 10)
        txPHY = LinkPHY(info.txPHY)
        rxPHY = LinkPHY(info.rxPHY)
        maxTxOctets = Int(info.maxTxOctets)
        maxTxTime = Int(info.maxTxTime)
        maxRxOctets = Int(info.maxRxOctets)
        maxRxTime = Int(info.maxRxTime)
        attMTU = info.attMTU
    }

    public var description: String {
        let interval =
            Double(connectionInterval.components.attoseconds) / 1e15
            + Double(connectionInterval.components.seconds) * 1000
        let timeout =
            Double(supervisionTimeout.components.seconds)
            + Double(supervisionTimeout.components.attoseconds) / 1e18
        return "interval \(interval) ms, latency \(peripheralLatency), timeout \(timeout) s, "
            + "tx \(txPHY) \(maxTxOctets) octets / \(maxTxTime) µs, rx \(rxPHY) \(maxRxOctets) octets / \(maxRxTime) µs, "
            + "ATT_MTU \(attMTU)"
    }
}

/// How quickly a peripheral wants its central to hear it (Core Bluetooth's
/// `CBPeripheralManagerConnectionLatency`), asked for as connection parameters. Core Bluetooth
/// does not publish its values; these follow Apple's accessory rules
/// (`ConnectionParameterLimits.apple`), so an iPhone-like central accepts each.
public enum ConnectionLatency: Sendable, Hashable, CaseIterable {
    /// 15–30 ms, no peripheral latency, 2 s supervision timeout.
    case low
    /// 30–60 ms, no peripheral latency, 4 s supervision timeout.
    case medium
    /// 90–120 ms, peripheral latency 4, 6 s supervision timeout.
    case high

    /// The connection parameters asked for (interval 1.25 ms, timeout 10 ms units).
    public var parameters: ConnectionParameters {
        switch self {
        case .low:
            ConnectionParameters(
                connectionIntervalMin: 12, connectionIntervalMax: 24, maxLatency: 0, supervisionTimeout: 200)
        case .medium:
            ConnectionParameters(
                connectionIntervalMin: 24, connectionIntervalMax: 48, maxLatency: 0, supervisionTimeout: 400)
        case .high:
            ConnectionParameters(
                connectionIntervalMin: 72, connectionIntervalMax: 96, maxLatency: 4, supervisionTimeout: 600)
        }
    }
}
