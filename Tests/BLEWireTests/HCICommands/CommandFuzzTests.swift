import BLEWire
import PropertyBased
import Testing

@Suite("HCI command decoders never trap (Core 5.4 Vol 4 Part E §7)")
struct CommandFuzzTests {
    /// Decodes `bytes` with every entry's command and return-parameter decoders; anything
    /// accepted must re-encode to bytes that decode to the same encoding.
    private static func decodeWithEveryEntry(_ bytes: [UInt8]) {
        for entry in HCICommandTable.entries {
            if let command = try? entry.decode(bytes[...]) {
                let again = try? entry.decode(command.encoded[...])
                #expect(again?.encoded == command.encoded, "\(entry.name)")
            }
            if let decode = entry.decodeReturnParameters, let value = try? decode(bytes[...]) {
                let again = try? decode(value.encoded[...])
                #expect(again?.encoded == value.encoded, "\(entry.name)")
            }
        }
    }

    @Test("Random bytes through every command and return-parameter decoder of the table")
    func randomThroughTable() async {
        await propertyCheck(count: 1500, input: randomBytes) { bytes in
            Self.decodeWithEveryEntry(bytes)
        }
    }

    @Test("Random bytes behind a random opcode through the HCI command packet (§5.4.1)")
    func randomPackets() async {
        let opcodes = HCICommandTable.entries.map(\.opcode.rawValue)
        await propertyCheck(
            count: 3000, input: Gen.uint8().array(of: 0...80), Gen.int(in: 0...(opcodes.count - 1))
        ) {
            body, index in
            var bytes = [UInt8(truncatingIfNeeded: opcodes[index]), UInt8(opcodes[index] >> 8)]
            bytes.append(UInt8(body.count))
            bytes += body
            guard let packet = try? HCICommandPacket(decoding: bytes) else {
                Issue.record("a well-formed packet header was rejected")
                return
            }
            if let command = try? packet.decodeCommand() {
                #expect(command.packet.encoded.count == 3 + command.encoded.count)
            }
            _ = packet.description
        }
    }

    @Test("Mutated valid commands never trap and re-encode consistently")
    func mutatedSamples() async {
        let samples = CommandSamples.commands.map { (type(of: $0).opcode, $0.encoded) }
        await propertyCheck(
            count: 3000, input: Gen.int(in: 0...(samples.count - 1)), Gen.uint8(), Gen.int(in: 0...300)
        ) { index, value, position in
            let (opcode, original) = samples[index]
            guard !original.isEmpty, let entry = HCICommandTable.entry(for: opcode) else { return }
            var bytes = original
            bytes[position % bytes.count] = value
            if let command = try? entry.decode(bytes[...]) {
                let again = try? entry.decode(command.encoded[...])
                #expect(again?.encoded == command.encoded, "\(entry.name)")
            }
        }
    }

    @Test("Random bytes never trap the shared parameter types")
    func sharedTypes() async {
        await propertyCheck(count: 3000, input: randomBytes) { bytes in
            expectNoTrap(HCISupportedCommands.self, bytes)
            expectNoTrap(HCI.ConnectionParameters.self, bytes)
            expectNoTrap(HCI.ScanningPHYParameters.self, bytes)
            expectNoTrap(HCI.InitiatingPHYParameters.self, bytes)
            expectNoTrap(HCI.LESetExtendedAdvertisingEnable.self, bytes)
            expectNoTrap(HCI.LESetExtendedScanParameters.self, bytes)
            expectNoTrap(HCI.LEExtendedCreateConnection.self, bytes)
            expectNoTrap(HCI.LESetExtendedAdvertisingData.self, bytes)
            expectNoTrap(HCI.LESetAdvertisingData.self, bytes)
            expectNoTrap(HCI.ReadLocalVersionInformation.ReturnParameters.self, bytes)
        }
    }
}
