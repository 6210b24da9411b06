import BLECompanion
import Testing

/// Decoders of untrusted files never trap: valid samples of every format, mutated by a seeded
/// generator (bytes flipped, cut, inserted, removed), give a recognised file or a typed error.
@Suite("Firmware files: mutated samples never trap")
struct FirmwareMutationTests {
    typealias S = FirmwareSamples

    /// SplitMix64: a fixed seed gives the same mutations on every run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let samples: [(String, [UInt8])] = {
        var protected = S.MCUboot()
        protected.protectedTLVs = [(0x50, [1, 0, 0, 0])]
        protected.image = S.payload(400)
        var small = S.MCUboot()
        small.image = S.payload(300)
        small.headerSize = 32
        return [
            ("Intel HEX", Array(S.intelHex(S.payload(300), at: 0x0800_FF80).utf8)),
            ("MCUboot", small.bytes),
            ("MCUboot with protected TLVs", protected.bytes),
            ("DFU package", S.dfuPackage(application: S.payload(600), softdeviceBootloader: S.payload(100))),
            ("DFU package, stored manifest", S.dfuPackage(application: S.payload(300), deflateManifest: false)),
        ]
    }()

    static func mutate(_ bytes: [UInt8], with generator: inout Generator) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            guard !bytes.isEmpty else { break }
            let index = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<5, using: &generator) {
            case 0: bytes[index] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            case 1: bytes[index] = UInt8.random(in: 0...255, using: &generator)
            case 2: bytes.removeSubrange(index...)
            case 3: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: index)
            default: bytes.remove(at: index)
            }
        }
        return bytes
    }

    @Test(
        "400 seeded mutations of each sample: a result or a typed error, and a result keeps its promises",
        arguments: 0..<5)
    func mutations(sample: Int) {
        let (name, bytes) = Self.samples[sample]
        var generator = Generator(state: UInt64(sample) &+ 16)
        var recognised = 0
        var refused = 0
        for _ in 0..<400 {
            let mutated = Self.mutate(bytes, with: &generator)
            do {
                let file = try FirmwareFile.recognize(bytes: mutated, fileName: "mutant-1.0.0.bin")
                recognised += 1
                #expect(file.image.size > 0)
                if case .mcuboot(let image) = file.contents { #expect(image.hashVerified || image.isEncrypted) }
            } catch {
                refused += 1
                #expect(!error.description.isEmpty)
            }
        }
        #expect(recognised + refused == 400, "\(name)")
        // Most mutations of a checked format are caught (a flip inside a HEX record's data fails
        // its checksum, inside an MCUboot image the hash, inside a zip entry its CRC).
        #expect(refused > 200, "\(name): only \(refused) of 400 mutations refused")
    }
}
