import BLEWire
import PropertyBased
import Testing

@Suite("SMP 128- and 256-bit values (Core 5.4 Vol 3 Part H §3.1, §2.2)")
struct SMPKeyTests {
    @Test("§2.2.3 sample r prints most significant first and goes on the wire least significant first")
    func sampleOrientation() throws {
        // Core 5.4 Vol 3 Part H §2.2.3: r = 0x5783D52156AD6F0E6388274EC6702EE0.
        let r = try #require(SMPKey128(hex: "5783D52156AD6F0E6388274EC6702EE0"))
        #expect(r.high == 0x5783_D521_56AD_6F0E)
        #expect(r.low == 0x6388_274E_C670_2EE0)
        #expect(r.description == "0x5783d52156ad6f0e6388274ec6702ee0")
        #expect(r.littleEndianBytes == hex("e0 2e 70 c6 4e 27 88 63 0e 6f ad 56 21 d5 83 57"))
        #expect(SMPKey128(littleEndian: r.littleEndianBytes) == r)
        var reader = ByteReader(r.littleEndianBytes)
        #expect(try SMPKey128(from: &reader, field: "r") == r)
    }

    @Test("§2.3.5.6.1 debug public key X: 256-bit value, least significant octet first on the wire")
    func debugKeyOrientation() throws {
        let x = try #require(
            SMPKey256(hex: "20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6"))
        #expect(x.word3 == 0x20b0_03d2_f297_be2c)
        #expect(x.word0 == 0xcc03_0148_0e35_9de6)
        #expect(Array(x.littleEndianBytes.prefix(8)) == hex("e6 9d 35 0e 48 01 03 cc"))
        #expect(Array(x.littleEndianBytes.suffix(4)) == hex("d2 03 b0 20"))
        #expect(x.hex == "20b003d2f297be2c5e2c83a7e9f9a5b9eff49111acf4fddbcc0301480e359de6")
        #expect(SMPKey256(littleEndian: x.littleEndianBytes) == x)
    }

    @Test("Hex parsing accepts separators and 0x, rejects wrong lengths and non-hex")
    func parsing() {
        #expect(SMPKey128(hex: "0x00000000_00000000_00000000_00000001") == SMPKey128(high: 0, low: 1))
        #expect(SMPKey128(hex: "0011223344556677 8899aabbccddeeff")?.low == 0x8899_AABB_CCDD_EEFF)
        #expect(SMPKey128(hex: "00112233") == nil)
        #expect(SMPKey128(hex: "00112233445566778899aabbccddeeff00") == nil)
        #expect(SMPKey128(hex: "g0112233445566778899aabbccddeeff") == nil)
        #expect(SMPKey256(hex: "5783D52156AD6F0E6388274EC6702EE0") == nil)
        #expect(SMPKey128(littleEndian: [UInt8](repeating: 0, count: 15)) == nil)
        #expect(SMPKey256(littleEndian: [UInt8](repeating: 0, count: 33)) == nil)
    }

    @Test("A truncated key is a typed error naming the field")
    func truncated() {
        var reader = ByteReader([UInt8](repeating: 1, count: 15), context: "test")
        #expect(
            throws: DecodeError(
                context: "test", field: "LTK", offset: 0, reason: .truncated(needed: 16, available: 15))
        ) {
            try SMPKey128(from: &reader, field: "LTK")
        }
        var short = ByteReader([UInt8](repeating: 1, count: 31), context: "test")
        #expect(
            throws: DecodeError(
                context: "test", field: "X", offset: 0, reason: .truncated(needed: 32, available: 31))
        ) {
            try SMPKey256(from: &short, field: "X")
        }
    }

    @Test("Keys are hashable values: equal keys collapse in a set, distinct ones do not")
    func hashable() {
        let a = SMPKey128(high: 1, low: 2)
        let b = SMPKey128(high: 2, low: 1)
        #expect(Set([a, a, b]).count == 2)
        #expect(a < b)
        let k = SMPKey256(word3: 1, word2: 0, word1: 0, word0: 0)
        #expect(Set([k, k, .zero]).count == 2)
    }

    @Test("Random 128- and 256-bit values round-trip through text and wire")
    func randomRoundTrip() async {
        await propertyCheck(input: Gen.uint64(), Gen.uint64()) { high, low in
            let key = SMPKey128(high: high, low: low)
            #expect(SMPKey128(hex: key.hex) == key)
            #expect(SMPKey128(littleEndian: key.littleEndianBytes) == key)
            let wide = SMPKey256(word3: low, word2: high, word1: ~low, word0: ~high)
            #expect(SMPKey256(hex: wide.hex) == wide)
            #expect(SMPKey256(littleEndian: wide.littleEndianBytes) == wide)
        }
    }
}
