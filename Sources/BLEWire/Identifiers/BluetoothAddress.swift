/// A 48-bit Bluetooth device address (Core 5.4 Vol 6 Part B §1.3).
///
/// Printed most significant octet first, `F0:F1:F2:F3:F4:F5`; sent on the wire least
/// significant octet first.
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible,
    CustomRendering
{
    /// The address as an integer; only the low 48 bits are used.
    public let value: UInt64

    @inlinable
    public init(_ value: UInt64) { self.value = value & 0xFFFF_FFFF_FFFF }

    /// From six octets in printed order (most significant first).
    public init(_ octets: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) {
        var value: UInt64 = 0
        for octet in [octets.0, octets.1, octets.2, octets.3, octets.4, octets.5] {
            value = value << 8 | UInt64(octet)
        }
        self.init(value)
    }

    public static let zero = BluetoothAddress(0)

    /// Parses `F0:F1:F2:F3:F4:F5` (colons or dashes, any case).
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let groups = parts.count == 6 ? parts : text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.count == 6 else { return nil }
        var value: UInt64 = 0
        for group in groups {
            guard group.count == 2, let octet = UInt8(group, radix: 16) else { return nil }
            value = value << 8 | UInt64(octet)
        }
        self.init(value)
    }

    /// Octets in printed order (most significant first).
    public var octets: [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: value >> (40 - 8 * UInt64($0))) }
    }

    /// The two most significant bits, which classify a random address (Vol 6 Part B §1.3.2).
    @inlinable public var topBits: UInt8 { UInt8(truncatingIfNeeded: value >> 46) }

    /// A new random static address (Vol 6 Part B §1.3.2.1): the two most significant bits 0b11,
    /// the other 46 random and neither all zeros nor all ones. Draws from `generator` until it
    /// has one, so a seeded generator gives the same address on every run.
    package static func randomStatic(using generator: inout some RandomNumberGenerator) -> BluetoothAddress {
        while true {
            let bits = generator.next() & 0x3FFF_FFFF_FFFF
            if bits != 0 && bits != 0x3FFF_FFFF_FFFF { return BluetoothAddress(bits | 0xC000_0000_0000) }
        }
    }

    @inlinable
    public init(from reader: inout ByteReader, field: StaticString = "Address") throws(DecodeError) {
        self.init(try reader.uint(6, field))
    }

    @inlinable
    public func encode(into writer: inout ByteWriter) {
        writer.uint(value, width: 6)
    }

    public var description: String {
        octets.map { byte in
            let s = String(byte, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }.joined(separator: ":")
    }

    public var rendered: RenderedValue { .symbol(description) }

    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool { lhs.value < rhs.value }
}

/// The address type octet of HCI commands and events (Core 5.4 Vol 4 Part E §7.7.65.1 and
/// §7.8.12): public or random, and the identity forms reported when the controller resolved a
/// private address.
public enum AddressType: Hashable, Sendable, CustomRendering {
    case `public`
    case random
    /// A resolvable private address the controller resolved to a public identity address.
    case publicIdentity
    /// A resolvable private address the controller resolved to a random static identity address.
    case randomIdentity
    /// A value this version does not know, kept as received.
    case other(UInt8)

    public init(rawValue: UInt8) {
        switch rawValue {
        case 0x00: self = .public
        case 0x01: self = .random
        case 0x02: self = .publicIdentity
        case 0x03: self = .randomIdentity
        default: self = .other(rawValue)
        }
    }

    public var rawValue: UInt8 {
        switch self {
        case .public: 0x00
        case .random: 0x01
        case .publicIdentity: 0x02
        case .randomIdentity: 0x03
        case .other(let v): v
        }
    }

    /// True for addresses that are random on air (random and random identity).
    public var isRandom: Bool { self == .random || self == .randomIdentity }

    public var rendered: RenderedValue {
        switch self {
        case .public: .symbol("public")
        case .random: .symbol("random")
        case .publicIdentity: .symbol("publicIdentity")
        case .randomIdentity: .symbol("randomIdentity")
        case .other(let v): .symbol("reserved(\(Hex.prefixed(v, width: 2)))")
        }
    }
}

/// What kind of address a device uses, derived from its type and, for random addresses, the
/// two most significant bits (Core 5.4 Vol 6 Part B §1.3.2).
public enum AddressKind: Hashable, Sendable {
    case `public`
    /// Top bits 0b11.
    case randomStatic
    /// Top bits 0b01: hash and prand from an IRK.
    case resolvablePrivate
    /// Top bits 0b00.
    case nonResolvablePrivate
    /// Top bits 0b10, reserved by the specification.
    case reservedRandom
}

/// An LE device address together with its type: what identifies a peer on air.
public struct LEAddress: Hashable, Sendable, CustomStringConvertible, CustomRendering {
    public var address: BluetoothAddress
    public var type: AddressType

    @inlinable
    public init(_ address: BluetoothAddress, type: AddressType) {
        self.address = address
        self.type = type
    }

    public var kind: AddressKind {
        guard type.isRandom else { return .public }
        switch address.topBits {
        case 0b11: return .randomStatic
        case 0b01: return .resolvablePrivate
        case 0b00: return .nonResolvablePrivate
        default: return .reservedRandom
        }
    }

    public var description: String {
        let kindName: String
        switch kind {
        case .public: kindName = type == .publicIdentity ? "public identity" : "public"
        case .randomStatic: kindName = "random static"
        case .resolvablePrivate: kindName = "resolvable private"
        case .nonResolvablePrivate: kindName = "non-resolvable private"
        case .reservedRandom: kindName = "random (reserved type)"
        }
        return "\(address) (\(kindName))"
    }

    public var rendered: RenderedValue {
        .object(name: nil, fields: [("address", address.rendered), ("type", type.rendered)])
    }
}
