import BLE
import BLECompanion
import BLESimulation
import Testing

@Suite("CRC-32 (IEEE 802.3)")
struct CRC32Tests {
    @Test("The standard check value: \"123456789\" gives 0xCBF43926")
    func checkValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test("Known vectors: empty input, one zero byte, the pangram")
    func knownVectors() {
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32.checksum([0x00]) == 0xD202_EF8D)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }

    @Test("Fed in pieces equals fed at once")
    func incremental() {
        var generator = SeededRandomGenerator(seed: 7)
        for _ in 0..<50 {
            let bytes = (0..<Int.random(in: 0...300, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            let cut = Int.random(in: 0...bytes.count, using: &generator)
            var crc = CRC32()
            crc.update(bytes[..<cut])
            crc.update(bytes[cut...])
            #expect(crc.value == CRC32.checksum(bytes))
        }
    }

    @Test("A single flipped bit changes the checksum")
    func detectsBitFlips() {
        var generator = SeededRandomGenerator(seed: 11)
        let bytes = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let reference = CRC32.checksum(bytes)
        for index in bytes.indices {
            for bit in 0..<8 {
                var flipped = bytes
                flipped[index] ^= 1 << bit
                #expect(CRC32.checksum(flipped) != reference)
            }
        }
    }
}

