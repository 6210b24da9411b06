import BLEWire

/// AES-128 encryption of one block (FIPS-197), the security function e of Core 5.4 Vol 3
/// Part H §2.2.1 that HCI_LE_Encrypt exposes (Vol 4 Part E §7.8.22).
///
/// HCI carries keys and blocks least significant octet first; the most significant octet is
/// FIPS-197's byte 0, so `Key128.value`'s big-endian octets are the FIPS-197 byte order.
enum AES128 {
    static func encrypt(_ plaintext: HCI.Key128, key: HCI.Key128) -> HCI.Key128 {
        var state = bigEndianOctets(plaintext.value)
        let roundKeys = expand(bigEndianOctets(key.value))
        addRoundKey(&state, roundKeys, round: 0)
        for round in 1...10 {
            for i in 0..<16 { state[i] = sBox[Int(state[i])] }
            shiftRows(&state)
            if round < 10 { mixColumns(&state) }
            addRoundKey(&state, roundKeys, round: round)
        }
        var value: UInt128 = 0
        for octet in state { value = value << 8 | UInt128(octet) }
        return HCI.Key128(value)
    }

    private static func bigEndianOctets(_ value: UInt128) -> [UInt8] {
        (0..<16).map { UInt8(truncatingIfNeeded: value >> (8 * UInt128(15 - $0))) }
    }

    /// The 176 octets of the eleven round keys (FIPS-197 §5.2).
    private static func expand(_ key: [UInt8]) -> [UInt8] {
        var words = key
        var rcon: UInt8 = 1
        for i in 4..<44 {
            var t = Array(words[(4 * (i - 1))..<(4 * i)])
            if i % 4 == 0 {
                t = [sBox[Int(t[1])] ^ rcon, sBox[Int(t[2])], sBox[Int(t[3])], sBox[Int(t[0])]]
                rcon = times2(rcon)
            }
            for j in 0..<4 { words.append(words[4 * (i - 4) + j] ^ t[j]) }
        }
        return words
    }

    private static func addRoundKey(_ state: inout [UInt8], _ keys: [UInt8], round: Int) {
        for i in 0..<16 { state[i] ^= keys[16 * round + i] }
    }

    /// The state is column-major: byte r + 4c is row r, column c.
    private static func shiftRows(_ state: inout [UInt8]) {
        let copy = state
        for row in 1..<4 {
            for column in 0..<4 { state[row + 4 * column] = copy[row + 4 * ((column + row) % 4)] }
        }
    }

    private static func mixColumns(_ state: inout [UInt8]) {
        for column in 0..<4 {
            let a = Array(state[(4 * column)..<(4 * column + 4)])
            let b = a.map(times2)
            state[4 * column] = b[0] ^ a[3] ^ a[2] ^ b[1] ^ a[1]
            state[4 * column + 1] = b[1] ^ a[0] ^ a[3] ^ b[2] ^ a[2]
            state[4 * column + 2] = b[2] ^ a[1] ^ a[0] ^ b[3] ^ a[3]
            state[4 * column + 3] = b[3] ^ a[2] ^ a[1] ^ b[0] ^ a[0]
        }
    }

    private static func times2(_ x: UInt8) -> UInt8 { (x << 1) ^ (x & 0x80 != 0 ? 0x1B : 0) }

    /// The S-box computed from its definition (FIPS-197 §5.1.1): the multiplicative inverse in
    /// GF(2⁸) followed by the affine transformation.
    static let sBox: [UInt8] = {
        func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
            var (a, b, product): (UInt8, UInt8, UInt8) = (a, b, 0)
            while b != 0 {
                if b & 1 != 0 { product ^= a }
                a = times2(a)
                b >>= 1
            }
            return product
        }
        var box = [UInt8](repeating: 0, count: 256)
        for x in 0..<256 {
            var inverse: UInt8 = 0
            if x != 0 {
                for candidate in 1..<256 where multiply(UInt8(x), UInt8(candidate)) == 1 {
                    inverse = UInt8(candidate)
                    break
                }
            }
            var s = inverse
            for shift in 1...4 { s ^= (inverse << UInt8(shift)) | (inverse >> UInt8(8 - shift)) }
            box[x] = s ^ 0x63
        }
        return box
    }()
}
