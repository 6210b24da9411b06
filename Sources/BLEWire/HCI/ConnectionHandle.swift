/// A Connection_Handle (Core 5.4 Vol 4 Part E §5.4.2, §7.7.65.1): the controller's name for one
/// link, 12 bits, valid in 0x0000–0x0EFF. A type of its own so that it is never confused with
/// an attribute handle or any other `UInt16` beside it.
///
/// Any value is kept, as decoders keep unknown opcodes: `isValid` says whether the controller
/// may use it. It renders as the plain number it always was, so logs and JSON do not change.
public struct ConnectionHandle: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible, CustomRendering
{
    public let rawValue: UInt16

    /// The largest valid handle (§5.4.2: Range 0x0000 to 0x0EFF).
    public static let maximum = ConnectionHandle(rawValue: 0x0EFF)

    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt16) { self.rawValue = rawValue }
    @inlinable public init(integerLiteral value: UInt16) { self.rawValue = value }

    /// Within 0x0000–0x0EFF; 0x0F00–0x0FFF are reserved and the top four bits of the field are
    /// the ACL header's flags (§5.4.2).
    public var isValid: Bool { rawValue <= Self.maximum.rawValue }

    public static func < (lhs: ConnectionHandle, rhs: ConnectionHandle) -> Bool { lhs.rawValue < rhs.rawValue }

    // Hashed as the integer it wraps: the host and the controller look links up by handle for
    // every packet, and a synthesised `hash(into:)` runs a whole Hasher (seed, combine,
    // finalise) per lookup where an integer key takes the standard library's one-word path.
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    @inlinable public func _rawHashValue(seed: Int) -> Int { rawValue._rawHashValue(seed: seed) }

    /// "0x0040".
    public var description: String { Hex.prefixed(rawValue, width: 4) }

    public var rendered: RenderedValue { .unsigned(UInt64(rawValue)) }
}
