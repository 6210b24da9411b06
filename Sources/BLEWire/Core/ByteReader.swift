/// A cursor over untrusted little-endian bytes.
///
/// Reads are bounds-checked and throw `DecodeError` naming the field; slices taken with
/// `take(_:field:)` share the input's storage, so decoding never copies payloads.
public struct ByteReader: Sendable {
    public let bytes: ArraySlice<UInt8>
    @usableFromInline var cursor: Int
    /// Absolute index of the next unread octet in `bytes`.
    @inlinable public var index: Int { cursor }
    /// Name of the structure being decoded; stamped on every error this reader throws.
    public var context: StaticString

    @inlinable
    public init(_ bytes: ArraySlice<UInt8>, context: StaticString = "") {
        self.bytes = bytes
        self.cursor = bytes.startIndex
        self.context = context
    }

    @inlinable
    public init(_ bytes: [UInt8], context: StaticString = "") {
        self.init(bytes[...], context: context)
    }

    /// Octets not yet read.
    @inlinable public var remaining: Int { bytes.endIndex - index }
    /// Offset of the cursor from the start of the input (for error reports).
    @inlinable public var offset: Int { index - bytes.startIndex }
    @inlinable public var isAtEnd: Bool { index >= bytes.endIndex }

    @inlinable
    public func error(_ field: StaticString, _ reason: DecodeError.Reason, at offset: Int? = nil)
        -> DecodeError
    {
        DecodeError(context: context, field: field, offset: offset ?? self.offset, reason: reason)
    }

    @inlinable @inline(__always)
    public func require(_ count: Int, _ field: StaticString) throws(DecodeError) {
        if count > remaining {
            throw error(field, .truncated(needed: count, available: remaining))
        }
    }

    @inlinable @inline(__always)
    public mutating func u8(_ field: StaticString) throws(DecodeError) -> UInt8 {
        try require(1, field)
        defer { cursor &+= 1 }
        return bytes[index]
    }

    @inlinable @inline(__always)
    public mutating func i8(_ field: StaticString) throws(DecodeError) -> Int8 {
        Int8(bitPattern: try u8(field))
    }

    @inlinable @inline(__always)
    public mutating func u16(_ field: StaticString) throws(DecodeError) -> UInt16 {
        try require(2, field)
        defer { cursor &+= 2 }
        return UInt16(bytes[index]) | UInt16(bytes[index &+ 1]) << 8
    }

    @inlinable @inline(__always)
    public mutating func u24(_ field: StaticString) throws(DecodeError) -> UInt32 {
        try require(3, field)
        defer { cursor &+= 3 }
        return UInt32(bytes[index]) | UInt32(bytes[index &+ 1]) << 8 | UInt32(bytes[index &+ 2]) << 16
    }

    @inlinable @inline(__always)
    public mutating func u32(_ field: StaticString) throws(DecodeError) -> UInt32 {
        try require(4, field)
        defer { cursor &+= 4 }
        return UInt32(bytes[index]) | UInt32(bytes[index &+ 1]) << 8 | UInt32(bytes[index &+ 2]) << 16
            | UInt32(bytes[index &+ 3]) << 24
    }

    /// A little-endian unsigned integer of `width` octets (1...8).
    @inlinable
    public mutating func uint(_ width: Int, _ field: StaticString) throws(DecodeError) -> UInt64 {
        try require(width, field)
        switch width {
        case 6:
            // Device addresses: the common case, without a loop.
            let low = UInt64(try u32(field))
            return low | UInt64(try u16(field)) << 32
        case 8:
            let low = UInt64(try u32(field))
            return low | UInt64(try u32(field)) << 32
        default:
            var value: UInt64 = 0
            for i in 0..<width {
                value |= UInt64(bytes[index &+ i]) << (8 * UInt64(i))
            }
            cursor &+= width
            return value
        }
    }

    @inlinable
    public mutating func u64(_ field: StaticString) throws(DecodeError) -> UInt64 {
        try uint(8, field)
    }

    /// The next `count` octets, sharing the input's storage.
    @inlinable @inline(__always)
    public mutating func take(_ count: Int, _ field: StaticString) throws(DecodeError) -> ArraySlice<UInt8> {
        if count < 0 { throw error(field, .outOfRange(value: count, allowed: 0...Int.max)) }
        try require(count, field)
        defer { cursor &+= count }
        return bytes[index..<(index &+ count)]
    }

    /// Everything not yet read.
    @inlinable
    public mutating func rest() -> ArraySlice<UInt8> {
        defer { cursor = bytes.endIndex }
        return bytes[index...]
    }

    @inlinable
    public mutating func skip(_ count: Int, _ field: StaticString) throws(DecodeError) {
        try require(count, field)
        cursor &+= count
    }

    /// The next octet without consuming it.
    @inlinable
    public func peek(_ field: StaticString) throws(DecodeError) -> UInt8 {
        try require(1, field)
        return bytes[index]
    }

    /// Throws `.trailingBytes` unless the input has been read to its end.
    @inlinable
    public func finish() throws(DecodeError) {
        if remaining > 0 {
            throw error("end of packet", .trailingBytes(count: remaining))
        }
    }
}
