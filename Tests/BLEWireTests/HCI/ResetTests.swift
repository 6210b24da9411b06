import BLEWire
import Testing

@Suite("HCI Reset (Core 5.4 Vol 4 Part E §7.3.2)")
struct ResetTests {
    @Test("Reset encodes as opcode 0x0C03 with no parameters")
    func encoding() throws {
        #expect(HCI.Reset().packet.encoded == [0x03, 0x0C, 0x00])
        let packet = try HCICommandPacket(decoding: [0x03, 0x0C, 0x00])
        #expect(try packet.decodeCommand() is HCI.Reset)
        #expect(HCI.Reset.completion == .commandComplete)
    }

    @Test("Parameter_Total_Length must match the octets present")
    func lengthMismatch() {
        expectDecodeError(
            HCICommandPacket.self, [0x03, 0x0C, 0x02, 0x00], .lengthMismatch(declared: 2, actual: 1),
            field: "Parameter_Total_Length")
    }
}
