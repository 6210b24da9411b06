/// Appends little-endian fields to a growing byte array.
public struct ByteWriter: Sendable {
    public var bytes: [UInt8]

    @inlinable
    public init(capacity: Int = 32) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inlinable public var count: Int { bytes.count }

    @inlinable public mutating func u8(_ value: UInt8) { bytes.append(value) }
    @inlinable public mutating func i8(_ value: Int8) { bytes.append(UInt8(bitPattern: value)) }

    @inlinable
    public mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    @inlinable
    public mutating func u24(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
    }

    @inlinable
    public mutating func u32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }

    @inlinable
    public mutating func u64(_ value: UInt64) { uint(value, width: 8) }

    /// The low `width` octets of `value`, little-endian.
    @inlinable
    public mutating func uint(_ value: UInt64, width: Int) {
        for i in 0..<width {
            bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))))
        }
    }

    @inlinable
    public mutating func append<S: Sequence>(_ octets: S) where S.Element == UInt8 {
        bytes.append(contentsOf: octets)
    }

    /// Overwrites a previously written little-endian UInt16 (for length fields known only later).
    @inlinable
    public mutating func patchU16(_ value: UInt16, at position: Int) {
        bytes[position] = UInt8(truncatingIfNeeded: value)
        bytes[position + 1] = UInt8(truncatingIfNeeded: value >> 8)
    }
}
