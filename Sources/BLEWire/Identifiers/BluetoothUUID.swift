/// A Bluetooth UUID: 16-, 32- or 128-bit (Core 5.4 Vol 3 Part B §2.5.1).
///
/// Stored in its 128-bit form, so a 16- or 32-bit UUID equals, and hashes the same as, its
/// expansion on the Bluetooth Base UUID `00000000-0000-1000-8000-00805F9B34FB`
/// (`uuid128 = uuid16 · 2^96 + Base`). Which width goes on the wire is decided when encoding.
public struct BluetoothUUID: Hashable, Sendable, Comparable, CustomStringConvertible,
    CustomRendering, ExpressibleByIntegerLiteral
{
    /// Most significant 64 bits of the 128-bit value (the first 16 hex digits as printed).
    public let high: UInt64
    /// Least significant 64 bits.
    public let low: UInt64

    /// The Bluetooth Base UUID's high half with the 32-bit alias field zeroed.
    @usableFromInline static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    @usableFromInline static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    @inlinable
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A 16-bit UUID from the Assigned Numbers.
    @inlinable
    public init(_ uuid16: UInt16) {
        self.init(high: UInt64(uuid16) << 32 | Self.baseHigh, low: Self.baseLow)
    }

    /// A 32-bit UUID.
    @inlinable
    public init(uuid32: UInt32) {
        self.init(high: UInt64(uuid32) << 32 | Self.baseHigh, low: Self.baseLow)
    }

    public init(integerLiteral value: UInt16) { self.init(value) }

    /// True when the UUID lies on the Base UUID (it has a 16- or 32-bit alias).
    @inlinable
    public var isOnBase: Bool { low == Self.baseLow && high & 0xFFFF_FFFF == Self.baseHigh }

    /// The 16-bit alias, when this UUID has one.
    @inlinable
    public var uuid16: UInt16? {
        guard isOnBase, high >> 48 == 0 else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// The 32-bit alias, when this UUID has one (every 16-bit UUID also has a 32-bit form).
    @inlinable
    public var uuid32: UInt32? {
        guard isOnBase else { return nil }
        return UInt32(truncatingIfNeeded: high >> 32)
    }

    /// The octets of the shortest form allowed in ATT (16 or 128 bits), little-endian.
    /// Core 5.4 Vol 3 Part F §3.2.1: 32-bit UUIDs are sent as 128-bit UUIDs in ATT.
    @inlinable
    public var attWidth: Int { uuid16 != nil ? 2 : 16 }

    /// Appends this UUID little-endian in `width` octets (2, 4 or 16). The caller must pick a width
    /// this UUID has; otherwise the 128-bit form is written.
    @inlinable
    public func encode(into writer: inout ByteWriter, width: Int) {
        if width == 2, let short = uuid16 {
            writer.u16(short)
        } else if width == 4, let short = uuid32 {
            writer.u32(short)
        } else {
            writer.u64(low)
            writer.u64(high)
        }
    }

    /// Appends the ATT form (16-bit when possible, else 128-bit).
    @inlinable
    public func encodeATT(into writer: inout ByteWriter) {
        encode(into: &writer, width: attWidth)
    }

    /// Reads a little-endian UUID of `width` octets (2, 4 or 16).
    @inlinable
    public init(from reader: inout ByteReader, width: Int, field: StaticString = "UUID")
        throws(DecodeError)
    {
        switch width {
        case 2: self.init(try reader.u16(field))
        case 4: self.init(uuid32: try reader.u32(field))
        case 16:
            try reader.require(16, field)
            let low = try reader.u64(field)
            self.init(high: try reader.u64(field), low: low)
        default:
            throw reader.error(field, .invalidValue(UInt64(width)))
        }
    }

    /// Decodes a UUID whose width is the whole input (2, 4 or 16 octets).
    public init(decodingLittleEndian bytes: ArraySlice<UInt8>) throws(DecodeError) {
        var reader = ByteReader(bytes, context: "UUID")
        guard [2, 4, 16].contains(bytes.count) else {
            throw reader.error("length", .invalidValue(UInt64(bytes.count)))
        }
        try self.init(from: &reader, width: bytes.count)
    }

    /// Parses "180D", "0000180D", or the canonical 8-4-4-4-12 form (any case).
    public init?(_ text: some StringProtocol) {
        let hex = String(text.filter { $0 != "-" })
        guard let bytes = Hex.bytes(hex) else { return nil }
        switch (bytes.count, text.contains("-")) {
        case (2, false): self.init(UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
        case (4, false):
            self.init(uuid32: bytes.reduce(0) { $0 << 8 | UInt32($1) })
        case (16, true):
            guard text.count == 36 else { return nil }
            let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
            guard parts == [8, 4, 4, 4, 12] else { return nil }
            self.init(
                high: bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) },
                low: bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) })
        default: return nil
        }
    }

    /// Canonical upper-case 8-4-4-4-12 form.
    public var uuidString: String {
        func hex(_ v: UInt64, _ digits: Int) -> String {
            let s = String(v, radix: 16, uppercase: true)
            return String(repeating: "0", count: digits - s.count) + s
        }
        return hex(high >> 32, 8) + "-" + hex((high >> 16) & 0xFFFF, 4) + "-" + hex(high & 0xFFFF, 4)
            + "-" + hex(low >> 48, 4) + "-" + hex(low & 0xFFFF_FFFF_FFFF, 12)
    }

    /// "180D" for a 16-bit UUID, "0000FEAA"-style for a 32-bit alias, else the canonical form.
    public var description: String {
        if let short = uuid16 {
            let s = String(short, radix: 16, uppercase: true)
            return String(repeating: "0", count: 4 - s.count) + s
        }
        if let long = uuid32 {
            let s = String(long, radix: 16, uppercase: true)
            return String(repeating: "0", count: 8 - s.count) + s
        }
        return uuidString
    }

    public var rendered: RenderedValue { .symbol(description) }

    public static func < (lhs: BluetoothUUID, rhs: BluetoothUUID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}
