import BLEWire

/// The value of the Service Changed characteristic (Core 5.4 Vol 3 Part G §7.1): the range of
/// attribute handles whose definitions may have changed, indicated to the client so that it
/// rediscovers that range only (§2.5.2). Start ≤ end by construction.
public struct ServiceChanged: Hashable, Sendable, CustomStringConvertible {
    /// The characteristic's 16-bit UUID (Assigned Numbers).
    public static let uuid: UInt16 = 0x2A05

    /// Start of Affected Attribute Handle Range through End of Affected Attribute Handle Range.
    public var affectedRange: ClosedRange<UInt16>

    public init(affectedRange: ClosedRange<UInt16>) { self.affectedRange = affectedRange }

    /// Parses the 4-octet value: start handle, end handle, little-endian. Another length, a
    /// start of 0x0000 (a reserved handle, Vol 3 Part F §3.2.2) or an end before the start is
    /// `.invalidResponse`.
    public init(value: some Collection<UInt8>) throws(GATTError) {
        let octets = Array(value)
        guard octets.count == 4 else {
            throw .invalidResponse("Service Changed value of \(octets.count) octets, not 4")
        }
        let start = UInt16(octets[0]) | UInt16(octets[1]) << 8
        let end = UInt16(octets[2]) | UInt16(octets[3]) << 8
        guard start != 0 else { throw .invalidResponse("Service Changed range starts at the reserved handle 0x0000") }
        guard end >= start else {
            throw .invalidResponse(
                "Service Changed end handle \(Hex.prefixed(end, width: 4))"
                    + " is before its start \(Hex.prefixed(start, width: 4))"
            )
        }
        affectedRange = start...end
    }

    /// The 4 octets of the value.
    public var octets: [UInt8] {
        let start = affectedRange.lowerBound
        let end = affectedRange.upperBound
        return [UInt8(truncatingIfNeeded: start), UInt8(start >> 8), UInt8(truncatingIfNeeded: end), UInt8(end >> 8)]
    }

    public var description: String { "Service Changed \(GATTClientSupport.text(affectedRange))" }
}
