import BLE
import BLEController
import BLEWire

extension LinkTiming {
    /// The air-time model's view of a link as the central sees it (its Tx is central →
    /// peripheral); unencrypted, rule B, the event as long as the interval.
    init(_ link: LinkParameters) {
        func phy(_ phy: LinkPHY) -> PHY {
            switch phy {
            case .le1M: .le1M
            case .le2M: .le2M
            case .leCoded: .codedS8
            }
        }
        self.init(
            interval: link.connectionInterval,
            centralToPeripheral: .init(phy: phy(link.txPHY), maxOctets: link.maxTxOctets),
            peripheralToCentral: .init(phy: phy(link.rxPHY), maxOctets: link.maxRxOctets))
    }
}

extension LinkParameters {
    /// "LE 2M, LL 251, MTU 247, 30 ms": what a link's throughput depends on, briefly.
    var summary: String {
        let milliseconds =
            Double(connectionInterval.components.seconds) * 1000
            + Double(connectionInterval.components.attoseconds) / 1e15
        let interval = milliseconds.rounded() == milliseconds ? "\(Int(milliseconds))" : "\(milliseconds)"
        let phy = txPHY == rxPHY ? "\(txPHY)" : "\(txPHY)/\(rxPHY)"
        let octets = maxTxOctets == maxRxOctets ? "\(maxTxOctets)" : "\(maxTxOctets)/\(maxRxOctets)"
        return "\(phy), LL \(octets), MTU \(attMTU), \(interval) ms"
    }
}
