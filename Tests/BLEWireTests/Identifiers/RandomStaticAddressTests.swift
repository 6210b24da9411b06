import BLEWire
import Testing

/// Hands out the values it was given, in order.
private struct ScriptedGenerator: RandomNumberGenerator {
    var values: [UInt64]
    private(set) var draws = 0

    init(_ values: [UInt64]) { self.values = values }

    mutating func next() -> UInt64 {
        defer { draws += 1 }
        return values[draws]
    }
}

@Suite("Random static address factory (Core 5.4 Vol 6 Part B §1.3.2.1)")
struct RandomStaticAddressTests {
    @Test("The top two bits are set over the low 46 bits drawn; the rest of the draw is dropped")
    func form() {
        var generator = ScriptedGenerator([0xFFFF_1234_5678_9ABC])
        let address = BluetoothAddress.randomStatic(using: &generator)
        #expect(address == BluetoothAddress(0xD234_5678_9ABC))
        #expect(address.topBits == 0b11)
        #expect(LEAddress(address, type: .random).kind == .randomStatic)
        #expect(generator.draws == 1)
    }

    @Test("Random parts of all zeros or all ones are drawn again")
    func rejectsAllZerosAndAllOnes() {
        // 0xC000_0000_0000 and 0xFFFF_FFFF_FFFF have random parts of all zeros and all ones.
        var generator = ScriptedGenerator([0xC000_0000_0000, 0x3FFF_FFFF_FFFF, 0x0000_0000_0001])
        let address = BluetoothAddress.randomStatic(using: &generator)
        #expect(address == BluetoothAddress(0xC000_0000_0001))
        #expect(generator.draws == 3)
    }

    @Test("The same generator state gives the same address")
    func deterministic() {
        var first = ScriptedGenerator([0x0123_4567_89AB_CDEF])
        var second = first
        #expect(BluetoothAddress.randomStatic(using: &first) == BluetoothAddress.randomStatic(using: &second))
        var system = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let address = BluetoothAddress.randomStatic(using: &system)
            #expect(address.topBits == 0b11)
            #expect(address.value & 0x3FFF_FFFF_FFFF != 0 && address.value & 0x3FFF_FFFF_FFFF != 0x3FFF_FFFF_FFFF)
        }
    }
}
