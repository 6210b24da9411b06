import BLEWire

/// The LE PHYs as the air sees them, with the coding of LE Coded spelled out because it sets the
/// air time (Core 5.4 Vol 6 Part A §3.2, Vol 6 Part B §2.1).
public enum RadioPHY: Hashable, Sendable, CustomStringConvertible {
    case le1M
    case le2M
    /// LE Coded, S=2.
    case leCodedS2
    /// LE Coded, S=8 (what primary advertising on LE Coded uses).
    case leCodedS8

    /// Microseconds per payload octet.
    public var microsecondsPerOctet: Int64 {
        switch self {
        case .le1M: 8
        case .le2M: 4
        case .leCodedS2: 16
        case .leCodedS8: 64
        }
    }

    /// Microseconds of preamble, access address, header and CRC (Core 5.4 Vol 6 Part B §2.1:
    /// 1M sends a 1-octet preamble, 2M a 2-octet one; Coded sends an 80 µs preamble, the access
    /// address, CI and TERM1 at S=8, then the rest at the packet's coding).
    public var fixedMicroseconds: Int64 {
        switch self {
        case .le1M: 80
        case .le2M: 44
        case .leCodedS2: 462
        case .leCodedS8: 720
        }
    }

    /// How long a packet with `payloadOctets` of PDU payload is on air; `mic` adds the 4-octet
    /// MIC of an encrypted non-empty data PDU (Core 5.4 Vol 6 Part B §2.4).
    public func airTime(payloadOctets: Int, mic: Bool = false) -> Duration {
        let octets = Int64(payloadOctets) + (mic && payloadOctets > 0 ? 4 : 0)
        return .microseconds(fixedMicroseconds + microsecondsPerOctet * octets)
    }

    /// The PHY an HCI PHY value names; LE Coded uses `coding`.
    public init?(_ phy: HCI.LEPHY, coding: RadioPHY = .leCodedS8) {
        switch phy {
        case .le1M: self = .le1M
        case .le2M: self = .le2M
        case .leCoded: self = coding
        case .other: return nil
        }
    }

    /// The PHY value HCI events report.
    public var hci: HCI.LEPHY {
        switch self {
        case .le1M: .le1M
        case .le2M: .le2M
        case .leCodedS2, .leCodedS8: .leCoded
        }
    }

    /// The PHY value LE Meta events report.
    public var eventPHY: LEMetaEvent.PHY {
        switch self {
        case .le1M: .le1M
        case .le2M: .le2M
        case .leCodedS2, .leCodedS8: .leCoded
        }
    }

    public var isCoded: Bool { self == .leCodedS2 || self == .leCodedS8 }

    public var description: String {
        switch self {
        case .le1M: "LE 1M"
        case .le2M: "LE 2M"
        case .leCodedS2: "LE Coded S=2"
        case .leCodedS8: "LE Coded S=8"
        }
    }
}

/// Fixed link-layer timings (Core 5.4 Vol 6 Part B §4.1).
public enum RadioTiming {
    /// T_IFS: between consecutive packets on the same channel (§4.1.1).
    public static let interFrameSpace = Duration.microseconds(150)
    /// T_MAFS: the least time between packets of an auxiliary chain (§4.1.3).
    public static let minimumAuxFrameSpace = Duration.microseconds(300)
    /// transmitWindowDelay after a CONNECT_IND (§4.5.3).
    public static let transmitWindowDelayLegacy = Duration.microseconds(1250)
    /// transmitWindowDelay after an AUX_CONNECT_REQ on LE 1M or 2M (§4.5.3).
    public static let transmitWindowDelayAuxiliary = Duration.microseconds(2500)
}
