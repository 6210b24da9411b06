import BLEWire
import Testing

@Suite("HCI Command Complete and Command Status events (Core 5.4 Vol 4 Part E §7.7.14, §7.7.15)")
struct CommandEventTests {
    @Test("§7.7.14: Command Complete for HCI_Reset, as every controller answers it")
    func resetCommandComplete() throws {
        // `0e 04 01 03 0c 00` follows the H4 indicator 0x04 in any btmon/Wireshark trace of a
        // controller reset (e.g. "> HCI Event: Command Complete (0x0e) plen 4 / Reset ncmd 1").
        let bytes = hex("0e 04 01 03 0c 00")
        let event = try HCIEvent(decoding: bytes)
        guard case .commandComplete(let complete) = event else {
            Issue.record("expected Command Complete, got \(event)")
            return
        }
        #expect(complete.numHCICommandPackets == 1)
        #expect(complete.opcode == HCI.Reset.opcode)
        #expect(complete.opcode.rawValue == 0x0C03)
        #expect(complete.status == .success)
        #expect(complete.returnParameters == [0x00])
        #expect(
            try complete.returnParameters(for: HCI.Reset.self) == HCI.StatusReturnParameters(status: .success)
        )
        #expect(event.encoded == bytes)
        #expect(
            event.description
                == "commandComplete { numHCICommandPackets: 1, opcode: Reset (0x0C03), "
                + "returnParameters: { status: Success (0x00) } }")
    }

    @Test("§7.7.14: encoding from the command type and typed return parameters")
    func encodeFromTypedReturnParameters() throws {
        let complete = HCIEvent.CommandComplete(
            HCI.Reset.self, numHCICommandPackets: 5, returnParameters: .init(status: .success))
        #expect(HCIEvent.commandComplete(complete).encoded == hex("0e 04 05 03 0c 00"))
        try expectRoundTrip(HCIEvent.commandComplete(complete))
        try expectRoundTrip(complete)
    }

    @Test("§7.7.14: a failed command renders its status and raw return parameters")
    func failedCommandRendering() throws {
        let event = try HCIEvent(decoding: hex("0e 04 01 03 0c 0c"))
        guard case .commandComplete(let complete) = event else {
            Issue.record("expected Command Complete")
            return
        }
        #expect(complete.status == .commandDisallowed)
        #expect(
            event.description
                == "commandComplete { numHCICommandPackets: 1, opcode: Reset (0x0C03), "
                + "status: Command Disallowed (0x0C), returnParameters: 0c }")
    }

    @Test("§7.7.14: an opcode missing from the command table renders status and raw octets")
    func unknownOpcodeRendering() throws {
        // A vendor-specific opcode (OGF 0x3F, OCF 0x0001) answered with status and three octets.
        let event = try HCIEvent(decoding: hex("0e 07 05 01 fc 00 11 22 33"))
        guard case .commandComplete(let complete) = event else {
            Issue.record("expected Command Complete")
            return
        }
        #expect(complete.opcode.rawValue == 0xFC01)
        #expect(complete.status == .success)
        #expect(complete.returnParameters == [0x00, 0x11, 0x22, 0x33])
        #expect(event.description.contains("status: Success (0x00), returnParameters: 00112233"))
    }

    @Test("§7.4.1: Read Local Version Information return parameters render typed")
    func knownOpcodeRendering() throws {
        // Read Local Version Information (0x1001) from a btmon trace of a CSR 4.0 dongle:
        // ncmd 5, HCI version 0x06 revision 0x0709, LMP 0x06, manufacturer 10, subversion 0x0709.
        let event = try HCIEvent(decoding: hex("0e 0c 05 01 10 00 06 09 07 06 0a 00 09 07"))
        guard case .commandComplete(let complete) = event else {
            Issue.record("expected Command Complete")
            return
        }
        let typed = try complete.returnParameters(for: HCI.ReadLocalVersionInformation.self)
        #expect(typed.status == .success)
        #expect(event.description.contains("Read Local Version Information"))
        #expect(!event.description.contains("00060907060a000907"))
    }

    @Test("§7.7.14: opcode 0x0000 carries only a command credit; status is nil")
    func noOperationCredit() throws {
        let event = try HCIEvent(decoding: hex("0e 03 01 00 00"))
        guard case .commandComplete(let complete) = event else {
            Issue.record("expected Command Complete")
            return
        }
        #expect(complete.opcode.rawValue == 0)
        #expect(complete.status == nil)
        #expect(complete.returnParameters.isEmpty)
        #expect(event.description.contains("returnParameters: []"))
        #expect(!event.description.contains("status"))
        try expectRoundTrip(event)
    }

    @Test("§7.7.14: typed return parameters of another command's completion are a typed error")
    func opcodeMismatch() throws {
        let complete = HCIEvent.CommandComplete(
            opcode: HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x000C), returnParameters: [0x00])
        #expect(
            throws: DecodeError(
                context: "HCI Command Complete event", field: "Command_Opcode", offset: 1,
                reason: .invalidValue(0x200C))
        ) {
            try complete.returnParameters(for: HCI.Reset.self)
        }
    }

    @Test("§7.7.14: missing return parameters are a typed error from the typed accessor")
    func missingReturnParameters() {
        let complete = HCIEvent.CommandComplete(opcode: HCI.Reset.opcode, returnParameters: [])
        do {
            _ = try complete.returnParameters(for: HCI.Reset.self)
            Issue.record("expected an error")
        } catch {
            #expect(error.reason == .truncated(needed: 1, available: 0))
            #expect(error.field.description == "Status")
        }
    }

    @Test("§7.7.14: the fixed header fields must be present")
    func commandCompleteTruncated() {
        expectDecodeError(
            HCIEvent.self, hex("0e 00"), .truncated(needed: 1, available: 0), field: "Num_HCI_Command_Packets"
        )
        expectDecodeError(
            HCIEvent.self, hex("0e 02 01 03"), .truncated(needed: 2, available: 1), field: "Command_Opcode")
    }

    @Test("§7.7.15: Command Status from a real LE Create Connection trace")
    func commandStatusVector() throws {
        // btmon: "> HCI Event: Command Status (0x0f) plen 4 / LE Create Connection (0x08|0x000d)
        // ncmd 1 / Status: Success (0x00)", laid out per §7.7.15.
        let bytes = hex("0f 04 00 01 0d 20")
        let event = try HCIEvent(decoding: bytes)
        let expected = HCIEvent.CommandStatus(
            status: .success, numHCICommandPackets: 1,
            opcode: HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x000D))
        #expect(event == .commandStatus(expected))
        #expect(event.encoded == bytes)
        try expectRoundTrip(expected)
    }

    @Test("§7.7.15: Command Status built from a command type; truncation is a typed error")
    func commandStatusFromType() throws {
        let status = HCIEvent.CommandStatus(HCI.Reset.self, status: .unknownHCICommand)
        #expect(HCIEvent.commandStatus(status).encoded == hex("0f 04 01 01 03 0c"))
        expectDecodeError(
            HCIEvent.self, hex("0f 03 00 01 0d"), .truncated(needed: 2, available: 1), field: "Command_Opcode"
        )
    }
}
