import BLEWire
import PropertyBased
import Testing

/// True when `slice` lies inside `array`'s storage (decoded without copying).
func sharesStorage(_ slice: ArraySlice<UInt8>, with array: ArraySlice<UInt8>) -> Bool {
    slice.withUnsafeBufferPointer { inner in
        array.withUnsafeBufferPointer { outer in
            guard let i = inner.baseAddress, let o = outer.baseAddress else { return false }
            return i >= o && i + inner.count <= o + outer.count
        }
    }
}

@Suite("H4 UART transport packets (Core 5.4 Vol 4 Part A §2)")
struct H4PacketTests {
    /// ATT Exchange MTU Request (client MTU 247) from host to controller on handle 0x0040, as
    /// btmon shows it after connecting: H4 ACL indicator, PB 0b00, one complete B-frame on CID 4.
    static let exchangeMTURequest = hex("02 40 00 07 00 03 00 04 00 02 f7 00")
    /// Command Complete for HCI_Reset (opcode 0x0C03, status success), the first event every
    /// controller sends a host.
    static let resetComplete = hex("04 0e 04 01 03 0c 00")

    @Test("ACL packet with ATT Exchange MTU Request decodes layer by layer (§2, Vol 4 Part E §5.4.2)")
    func exchangeMTURequestVector() throws {
        let packet = try H4Packet(decoding: Self.exchangeMTURequest)
        #expect(packet.type == .acl)
        #expect(Array(packet.payload) == Array(Self.exchangeMTURequest.dropFirst()))
        let acl = try ACLPacket(decoding: packet.payload)
        #expect(acl.handle == 0x0040)
        #expect(acl.packetBoundary == .firstNonFlushable)
        #expect(acl.broadcast == .pointToPoint)
        let frame = try L2CAPBasicFrame(decoding: acl.data)
        #expect(frame.channelID == .att)
        #expect(Array(frame.payload) == [0x02, 0xF7, 0x00])

        let built = H4Packet(
            acl: ACLPacket(
                handle: 0x0040, packetBoundary: .firstNonFlushable,
                data: L2CAPBasicFrame(channelID: .att, payload: [0x02, 0xF7, 0x00]).encoded))
        #expect(built.encoded == Self.exchangeMTURequest)
    }

    @Test("Command Complete for HCI_Reset frames as an event (§2, Vol 4 Part E §5.4.4)")
    func commandCompleteVector() throws {
        let packet = try H4Packet(decoding: Self.resetComplete)
        #expect(packet.type == .event)
        #expect(Array(packet.payload) == hex("0e 04 01 03 0c 00"))
        #expect(packet.encoded == Self.resetComplete)
    }

    @Test("HCI_Reset frames as a command packet (§2, Vol 4 Part E §5.4.1)")
    func commandVector() throws {
        #expect(H4Packet(command: HCI.Reset().packet).encoded == hex("01 03 0c 00"))
        let packet = try H4Packet(decoding: hex("01 03 0c 00"))
        #expect(packet.type == .command)
        #expect(try HCICommandPacket(decoding: packet.payload).opcode == HCI.Reset.opcode)
    }

    @Test("Every packet type round-trips (§2)")
    func roundTrips() throws {
        try expectRoundTrip(H4Packet(type: .command, payload: hex("03 0c 00")))
        try expectRoundTrip(H4Packet(type: .acl, payload: hex("40 00 07 00 03 00 04 00 02 f7 00")))
        try expectRoundTrip(H4Packet(type: .sco, payload: hex("01 00 02 aa bb")))
        try expectRoundTrip(H4Packet(type: .event, payload: hex("0e 04 01 03 0c 00")))
        try expectRoundTrip(H4Packet(type: .iso, payload: hex("60 20 02 00 aa bb")))
        try expectRoundTrip(H4Packet(sco: SCOPacket(handle: 1, data: [1, 2, 3])))
        try expectRoundTrip(
            H4Packet(
                iso: ISOPacket(handle: 0x60, packetBoundary: .completeSDU, hasTimestamp: false, dataLoad: [9])
            ))
    }

    @Test("HCI header sizes and length limits per packet type (Vol 4 Part E §5.4)")
    func headerLayout() {
        let lengths = H4PacketType.allCases.map { HCIPacketHeader.length(of: $0) }
        #expect(lengths == [3, 4, 3, 2, 4])
        let maxima = H4PacketType.allCases.map(\.maximumDataLength)
        #expect(maxima == [255, 65535, 255, 255, 16383])
        #expect(HCIPacketHeader.declaredDataLength(of: .acl, in: hex("40 00 07 01")[...], at: 0) == 0x0107)
        #expect(HCIPacketHeader.declaredDataLength(of: .acl, in: hex("40 00 07")[...], at: 0) == nil)
        #expect(HCIPacketHeader.declaredDataLength(of: .event, in: hex("ff 0e 04")[...], at: 1) == 4)
        #expect(HCIPacketHeader.declaredDataLength(of: .command, in: hex("03 0c ff")[...], at: 0) == 255)
        #expect(HCIPacketHeader.declaredDataLength(of: .sco, in: hex("01 00 30")[...], at: 0) == 0x30)
        // ISO: the two RFU bits above the 14-bit length are ignored.
        #expect(HCIPacketHeader.declaredDataLength(of: .iso, in: hex("60 20 03 c0")[...], at: 0) == 3)
        #expect(H4PacketType(rawValue: 0x00) == nil)
        #expect(H4PacketType(rawValue: 0x06) == nil)
    }

    @Test("ISO length ignores the RFU bits and keeps them raw (Vol 4 Part E §5.4.5)")
    func isoReservedLengthBits() throws {
        let bytes = hex("05 60 20 03 c0 aa bb cc")
        let packet = try H4Packet(decoding: bytes)
        #expect(packet.payload.count == 7)
        #expect(packet.encoded == bytes)
    }

    @Test("The decoder reads one packet and leaves what follows (§2)")
    func readsOnePacket() throws {
        var reader = ByteReader(Self.resetComplete + Self.exchangeMTURequest)
        let first = try H4Packet(from: &reader)
        let second = try H4Packet(from: &reader)
        #expect(reader.isAtEnd)
        #expect(first.type == .event && second.type == .acl)
        #expect(sharesStorage(second.payload, with: reader.bytes))
    }

    @Test("Malformed H4 packets are typed errors naming the field (§2)")
    func malformed() {
        expectDecodeError(H4Packet.self, [], .truncated(needed: 1, available: 0), field: "Packet Type")
        expectDecodeError(H4Packet.self, [0x00, 0x01], .invalidValue(0), field: "Packet Type")
        expectDecodeError(H4Packet.self, [0x06], .invalidValue(6), field: "Packet Type")
        expectDecodeError(H4Packet.self, [0xFF], .invalidValue(0xFF), field: "Packet Type")
        // Header shorter than the type's header.
        expectDecodeError(
            H4Packet.self, hex("01 03 0c"), .truncated(needed: 3, available: 2), field: "HCI packet header")
        expectDecodeError(
            H4Packet.self, hex("02 40 00 07"), .truncated(needed: 4, available: 3), field: "HCI packet header"
        )
        expectDecodeError(
            H4Packet.self, hex("03 01 00"), .truncated(needed: 3, available: 2), field: "HCI packet header")
        expectDecodeError(
            H4Packet.self, hex("04 0e"), .truncated(needed: 2, available: 1), field: "HCI packet header")
        expectDecodeError(
            H4Packet.self, hex("05 60 20 01"), .truncated(needed: 4, available: 3), field: "HCI packet header"
        )
        // Declared length longer than the octets present, per type.
        expectDecodeError(
            H4Packet.self, hex("01 03 0c 01"), .lengthMismatch(declared: 1, actual: 0),
            field: "Parameter_Total_Length")
        expectDecodeError(
            H4Packet.self, hex("02 40 00 07 00 03 00 04 00 02 f7"), .lengthMismatch(declared: 7, actual: 6),
            field: "Data_Total_Length")
        expectDecodeError(
            H4Packet.self, hex("03 01 00 02 aa"), .lengthMismatch(declared: 2, actual: 1),
            field: "Data_Total_Length")
        expectDecodeError(
            H4Packet.self, hex("04 0e 04 01 03 0c"), .lengthMismatch(declared: 4, actual: 3),
            field: "Parameter_Total_Length")
        expectDecodeError(
            H4Packet.self, hex("05 60 20 02 00 aa"), .lengthMismatch(declared: 2, actual: 1),
            field: "ISO_Data_Load_Length")
        // Octets after a complete packet.
        expectDecodeError(
            H4Packet.self, Self.resetComplete + [0x00], .trailingBytes(count: 1), field: "end of packet")
    }

    @Test("The length error points at the length field (§2)")
    func lengthErrorOffset() {
        do {
            _ = try H4Packet(decoding: hex("02 40 00 07 00 03"))
            Issue.record("decoded a truncated packet")
        } catch {
            #expect(error.offset == 3)
            #expect(error.context.description == "H4 packet")
        }
    }

    @Test("Random bytes never trap the H4 decoder (§2)")
    func randomNeverTraps() async {
        await propertyCheck(count: 3000, input: Gen.uint8(in: 0...6), randomBytes) { indicator, bytes in
            expectNoTrap(H4Packet.self, [indicator] + bytes)
        }
    }

    @Test("Random well-framed packets round-trip (§2)")
    func randomRoundTrip() async {
        await propertyCheck(count: 500, input: Gen<H4PacketType>.case, Gen.uint8().array(of: 0...300)) {
            type, body in
            let payload = frame(type, body)
            let packet = try H4Packet(decoding: [type.rawValue] + payload)
            #expect(Array(packet.payload) == payload)
            try expectRoundTrip(packet)
        }
    }
}

/// An HCI packet of `type` whose header declares `body` (trimmed to the type's maximum).
func frame(_ type: H4PacketType, _ body: [UInt8]) -> [UInt8] {
    let body = Array(body.prefix(type.maximumDataLength))
    let n = body.count
    switch type {
    case .command: return [0x01, 0x20, UInt8(n)] + body
    case .acl: return [0x40, 0x20, UInt8(n & 0xFF), UInt8(n >> 8)] + body
    case .sco: return [0x01, 0x00, UInt8(n)] + body
    case .event: return [0x3E, UInt8(n)] + body
    case .iso: return [0x60, 0x20, UInt8(n & 0xFF), UInt8(n >> 8)] + body
    }
}
