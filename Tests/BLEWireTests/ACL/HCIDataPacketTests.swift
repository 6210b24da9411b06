import BLEWire
import PropertyBased
import Testing

@Suite("HCI ACL Data packets (Core 5.4 Vol 4 Part E §5.4.2)")
struct ACLPacketTests {
    @Test("ATT Exchange MTU Request fragment from the host: handle 0x0040, PB 0b00 (§5.4.2)")
    func hostVector() throws {
        let bytes = hex("40 00 07 00 03 00 04 00 02 f7 00")
        let packet = try ACLPacket(decoding: bytes)
        #expect(
            packet
                == ACLPacket(
                    handle: 0x40, packetBoundary: .firstNonFlushable, data: hex("03 00 04 00 02 f7 00")))
        #expect(packet.encoded == bytes)
    }

    @Test("Exchange MTU Response from the controller: PB 0b10 sets bit 13 of the handle field (§5.4.2)")
    func controllerVector() throws {
        let bytes = hex("40 20 07 00 03 00 04 00 03 f7 00")
        let packet = try ACLPacket(decoding: bytes)
        #expect(packet.handle == 0x0040)
        #expect(packet.packetBoundary == .firstFlushable)
        #expect(packet.broadcast == .pointToPoint)
        #expect(packet.encoded == bytes)
    }

    @Test("Every boundary and broadcast flag value survives a round trip, 0b11 included (§5.4.2)")
    func flags() throws {
        for boundary in ACLPacketBoundary.allCases {
            for broadcast in ACLBroadcastFlag.allCases {
                let packet = ACLPacket(
                    handle: 0x0EFF, packetBoundary: boundary, broadcast: broadcast, data: [1, 2])
                try expectRoundTrip(packet)
                let field = UInt16(packet.encoded[0]) | UInt16(packet.encoded[1]) << 8
                #expect(field >> 12 == UInt16(boundary.rawValue) | UInt16(broadcast.rawValue) << 2)
                #expect(field & 0x0FFF == 0x0EFF)
            }
        }
        #expect(
            try ACLPacket(decoding: hex("ff ff 00 00"))
                == ACLPacket(
                    handle: 0x0FFF, packetBoundary: .complete, broadcast: .reserved3, data: []))
        #expect(ACLPacket(handle: 0xF040, packetBoundary: .continuing, data: []).handle == 0x0040)
        #expect(ACLPacketBoundary.continuing.isStart == false)
        #expect(ACLPacketBoundary.complete.isStart)
    }

    @Test("Data_Total_Length must equal the octets present (§5.4.2)")
    func lengthRules() {
        expectDecodeError(
            ACLPacket.self, hex("40 00 07 00 03 00"), .lengthMismatch(declared: 7, actual: 2),
            field: "Data_Total_Length")
        expectDecodeError(
            ACLPacket.self, hex("40 00 01 00 03 00"), .lengthMismatch(declared: 1, actual: 2),
            field: "Data_Total_Length")
        expectDecodeError(
            ACLPacket.self, hex("40 00 07"), .truncated(needed: 2, available: 1),
            field: "Data_Total_Length")
        expectDecodeError(ACLPacket.self, hex("40"), .truncated(needed: 2, available: 1), field: "Handle")
    }

    @Test("Decoding copies nothing: data is a slice of the input (§5.4.2)")
    func zeroCopy() throws {
        let bytes = hex("40 00 07 00 03 00 04 00 02 f7 00")[...]
        let packet = try ACLPacket(decoding: bytes)
        #expect(sharesStorage(packet.data, with: bytes))
    }

    @Test("Random bytes never trap the ACL decoder (§5.4.2)")
    func randomNeverTraps() async {
        await propertyCheck(count: 3000, input: randomBytes) { bytes in
            expectNoTrap(ACLPacket.self, bytes)
            if bytes.count >= 4 {
                // Same bytes with a consistent length field: always decodes.
                let n = bytes.count - 4
                let fixed = Array(bytes[0..<2]) + [UInt8(n), 0] + bytes[4...]
                #expect((try? ACLPacket(decoding: fixed))?.encoded == fixed)
            }
        }
    }
}

@Suite("HCI Synchronous and ISO Data packets (Core 5.4 Vol 4 Part E §5.4.3, §5.4.5)")
struct SynchronousDataPacketTests {
    @Test("SCO packet: handle, Packet_Status_Flag, u8 length (§5.4.3)")
    func scoVector() throws {
        let bytes = hex("01 10 03 aa bb cc")
        let packet = try SCOPacket(decoding: bytes)
        #expect(
            packet == SCOPacket(handle: 0x0001, packetStatus: .possiblyInvalid, data: hex("aa bb cc")[...]))
        #expect(packet.encoded == bytes)
        for status in SCOPacketStatus.allCases {
            try expectRoundTrip(SCOPacket(handle: 0x0123, packetStatus: status, data: [0x55]))
        }
        // RFU bits 14–15 are ignored on receipt and sent as zero.
        #expect(try SCOPacket(decoding: hex("01 f0 00")).encoded == hex("01 30 00"))
    }

    @Test("SCO Data_Total_Length must equal the octets present (§5.4.3)")
    func scoLength() {
        expectDecodeError(
            SCOPacket.self, hex("01 00 03 aa"), .lengthMismatch(declared: 3, actual: 1),
            field: "Data_Total_Length")
        expectDecodeError(
            SCOPacket.self, hex("01 00 00 aa"), .lengthMismatch(declared: 0, actual: 1),
            field: "Data_Total_Length")
        expectDecodeError(
            SCOPacket.self, hex("01 00"), .truncated(needed: 1, available: 0),
            field: "Data_Total_Length")
        expectDecodeError(
            SCOPacket.self, hex("01"), .truncated(needed: 2, available: 1), field: "Connection_Handle")
    }

    @Test("ISO packet: handle, PB_Flag, TS_Flag, 14-bit length (§5.4.5)")
    func isoVector() throws {
        // Complete SDU with time stamp 0x40302010, sequence number 1, SDU length 2, SDU 55 66.
        let bytes = hex("60 60 0a 00 10 20 30 40 01 00 02 00 55 66")
        let packet = try ISOPacket(decoding: bytes)
        #expect(packet.handle == 0x0060)
        #expect(packet.packetBoundary == .completeSDU)
        #expect(packet.hasTimestamp)
        #expect(packet.dataLoad.count == 10)
        #expect(packet.encoded == bytes)
        for boundary in ISOPacketBoundary.allCases {
            for timestamp in [false, true] {
                try expectRoundTrip(
                    ISOPacket(
                        handle: 0x0EFF, packetBoundary: boundary, hasTimestamp: timestamp, dataLoad: [1]))
            }
        }
        #expect(ISOPacketBoundary.firstFragment.carriesSDUHeader)
        #expect(!ISOPacketBoundary.lastFragment.carriesSDUHeader)
        // RFU bits (handle field bit 15, length bits 14–15) are ignored and sent as zero.
        #expect(try ISOPacket(decoding: hex("60 a0 01 c0 aa")).encoded == hex("60 20 01 00 aa"))
    }

    @Test("ISO_Data_Load_Length must equal the octets present (§5.4.5)")
    func isoLength() {
        expectDecodeError(
            ISOPacket.self, hex("60 20 02 00 aa"), .lengthMismatch(declared: 2, actual: 1),
            field: "ISO_Data_Load_Length")
        expectDecodeError(
            ISOPacket.self, hex("60 20 00 00 aa"), .lengthMismatch(declared: 0, actual: 1),
            field: "ISO_Data_Load_Length")
        expectDecodeError(
            ISOPacket.self, hex("60 20 02"), .truncated(needed: 2, available: 1),
            field: "ISO_Data_Load_Length")
    }

    @Test("Random bytes never trap the SCO and ISO decoders (§5.4.3, §5.4.5)")
    func randomNeverTraps() async {
        await propertyCheck(count: 3000, input: randomBytes) { bytes in
            expectNoTrap(SCOPacket.self, bytes)
            expectNoTrap(ISOPacket.self, bytes)
        }
    }
}
