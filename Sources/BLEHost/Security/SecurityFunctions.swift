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

// The LE Secure Connections and legacy pairing functions (Core 5.4 Vol 3 Part H §2.2.3–§2.2.11).
// Every argument and result is a number written most significant octet first, as the
// specification concatenates them ("‖" puts the first operand in the most significant octets).
extension SecurityFunctions {
    /// The legacy confirm value generation function c1 (§2.2.3):
    /// e(k, e(k, r ⊕ p1) ⊕ p2), with p1 = pres ‖ preq ‖ rat′ ‖ iat′ and
    /// p2 = padding ‖ ia ‖ ra. `preq` and `pres` are the 7 octets of Pairing Request and
    /// Pairing Response as sent (code first, i.e. least significant first).
    static func c1(
        key k: SMPKey128, random r: SMPKey128, pairingRequest preq: [UInt8], pairingResponse pres: [UInt8],
        initiatorAddress ia: LEAddress, responderAddress ra: LEAddress
    ) -> SMPKey128 {
        // The commands are numbers whose least significant octet is the code: reverse the
        // octets as sent to write them most significant first.
        let p1 = Array(pres.reversed()) + Array(preq.reversed()) + [addressTypeOctet(ra), addressTypeOctet(ia)]
        let p2 = [UInt8](repeating: 0, count: 4) + bigEndian(ia.address) + bigEndian(ra.address)
        let first = e(key: k, r ^ SMPKey128(bigEndianOctets: p1))
        return e(key: k, first ^ SMPKey128(bigEndianOctets: p2))
    }

    /// The legacy key generation function s1 (§2.2.4): e(k, r1′ ‖ r2′), r1′ and r2′ the least
    /// significant 64 bits of r1 and r2. Gives the STK from TK, Srand (r1) and Mrand (r2).
    static func s1(key k: SMPKey128, _ r1: SMPKey128, _ r2: SMPKey128) -> SMPKey128 {
        e(key: k, SMPKey128(high: r1.low, low: r2.low))
    }

    /// The LE Secure Connections confirm value function f4 (§2.2.6): AES-CMAC_X(U ‖ V ‖ Z),
    /// U and V 256-bit public key X coordinates, Z 8 bits.
    static func f4(_ u: [UInt8], _ v: [UInt8], key x: SMPKey128, _ z: UInt8) -> SMPKey128 {
        aesCMAC(key: x, u + v + [z])
    }

    /// The key generation function f5 (§2.2.7): from the DHKey W, the nonces and both
    /// addresses (56 bits each: address type ‖ address), the MacKey and the LTK.
    static func f5(
        dhKey w: [UInt8], _ n1: SMPKey128, _ n2: SMPKey128, _ a1: LEAddress, _ a2: LEAddress
    ) -> (macKey: SMPKey128, longTermKey: SMPKey128) {
        // SALT and keyID "btle" are fixed by §2.2.7.
        let salt = SMPKey128(high: 0x6C88_8391_AAF5_A538, low: 0x6037_0BDB_5A60_83BE)
        let t = aesCMAC(key: salt, w)
        func derive(_ counter: UInt8) -> SMPKey128 {
            let message: [UInt8] =
                [counter, 0x62, 0x74, 0x6C, 0x65] + n1.bigEndianOctets + n2.bigEndianOctets
                + addressOctets(a1) + addressOctets(a2) + [0x01, 0x00]
            return aesCMAC(key: t, message)
        }
        return (derive(0), derive(1))
    }

    /// The check value function f6 (§2.2.8): AES-CMAC_W(N1 ‖ N2 ‖ R ‖ IOcap ‖ A1 ‖ A2).
    /// `ioCap` is AuthReq ‖ OOB data flag ‖ IO capability (most significant first).
    static func f6(
        key w: SMPKey128, _ n1: SMPKey128, _ n2: SMPKey128, _ r: SMPKey128, ioCap: [UInt8], _ a1: LEAddress,
        _ a2: LEAddress
    ) -> SMPKey128 {
        aesCMAC(
            key: w, n1.bigEndianOctets + n2.bigEndianOctets + r.bigEndianOctets + ioCap + addressOctets(a1)
                + addressOctets(a2))
    }

    /// The numeric comparison value function g2 (§2.2.9): AES-CMAC_X(U ‖ V ‖ Y) mod 2³²; the
    /// six digits shown are this mod 10⁶.
    static func g2(_ u: [UInt8], _ v: [UInt8], key x: SMPKey128, _ y: SMPKey128) -> UInt32 {
        UInt32(truncatingIfNeeded: aesCMAC(key: x, u + v + y.bigEndianOctets).low)
    }

    /// The link key conversion function h6 (§2.2.10): AES-CMAC_W(keyID), keyID 32 bits.
    static func h6(key w: SMPKey128, keyID: UInt32) -> SMPKey128 {
        aesCMAC(key: w, (0..<4).map { UInt8(truncatingIfNeeded: keyID >> (24 - 8 * $0)) })
    }

    /// The link key conversion function h7 (§2.2.11): AES-CMAC_SALT(W).
    static func h7(salt: SMPKey128, _ w: SMPKey128) -> SMPKey128 {
        aesCMAC(key: salt, w.bigEndianOctets)
    }

    /// An address as f5 and f6 take it (§2.2.7): the type octet (0 public, 1 random) in the
    /// most significant octet, then the 48-bit address.
    static func addressOctets(_ address: LEAddress) -> [UInt8] {
        [addressTypeOctet(address)] + bigEndian(address.address)
    }

    private static func addressTypeOctet(_ address: LEAddress) -> UInt8 { address.type.isRandom ? 1 : 0 }

    private static func bigEndian(_ address: BluetoothAddress) -> [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: address.value >> (40 - 8 * $0)) }
    }
}

extension SMPKey128 {
    static func ^ (lhs: SMPKey128, rhs: SMPKey128) -> SMPKey128 {
        SMPKey128(high: lhs.high ^ rhs.high, low: lhs.low ^ rhs.low)
    }

    /// The key reduced to `size` octets (§2.3.4): the most significant 16 − size octets zeroed.
    func masked(toKeySize size: Int) -> SMPKey128 {
        let bits = max(0, min(16, size)) * 8
        if bits >= 128 { return self }
        if bits <= 64 { return SMPKey128(high: 0, low: bits == 64 ? low : low & ((1 << UInt64(bits)) - 1)) }
        return SMPKey128(high: high & ((1 << UInt64(bits - 64)) - 1), low: low)
    }
}
