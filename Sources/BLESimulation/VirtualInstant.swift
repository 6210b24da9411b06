/// A point in virtual time: nanoseconds since the simulation started.
///
/// The virtual radio's clock starts at zero and only moves when the simulation advances it, so
/// runs are deterministic and an hour of a connected device takes milliseconds.
public struct VirtualInstant: Hashable, Comparable, Sendable, CustomStringConvertible, InstantProtocol {
    public typealias Duration = Swift.Duration

    /// Nanoseconds since the start of the simulation.
    public let nanoseconds: Int64

    @inlinable public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = VirtualInstant(nanoseconds: 0)

    @inlinable
    public static func microseconds(_ value: Int64) -> VirtualInstant {
        VirtualInstant(nanoseconds: value &* 1_000)
    }

    @inlinable
    public static func < (lhs: VirtualInstant, rhs: VirtualInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    @inlinable
    public func advanced(by duration: Duration) -> VirtualInstant {
        VirtualInstant(nanoseconds: nanoseconds &+ duration.nanosecondsClamped)
    }

    @inlinable
    public func duration(to other: VirtualInstant) -> Duration {
        .nanoseconds(other.nanoseconds &- nanoseconds)
    }

    /// Microseconds since the start (the unit of the air-time model).
    @inlinable public var microseconds: Double { Double(nanoseconds) / 1_000 }

    public var description: String {
        let ms = Double(nanoseconds) / 1_000_000
        return "t=\(ms) ms"
    }
}

extension Duration {
    /// Whole nanoseconds, saturating at the bounds of Int64.
    @inlinable
    public var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (fromSeconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, overflow2) = fromSeconds.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return total
    }

    /// Microseconds as a floating-point number (the unit of the air-time model).
    @inlinable public var microseconds: Double { Double(nanosecondsClamped) / 1_000 }
}
