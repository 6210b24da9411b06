import BLEWire

/// A PHY's timing as the air-time model sees it: how long one octet and the fixed part of a
/// packet last — the one timing table of the stack.
///
/// Core 5.4 Vol 6 Part B §2.1 (packet format for the LE Uncoded PHYs) and §2.2 (packet format for
/// the LE Coded PHY); the two coded schemes differ in octet time, hence `PHY`'s two coded cases.
extension PHY {
    /// Microseconds per octet of header, payload, MIC and CRC.
    public var octetMicroseconds: Int {
        switch self {
        case .le1M: 8
        case .le2M: 4
        case .codedS2: 16
        case .codedS8: 64
        }
    }

    /// Microseconds of everything but the payload and MIC: preamble, access address, header and
    /// CRC; on Coded also CI, TERM1 (FEC block 1 is always S = 8: 80 + 256 + 16 + 24 µs) and TERM2.
    public var fixedMicroseconds: Int {
        switch self {
        case .le1M: 80  // (1 + 4 + 2 + 3) octets × 8 µs
        case .le2M: 44  // (2 + 4 + 2 + 3) octets × 4 µs
        case .codedS2: 462  // 376 + (2 + 3) × 16 + 6 (TERM2, 3 bits at S = 2)
        case .codedS8: 720  // 376 + (2 + 3) × 64 + 24 (TERM2, 3 bits at S = 8)
        }
    }

    /// Time of one octet of header, payload, MIC or CRC.
    public var octetTime: Duration { .microseconds(octetMicroseconds) }

    /// Time of the fixed part of every packet (an empty PDU lasts exactly this).
    public var fixedOverhead: Duration { .microseconds(fixedMicroseconds) }

    /// How long a packet with `payloadOctets` of PDU payload is on air; `mic` adds the MIC of an
    /// encrypted non-empty data PDU (Core 5.4 Vol 6 Part B §2.4): `AirTime.packetAirTime`.
    public func airTime(payloadOctets: Int, mic: Bool = false) -> Duration {
        AirTime.packetAirTime(phy: self, payloadLength: payloadOctets, encrypted: mic)
    }
}

/// Air-time constants and packet durations of LE data physical channel packets.
public enum AirTime {
    /// The MIC of an encrypted data PDU with a non-empty payload (Core 5.4 Vol 6 Part B §2.4).
    public static let micLength = 4
    /// The largest LL data payload (Data Length Extension), and the smallest maximum every
    /// controller supports (Core 5.4 Vol 6 Part B §4.5.10).
    public static let maximumPayload = 251
    public static let minimumMaximumPayload = 27

    /// Air time of one data physical channel packet with `payloadLength` octets of LL payload:
    /// `fixed(phy) + octetTime(phy) · (L + MIC)`, the MIC only when encrypted and L > 0
    /// (Core 5.4 Vol 6 Part B §2.1, §2.2, §2.4).
    public static func packetAirTime(phy: PHY, payloadLength: Int, encrypted: Bool) -> Duration {
        .microseconds(packetMicroseconds(phy: phy, payloadLength: payloadLength, encrypted: encrypted))
    }

    /// `packetAirTime` in whole microseconds (every PHY's timings are whole microseconds).
    public static func packetMicroseconds(phy: PHY, payloadLength: Int, encrypted: Bool) -> Int {
        let mic = encrypted && payloadLength > 0 ? micLength : 0
        return phy.fixedMicroseconds + phy.octetMicroseconds * (payloadLength + mic)
    }

    /// Air time of an empty PDU (no payload, hence never a MIC): 80 / 44 / 462 / 720 µs.
    public static func emptyPDUAirTime(phy: PHY) -> Duration { phy.fixedOverhead }

    /// The largest LL payload a side may send under its effective maximum octets and time
    /// (Core 5.4 Vol 6 Part B §4.5.10):
    /// `min(maxTxOctets, floor((maxTxTime − fixed) / octetTime) − MIC)`, never negative.
    public static func largestPayload(maxTxOctets: Int, maxTxTime: Duration, phy: PHY, encrypted: Bool) -> Int {
        let timeMicroseconds = Int(maxTxTime.nanosecondsClamped / 1_000)
        return largestPayload(
            maxTxOctets: maxTxOctets, maxTxMicroseconds: timeMicroseconds, phy: phy, encrypted: encrypted)
    }

    static func largestPayload(maxTxOctets: Int, maxTxMicroseconds: Int, phy: PHY, encrypted: Bool) -> Int {
        let byTime = (maxTxMicroseconds - phy.fixedMicroseconds) / phy.octetMicroseconds
        let byTimeWithoutMIC = byTime - (encrypted ? micLength : 0)
        return max(0, min(maxTxOctets, byTimeWithoutMIC))
    }

    /// The time a side needs to send `octets` of payload with a MIC on `phy`: the default
    /// maximum time, so that time never limits what the octets allow. On 1M it is the spec's
    /// `(octets + 14) · 8 µs` (27 → 328 µs, 251 → 2120 µs; Core 5.4 Vol 6 Part B §4.5.10).
    public static func timeNeeded(octets: Int, phy: PHY) -> Duration {
        packetAirTime(phy: phy, payloadLength: max(octets, 1), encrypted: true)
    }

    /// A connection interval from its HCI value in units of 1.25 ms
    /// (Core 5.4 Vol 4 Part E §7.8.12: 0x0006–0x0C80, 7.5 ms – 4 s).
    public static func connectionInterval(units: Int) -> Duration { .microseconds(units * 1_250) }
}

extension Duration {
    /// Whole microseconds (truncated): the unit of the air-time model.
    var wholeMicroseconds: Int { Int(nanosecondsClamped / 1_000) }
}
