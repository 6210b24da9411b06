import BLEWire
import Testing

@Suite("HCI Event packet (Core 5.4 Vol 4 Part E §5.4.4)")
struct HCIEventPacketTests {
    @Test("§5.4.4: code, Parameter_Total_Length and parameters; the parameters share the input")
    func packetLayout() throws {
        let bytes = hex("0e 04 01 03 0c 00")
        let packet = try HCIEventPacket(decoding: bytes)
        #expect(packet.eventCode == .commandComplete)
        #expect(packet.parameters == [0x01, 0x03, 0x0C, 0x00])
        #expect(packet.parameters.startIndex == 2)
        #expect(packet.encoded == bytes)
        #expect(try packet.decodeEvent() == HCIEvent(decoding: bytes))
        try expectRoundTrip(packet)
    }

    @Test("§5.4.4: Parameter_Total_Length must equal the octets present, in both directions")
    func lengthMismatch() {
        expectDecodeError(
            HCIEventPacket.self, hex("05 04 00 40 00"), .lengthMismatch(declared: 4, actual: 3),
            field: "Parameter_Total_Length")
        expectDecodeError(
            HCIEventPacket.self, hex("05 03 00 40 00 13"), .lengthMismatch(declared: 3, actual: 4),
            field: "Parameter_Total_Length")
        expectDecodeError(
            HCIEvent.self, hex("05 04 00 40 00"), .lengthMismatch(declared: 4, actual: 3),
            field: "Parameter_Total_Length")
        expectDecodeError(
            HCIEvent.self, hex("05 03 00 40 00 13"), .lengthMismatch(declared: 3, actual: 4),
            field: "Parameter_Total_Length")
    }

    @Test("§5.4.4: a header cut short is a typed error")
    func truncatedHeader() {
        expectDecodeError(HCIEvent.self, [], .truncated(needed: 1, available: 0), field: "Event_Code")
        expectDecodeError(
            HCIEvent.self, [0x0E], .truncated(needed: 1, available: 0), field: "Parameter_Total_Length")
        expectDecodeError(
            HCIEventPacket.self, [0x0E], .truncated(needed: 1, available: 0), field: "Parameter_Total_Length")
    }

    @Test("§7.7: unknown and vendor-specific (0xFF) events are kept raw, never an error")
    func unknownEventsKeptRaw() throws {
        let vendor = try HCIEvent(decoding: hex("ff 03 01 02 03"))
        #expect(vendor == .unknown(code: 0xFF, parameters: [0x01, 0x02, 0x03]))
        #expect(vendor.code == 0xFF)
        #expect(vendor.encoded == hex("ff 03 01 02 03"))
        #expect(vendor.description == "unknown { code: Vendor Specific (0xFF), parameters: 010203 }")
        // BR/EDR Connection Complete (0x03) is not decoded by this version: kept raw. Fields from an
        // hcidump trace: "status 0x00 handle 42 bdaddr 00:0D:3C:37:46:22 type ACL encrypt 0x00".
        let classic = try HCIEvent(decoding: hex("03 0b 00 2a 00 22 46 37 3c 0d 00 01 00"))
        guard case .unknown(let code, let parameters) = classic else {
            Issue.record("expected .unknown, got \(classic)")
            return
        }
        #expect(code == 0x03)
        #expect(parameters.count == 11)
        #expect(HCIEvent.Code(code).name == "Connection Complete")
        #expect(HCIEvent.Code(0x01).description == "Inquiry Complete (0x01)")
        #expect(HCIEvent.Code(0x24).description == "Unknown Event (0x24)")
        #expect(HCIEvent.Code.vendorSpecific.name == "Vendor Specific")
        try expectRoundTrip(HCIEvent.unknown(code: 0x24, parameters: []))
    }

    @Test("§7.7: octets after the known parameters (later versions) are ignored")
    func trailingParametersIgnored() throws {
        // Disconnection Complete with two octets a later version might append.
        let event = try HCIEvent(decoding: hex("05 06 00 40 00 13 aa bb"))
        #expect(
            event
                == .disconnectionComplete(
                    .init(status: .success, connectionHandle: 0x0040, reason: .remoteUserTerminatedConnection)
                ))
        #expect(event.encoded == hex("05 04 00 40 00 13"))
        // The payload type on its own, like every init(decoding:), rejects them.
        expectDecodeError(
            HCIEvent.DisconnectionComplete.self, hex("00 40 00 13 aa"), .trailingBytes(count: 1),
            field: "end of packet")
    }

    @Test("Decoding from a packet, from code and parameters, and from the bytes agree")
    func entryPointsAgree() throws {
        let bytes = hex("3e 0b 07 00 00 fb 00 48 08 1b 00 48 01")
        let fromBytes = try HCIEvent(decoding: bytes)
        let packet = try HCIEventPacket(decoding: bytes)
        #expect(try HCIEvent(packet) == fromBytes)
        #expect(try HCIEvent(code: 0x3E, parameters: bytes[2...]) == fromBytes)
        #expect(fromBytes.packet == packet)
        var writer = ByteWriter()
        fromBytes.encodeParameters(into: &writer)
        #expect(writer.bytes[...] == bytes[2...])
    }

    @Test("A packet renders as its typed event, or with the error when it does not decode")
    func packetRendering() throws {
        let good = try HCIEventPacket(decoding: hex("10 01 42"))
        #expect(good.description == "hardwareError { hardwareCode: 66 }")
        let bad = HCIEventPacket(eventCode: .disconnectionComplete, parameters: [0x00])
        #expect(bad.description.hasPrefix("Disconnection Complete { error: "))
        #expect(bad.description.contains("Connection_Handle"))
        #expect(bad.json.contains("\"parameters\":\"00\""))
    }
}
