import BLEWire
import Crypto
import CryptoExtras

/// The cryptographic toolbox of the Security Manager (Core 5.4 Vol 3 Part H §2.2), on
/// `SMPKey128` numbers. The specification writes these functions most significant octet
/// first (as FIPS-197 and RFC 4493 do); `bigEndianOctets` is that order, while SMP sends every
/// value least significant octet first (§3.1), which `SMPKey128.encode(into:)` does.
enum SecurityFunctions {
    /// The security function e (§2.2.1): AES-128 of one block.
    static func e(key: SMPKey128, _ plaintext: SMPKey128) -> SMPKey128 {
        var block = plaintext.bigEndianOctets
        // A 16-octet key and a 16-octet block are always valid for AES-128.
        try? AES.permute(&block, key: SymmetricKey(data: key.bigEndianOctets))
        return SMPKey128(bigEndianOctets: block)
    }

    /// AES-CMAC (RFC 4493) under `key` of `message` (octets most significant first), the MAC
    /// most significant octet first — the function of §2.2.5 and of the Database Hash (Part G
    /// §7.3.1).
    static func aesCMAC(key: SMPKey128, _ message: [UInt8]) -> SMPKey128 {
        SMPKey128(bigEndianOctets: aesCMAC(key: key.bigEndianOctets, message))
    }

    static func aesCMAC(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        // A 16-octet key is always valid for AES-128, so construction cannot fail.
        guard var mac = try? AES.CMAC(key: SymmetricKey(data: key)) else {
            return [UInt8](repeating: 0, count: 16)
        }
        message.withUnsafeBytes { mac.update(bufferPointer: $0) }
        return mac.finalize().withUnsafeBytes { Array($0) }
    }

    /// The random address hash function ah (§2.2.2): e(k, 0¹⁰⁴ ‖ r) mod 2²⁴, for resolvable
    /// private addresses (Vol 6 Part B §1.3.2.2). `r` is prand, 24 bits.
    static func ah(key: SMPKey128, _ r: UInt32) -> UInt32 {
        UInt32(truncatingIfNeeded: e(key: key, SMPKey128(high: 0, low: UInt64(r & 0xFF_FFFF))).low) & 0xFF_FFFF
    }
}

extension SMPKey128 {
    /// The 16 octets most significant first (the specification's and FIPS-197's order; how
    /// bond stores and the known-devices registry keep keys).
    package var bigEndianOctets: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    /// From 16 octets most significant first (the caller checks there are 16).
    init(bigEndianOctets octets: [UInt8]) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for i in 0..<8 { high = high << 8 | UInt64(octets[i]) }
        for i in 8..<16 { low = low << 8 | UInt64(octets[i]) }
        self.init(high: high, low: low)
    }

    /// From stored octets, most significant first; nil unless there are exactly 16.
    package init?(storedOctets octets: [UInt8]) {
        guard octets.count == 16 else { return nil }
        self.init(bigEndianOctets: octets)
    }

    /// For HCI commands (LE Enable Encryption, LE Long Term Key Request Reply).
    var hciKey: HCI.Key128 { HCI.Key128(UInt128(high) << 64 | UInt128(low)) }
}
