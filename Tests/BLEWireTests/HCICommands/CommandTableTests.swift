import BLEWire
import Testing

@Suite("HCI command table (Core 5.4 Vol 4 Part E §7)")
struct CommandTableTests {
    /// The commands that the specification completes with Command Status followed by their own
    /// event; every other command in the table returns Command Complete.
    static let statusCommands: Set<UInt16> = [
        HCI.Disconnect.opcode.rawValue,  // §7.1.6: Disconnection Complete
        HCI.ReadRemoteVersionInformation.opcode.rawValue,  // §7.1.23
        HCI.LECreateConnection.opcode.rawValue,  // §7.8.12
        HCI.LEConnectionUpdate.opcode.rawValue,  // §7.8.18
        HCI.LEReadRemoteFeatures.opcode.rawValue,  // §7.8.21
        HCI.LEEnableEncryption.opcode.rawValue,  // §7.8.24
        HCI.LEReadLocalP256PublicKey.opcode.rawValue,  // §7.8.36
        HCI.LEGenerateDHKey.opcode.rawValue,  // §7.8.37
        HCI.LESetPHY.opcode.rawValue,  // §7.8.49
        HCI.LEExtendedCreateConnection.opcode.rawValue,  // §7.8.66
    ]

    @Test("Opcodes and names are unique, and each entry describes its own type")
    func uniqueness() {
        let entries = HCICommandTable.entries
        #expect(Set(entries.map(\.opcode)).count == entries.count)
        #expect(Set(entries.map(\.name)).count == entries.count)
        for entry in entries {
            #expect(entry.type.opcode == entry.opcode, "\(entry.name)")
            #expect(entry.type.name == entry.name)
            #expect(entry.type.completion == entry.completion, "\(entry.name)")
            #expect(HCICommandTable.entry(for: entry.opcode)?.name == entry.name)
            #expect(entry.opcode.name == entry.name)
            #expect(!entry.name.hasPrefix("HCI"), "names drop the HCI_ prefix: \(entry.name)")
            // LE commands live in OGF 0x08 and nowhere else.
            #expect(
                entry.name.hasPrefix("LE ") == (entry.opcode.ogf == HCIOpcode.leController), "\(entry.name)")
        }
        #expect(entries.count >= 80)
    }

    @Test("Completion kinds match the specification (§7: which event completes each command)")
    func completionKinds() {
        for entry in HCICommandTable.entries {
            let expected: HCICommandCompletion =
                Self.statusCommands.contains(entry.opcode.rawValue) ? .commandStatus : .commandComplete
            #expect(entry.completion == expected, "\(entry.name)")
            #expect((entry.decodeReturnParameters != nil) == (expected == .commandComplete), "\(entry.name)")
        }
        #expect(HCI.LECreateConnectionCancel.completion == .commandComplete)
        #expect(HCI.LELongTermKeyRequestReply.completion == .commandComplete)
        #expect(HCI.LERemoteConnectionParameterRequestReply.completion == .commandComplete)
        #expect(HCI.LESetExtendedAdvertisingEnable.completion == .commandComplete)
        #expect(HCI.Disconnect.completion == .commandStatus)
    }

    @Test("Every entry decodes its own encoding of a sample through the table")
    func entriesDecodeOwnEncoding() throws {
        for command in CommandSamples.commands {
            let opcode = type(of: command).opcode
            let entry = try #require(HCICommandTable.entry(for: opcode))
            let decoded = try entry.decode(command.encoded[...])
            #expect(type(of: decoded).opcode == opcode)
            #expect(decoded.encoded == command.encoded, "\(entry.name)")
        }
    }

    @Test("An opcode outside the table is kept raw, not dropped (§5.4.1)")
    func unknownOpcode() throws {
        let packet = try HCICommandPacket(decoding: hex("01 fc 03 aa bb cc"))
        #expect(try packet.decodeCommand() == nil)
        #expect(packet.opcode.ogf == HCIOpcode.vendorSpecific)
        #expect(packet.parameters == [0xAA, 0xBB, 0xCC])
        #expect(packet.encoded == hex("01 fc 03 aa bb cc"))
        #expect(packet.description.hasPrefix("Unknown Command"))
    }
}

@Suite("Supported_Commands bitmap (Core 5.4 Vol 4 Part E §6.27)")
struct SupportedCommandsTests {
    @Test("Every command in the table except Read Local Supported Commands has its own bit")
    func everyCommandHasABit() {
        var positions = Set<Int>()
        for entry in HCICommandTable.entries {
            guard let position = HCISupportedCommands.bitPosition(of: entry.opcode) else {
                #expect(entry.opcode == HCI.ReadLocalSupportedCommands.opcode, "\(entry.name) has no bit")
                continue
            }
            #expect((0..<64).contains(position.octet) && (0..<8).contains(position.bit))
            #expect(
                positions.insert(position.octet * 8 + position.bit).inserted, "\(entry.name) shares a bit")
        }
        #expect(positions.count == HCICommandTable.entries.count - 1)
    }

    @Test("Bits sit where the §6.27 table puts them")
    func knownPositions() {
        func position(_ opcode: HCIOpcode) -> Int? {
            HCISupportedCommands.bitPosition(of: opcode).map { $0.octet * 8 + $0.bit }
        }
        #expect(position(HCI.Disconnect.opcode) == 0 * 8 + 5)
        #expect(position(HCI.Reset.opcode) == 5 * 8 + 7)
        #expect(position(HCI.SetEventMask.opcode) == 5 * 8 + 6)
        #expect(position(HCI.ReadBDADDR.opcode) == 15 * 8 + 1)
        #expect(position(HCI.LESetEventMask.opcode) == 25 * 8 + 0)
        #expect(position(HCI.LESetScanEnable.opcode) == 26 * 8 + 3)
        #expect(position(HCI.LECreateConnection.opcode) == 26 * 8 + 4)
        #expect(position(HCI.LEReadSupportedStates.opcode) == 28 * 8 + 3)
        #expect(position(HCI.LESetDataLength.opcode) == 33 * 8 + 6)
        #expect(position(HCI.LESetPHY.opcode) == 35 * 8 + 6)
        #expect(position(HCI.LEExtendedCreateConnection.opcode) == 37 * 8 + 7)
        #expect(position(HCI.LESetPrivacyMode.opcode) == 39 * 8 + 2)
        #expect(position(HCI.LEReadBufferSizeV2.opcode) == 41 * 8 + 5)
        #expect(position(HCI.LESetExtendedAdvertisingParametersV2.opcode) == 46 * 8 + 2)
        #expect(position(HCI.ReadLocalSupportedCommands.opcode) == nil)
        #expect(position(HCIOpcode(rawValue: 0xFC01)) == nil)
    }

    @Test("A bitmap built from opcodes lists exactly those commands and encodes 64 octets")
    func fromOpcodes() throws {
        let opcodes = [HCI.Reset.opcode, HCI.LESetScanEnable.opcode, HCI.ReadLocalSupportedCommands.opcode]
        let bitmap = HCISupportedCommands(opcodes: opcodes)
        #expect(bitmap.contains(HCI.Reset.opcode))
        #expect(bitmap.contains(HCI.LESetScanEnable.opcode))
        #expect(!bitmap.contains(HCI.LESetScanParameters.opcode))
        #expect(!bitmap.contains(HCI.ReadLocalSupportedCommands.opcode))
        #expect(bitmap.supportedOpcodes == [HCI.Reset.opcode, HCI.LESetScanEnable.opcode])
        var expected = [UInt8](repeating: 0, count: 64)
        expected[5] = 0x80
        expected[26] = 0x08
        #expect(bitmap.encoded == expected)
        #expect(bitmap.octets == expected)
        #expect(try HCISupportedCommands(decoding: expected) == bitmap)
        #expect(HCISupportedCommands(octets: expected) == bitmap)
        #expect(HCISupportedCommands(octets: expected.dropLast()) == nil)
    }

    @Test("All table commands: contains() agrees with the table, unknown bits are kept")
    func allCommands() throws {
        var bitmap = HCISupportedCommands.allInTable
        #expect(bitmap.supportedOpcodes.count == HCICommandTable.entries.count - 1)
        for entry in HCICommandTable.entries where entry.opcode != HCI.ReadLocalSupportedCommands.opcode {
            #expect(bitmap.contains(entry.opcode), "\(entry.name)")
        }
        // Octet 0 bit 0 is HCI_Inquiry, which this version does not implement: kept as received.
        bitmap.set(octet: 0, bit: 0)
        let decoded = try HCISupportedCommands(decoding: bitmap.encoded)
        #expect(decoded.isSet(octet: 0, bit: 0))
        #expect(decoded == bitmap)
        #expect(Rendering.text(decoded).contains("octet 0 bit 0"))
        bitmap.remove(HCI.Reset.opcode)
        #expect(!bitmap.contains(HCI.Reset.opcode))
        #expect(!bitmap.isSet(octet: 64, bit: 0))
        #expect(!bitmap.isSet(octet: -1, bit: 0))
    }

    @Test("A truncated bitmap is rejected naming Supported_Commands")
    func truncated() {
        expectDecodeError(
            HCISupportedCommands.self, [UInt8](repeating: 0xFF, count: 63),
            .truncated(needed: 64, available: 63),
            field: "Supported_Commands")
        expectDecodeError(
            HCI.ReadLocalSupportedCommands.ReturnParameters.self, [0x00] + [UInt8](repeating: 0, count: 10),
            .truncated(needed: 64, available: 10), field: "Supported_Commands")
    }
}
