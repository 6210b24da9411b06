import BLEWire
import PropertyBased
import Testing

@Suite("HCI packets from H4 (Core 5.4 Vol 4 Part A §2, Vol 4 Part E §5.4)")
struct HCIPacketTests {
    @Test("An H4 event decodes to a typed event and renders it")
    func event() throws {
        let packet = try HCIPacket(h4: hex("04 0e 04 01 03 0c 00"))
        guard case .event(.commandComplete(let complete)) = packet else {
            Issue.record("expected Command Complete, got \(packet)")
            return
        }
        #expect(complete.opcode == HCI.Reset.opcode)
        #expect(complete.status == .success)
        #expect(packet.description.hasPrefix("event.commandComplete {"))
        #expect(packet.h4.encoded == hex("04 0e 04 01 03 0c 00"))
    }

    @Test("An H4 command decodes through the command table")
    func command() throws {
        let packet = try HCIPacket(h4: hex("01 0c 20 02 01 00"))
        guard case .command(let command) = packet else {
            Issue.record("expected a command")
            return
        }
        #expect(command.opcode == HCI.LESetScanEnable.opcode)
        #expect(try command.decodeCommand() as? HCI.LESetScanEnable == HCI.LESetScanEnable(leScanEnable: true))
        #expect(packet.description.hasPrefix("command.LE Set Scan Enable {"))
    }

    @Test("ACL carrying a whole L2CAP PDU renders down to the ATT PDU (Vol 3 Part A §3.1)")
    func aclDecodesToATT() throws {
        let packet = try HCIPacket(h4: hex("02 40 00 07 00 03 00 04 00 02 f7 00"))
        #expect(packet.description.contains("channel: ATT (0x0004)"))
        #expect(packet.description.contains("att.exchangeMTURequest { clientRxMTU: 247 }"))
        #expect(packet.json.contains("\"pdu\":{\"type\":\"att.exchangeMTURequest\",\"clientRxMTU\":247}"))
    }

    @Test("A start fragment of a longer PDU and a continuation render as such, not as errors")
    func fragments() throws {
        let start = try HCIPacket(h4: hex("02 40 00 05 00 07 00 04 00 02"))
        #expect(start.description.contains("start fragment of a 7-octet PDU on ATT (0x0004)"))
        let continuation = try HCIPacket(h4: hex("02 40 10 02 00 f7 00"))
        #expect(continuation.description.contains("continuation fragment (2 octets)"))
    }

    @Test("SMP and LE signalling channels decode by channel ID (Vol 3 Part A §2.1)")
    func otherChannels() throws {
        let smp = try HCIPacket(h4: hex("02 40 00 0b 00 07 00 06 00 01 03 00 01 10 07 07"))
        #expect(smp.description.contains("smp.pairingRequest"))
        let signal = try HCIPacket(h4: hex("02 40 00 10 00 0c 00 05 00 12 01 08 00 06 00 0c 00 00 00 c8 00"))
        #expect(signal.description.contains("connectionParameterUpdateRequest"))
    }

    @Test("A malformed PDU inside a well-formed ACL packet renders the typed error")
    func malformedInner() throws {
        // ATT Exchange MTU Request cut to one octet of its two.
        let packet = try HCIPacket(h4: hex("02 40 00 06 00 02 00 04 00 02 f7"))
        #expect(packet.description.contains("malformed"))
        #expect(packet.description.contains("Client Rx MTU"))
    }

    @Test("Random H4 packets never trap the decoder or the renderer")
    func randomPacketsNeverTrap() async {
        await propertyCheck(count: 4000, input: Gen.uint8(in: 1...5), randomBytes) { type, body in
            guard let packet = try? HCIPacket(h4: [type] + body) else { return }
            _ = packet.description
            _ = packet.json
            if case .acl = packet { #expect(packet.h4.encoded == [type] + body) }
            if case .command = packet { #expect(packet.h4.encoded == [type] + body) }
        }
    }

    @Test("Well-framed H4 packets with random contents never trap, down to ATT, SMP and signalling")
    func randomFramedPacketsNeverTrap() async {
        await propertyCheck(count: 4000, input: Gen.uint8(in: 0...3), Gen.uint8(), randomBytes) { kind, code, body in
            var bytes: [UInt8]
            switch kind {
            case 0:  // an event with a random code
                bytes = [0x04, code, UInt8(body.count)] + body
            case 1:  // a command with a random LE opcode
                bytes = [0x01, code, 0x20, UInt8(body.count)] + body
            default:  // ACL with a whole L2CAP PDU on ATT (1), or on LE signalling/SMP (2/3 by code parity)
                let channel: UInt8 = kind == 1 ? 0x04 : (code & 1 == 0 ? 0x05 : 0x06)
                let pdu = [UInt8(body.count), 0x00, channel, 0x00] + body
                bytes = [0x02, 0x40, 0x00, UInt8(pdu.count), 0x00] + pdu
            }
            guard let packet = try? HCIPacket(h4: bytes) else {
                // Events are typed at once, so random parameters may be rejected; commands and
                // ACL keep their payload raw and must frame.
                if kind != 0 { Issue.record("well-framed packet failed to frame: \(Hex.string(bytes))") }
                return
            }
            _ = packet.description
            _ = packet.json
        }
    }
}
