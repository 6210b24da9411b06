import BLEWire
import PropertyBased
import Testing

/// A basic frame's bytes with `count` payload octets on `channel`.
private func pdu(_ count: Int, channel: UInt16 = 0x0004, seed: UInt8 = 0) -> [UInt8] {
    L2CAPBasicFrame(
        channelID: L2CAPChannelID(channel), payload: (0..<count).map { UInt8(truncatingIfNeeded: $0) &+ seed }
    ).encoded
}

private func start(_ handle: ConnectionHandle, _ data: some Sequence<UInt8>) -> ACLPacket {
    ACLPacket(handle: handle, packetBoundary: .firstFlushable, data: Array(data))
}

private func more(_ handle: ConnectionHandle, _ data: some Sequence<UInt8>) -> ACLPacket {
    ACLPacket(handle: handle, packetBoundary: .continuing, data: Array(data))
}

@Suite("L2CAP reassembly (Core 5.4 Vol 3 Part A §7.2, Vol 4 Part E §5.4.2)")
struct L2CAPReassemblerTests {
    @Test("A start fragment holding the whole PDU is returned without copying (§7.2)")
    func fastPath() throws {
        var reassembler = L2CAPReassembler()
        let packet = try ACLPacket(decoding: hex("40 20 07 00 03 00 04 00 03 f7 00"))
        let result = reassembler.push(packet)
        let frame = try #require(result.frame)
        #expect(result == .frame(L2CAPBasicFrame(channelID: .att, payload: [0x03, 0xF7, 0x00])))
        #expect(sharesStorage(frame.payload, with: packet.data))
        #expect(reassembler.incompletePDUCount == 0)
    }

    @Test("Fragments of 1 octet, and starts shorter than the 4-octet header, reassemble (§7.2)")
    func tinyFragments() {
        let bytes = pdu(10)
        for startLength in 0...5 {
            var reassembler = L2CAPReassembler()
            var packets = [start(0x40, bytes.prefix(startLength))]
            packets += bytes.dropFirst(startLength).map { more(0x40, [$0]) }
            for packet in packets.dropLast() {
                #expect(reassembler.push(packet) == .incomplete, "start of \(startLength)")
            }
            #expect(reassembler.push(packets[packets.count - 1]).frame?.encoded == bytes)
            #expect(!reassembler.hasIncompletePDU(handle: 0x40))
        }
    }

    @Test("An empty PDU split inside its header completes on its fourth octet (§7.2)")
    func emptyPayload() {
        var reassembler = L2CAPReassembler()
        #expect(reassembler.push(start(1, [0x00, 0x00])) == .incomplete)
        #expect(
            reassembler.push(more(1, [0x05, 0x00]))
                == .frame(L2CAPBasicFrame(channelID: .leSignaling, payload: [])))
    }

    @Test("Interleaved handles reassemble independently (§7.2)")
    func interleaved() {
        var reassembler = L2CAPReassembler()
        let a = pdu(40, seed: 1)
        let b = pdu(25, channel: 0x0006, seed: 2)
        let fa = L2CAPFragmenter(maximumDataLength: 7, firstBoundary: .firstFlushable).fragments(
            of: a, handle: 0x40)
        let fb = L2CAPFragmenter(maximumDataLength: 3, firstBoundary: .firstFlushable).fragments(
            of: b, handle: 0x41)
        var frames: [ConnectionHandle: [UInt8]] = [:]
        var ia = 0
        var ib = 0
        while ia < fa.count || ib < fb.count {
            for packet in [ia < fa.count ? fa[ia] : nil, ib < fb.count ? fb[ib] : nil].compactMap({ $0 }) {
                let result = reassembler.push(packet)
                #expect(result.errors.isEmpty)
                if let frame = result.frame { frames[packet.handle] = frame.encoded }
            }
            ia += 1
            ib += 1
        }
        #expect(frames == [0x40: a, 0x41: b])
        #expect(reassembler.incompletePDUCount == 0)
    }

    @Test("A continuation without a start is dropped; other handles are unaffected (§7.2)")
    func continuationWithoutStart() {
        var reassembler = L2CAPReassembler()
        let bytes = pdu(6)
        #expect(reassembler.push(start(0x40, bytes.prefix(5))) == .incomplete)
        #expect(
            reassembler.push(more(0x41, [1, 2, 3]))
                == .dropped(.continuationWithoutStart(handle: 0x41, fragmentLength: 3)))
        #expect(reassembler.push(more(0x40, bytes.dropFirst(5))).frame?.encoded == bytes)
        #expect(
            reassembler.push(more(0x40, [9]))
                == .dropped(.continuationWithoutStart(handle: 0x40, fragmentLength: 1)))
    }

    @Test("A PDU growing past its Length is dropped as overlong (§7.2)")
    func overlong() {
        var reassembler = L2CAPReassembler()
        let bytes = pdu(6)  // 10 octets
        // In the start fragment itself.
        #expect(
            reassembler.push(start(0x40, bytes + [0xEE]))
                == .dropped(.overlong(handle: 0x40, declaredPDULength: 10, receivedPDULength: 11)))
        // In a continuation.
        #expect(reassembler.push(start(0x40, bytes.prefix(8))) == .incomplete)
        #expect(
            reassembler.push(more(0x40, [1, 2, 3]))
                == .dropped(.overlong(handle: 0x40, declaredPDULength: 10, receivedPDULength: 11)))
        #expect(!reassembler.hasIncompletePDU(handle: 0x40))
        // In the continuation that completes the header.
        #expect(reassembler.push(start(0x40, [0x01])) == .incomplete)
        #expect(
            reassembler.push(more(0x40, [0x00, 0x04, 0x00, 0xAA, 0xBB]))
                == .dropped(.overlong(handle: 0x40, declaredPDULength: 5, receivedPDULength: 6)))
        #expect(
            reassembler.push(more(0x40, [0xCC]))
                == .dropped(.continuationWithoutStart(handle: 0x40, fragmentLength: 1)))
    }

    @Test("A new start while a PDU is incomplete discards it and still processes the start (§7.2)")
    func restart() throws {
        var reassembler = L2CAPReassembler()
        let old = pdu(20)
        let new = pdu(3, seed: 9)
        #expect(reassembler.push(start(0x40, old.prefix(10))) == .incomplete)
        let result = reassembler.push(start(0x40, new))
        let discarded = L2CAPReassemblyError.incompletePDUDiscarded(
            handle: 0x40, receivedPDULength: 10, expectedPDULength: 24)
        let newFrame = try L2CAPBasicFrame(decoding: new)
        #expect(result == .restarted(discarded: discarded, then: .frame(newFrame)))
        #expect(result.frame?.encoded == new)
        #expect(result.errors == [discarded])

        // The new start may itself be incomplete, or the old one header-less.
        #expect(reassembler.push(start(0x40, [0x14])) == .incomplete)
        #expect(
            reassembler.push(start(0x40, old.prefix(6)))
                == .restarted(
                    discarded: .incompletePDUDiscarded(
                        handle: 0x40, receivedPDULength: 1, expectedPDULength: nil),
                    then: .incomplete))
        #expect(reassembler.push(more(0x40, old.dropFirst(6))).frame?.encoded == old)
    }

    @Test("A Length above the maximum payload is dropped without buffering (§7.2)")
    func tooLarge() {
        var reassembler = L2CAPReassembler(maximumPayloadLength: 23)
        #expect(reassembler.maximumPayloadLength == 23)
        #expect(reassembler.push(start(0x40, pdu(23))).frame != nil)
        #expect(
            reassembler.push(start(0x40, [0xFF, 0xFF, 0x04, 0x00, 0x01]))
                == .dropped(.payloadTooLarge(handle: 0x40, declaredLength: 0xFFFF, maximum: 23)))
        #expect(reassembler.incompletePDUCount == 0)
        // Detected when a continuation completes the header.
        #expect(reassembler.push(start(0x40, [0x18])) == .incomplete)
        #expect(
            reassembler.push(more(0x40, [0x00, 0x04, 0x00, 0x01]))
                == .dropped(.payloadTooLarge(handle: 0x40, declaredLength: 24, maximum: 23)))
        #expect(reassembler.incompletePDUCount == 0)
        // A new start discarding an incomplete PDU can itself be too large.
        #expect(reassembler.push(start(0x40, pdu(10).prefix(5))) == .incomplete)
        let result = reassembler.push(start(0x40, [0x20, 0x00, 0x04, 0x00]))
        #expect(
            result.errors == [
                .incompletePDUDiscarded(handle: 0x40, receivedPDULength: 5, expectedPDULength: 14),
                .payloadTooLarge(handle: 0x40, declaredLength: 32, maximum: 23),
            ])
        #expect(L2CAPReassembler(maximumPayloadLength: 1 << 20).maximumPayloadLength == 0xFFFF)
    }

    @Test("reset(handle:) forgets a partial PDU on disconnection (§7.2)")
    func reset() {
        var reassembler = L2CAPReassembler()
        #expect(reassembler.push(start(0x40, pdu(10).prefix(4))) == .incomplete)
        #expect(reassembler.push(start(0x41, pdu(10).prefix(4))) == .incomplete)
        reassembler.reset(handle: 0x40)
        #expect(!reassembler.hasIncompletePDU(handle: 0x40))
        #expect(reassembler.hasIncompletePDU(handle: 0x41))
        #expect(
            reassembler.push(more(0x40, [1]))
                == .dropped(.continuationWithoutStart(handle: 0x40, fragmentLength: 1)))
        reassembler.reset()
        #expect(reassembler.incompletePDUCount == 0)
    }

    @Test("Boundary 0b11 (complete, BR/EDR) is treated as a start fragment (Vol 4 Part E §5.4.2)")
    func completeFlag() {
        var reassembler = L2CAPReassembler()
        let bytes = pdu(2)
        let packet = ACLPacket(handle: 1, packetBoundary: .complete, data: bytes)
        #expect(reassembler.push(packet).frame?.encoded == bytes)
    }

    @Test("Fragment then reassemble: random PDU and fragment sizes (§7.2)")
    func fragmentReassembleProperty() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...700), Gen.int(in: 1...300), Gen.uint8()) {
            payloadLength, fragmentSize, seed in
            let bytes = pdu(payloadLength, channel: 0x0040, seed: seed)
            let fragments = L2CAPFragmenter(maximumDataLength: fragmentSize).fragments(
                of: bytes, handle: 0x0EFF)
            #expect(fragments.count == (bytes.count + fragmentSize - 1) / fragmentSize)
            var reassembler = L2CAPReassembler()
            for (i, fragment) in fragments.enumerated() {
                #expect(fragment.data.count <= fragmentSize && !fragment.data.isEmpty)
                let result = reassembler.push(fragment)
                if i < fragments.count - 1 {
                    #expect(result == .incomplete)
                } else {
                    #expect(result.frame?.encoded == bytes)
                }
            }
        }
    }

    @Test("Random fragments never trap the reassembler and every frame is well formed (§7.2)")
    func randomFragments() async {
        let packet = zip(Gen.uint16(in: 0x40...0x42), Gen.uint8(in: 0...3), Gen.uint8().array(of: 0...12))
            .map { fields in
                ACLPacket(
                    handle: ConnectionHandle(fields.0), packetBoundary: ACLPacketBoundary(rawValue: fields.1) ?? .continuing,
                    data: fields.2)
            }
        await propertyCheck(count: 1000, input: packet.array(of: 1...30)) { packets in
            var reassembler = L2CAPReassembler(maximumPayloadLength: 16)
            for packet in packets {
                if let frame = reassembler.push(packet).frame {
                    #expect(frame.payload.count <= 16)
                    #expect((try? L2CAPBasicFrame(decoding: frame.encoded)) == frame)
                }
            }
            #expect(reassembler.incompletePDUCount <= 3)
        }
    }
}

@Suite("L2CAP fragmentation (Core 5.4 Vol 3 Part A §7.2)")
struct L2CAPFragmenterTests {
    @Test("Host to controller: first fragment PB 0b00, then 0b01, each at most the buffer size (§7.2)")
    func hostFragments() {
        let bytes = hex("03 00 04 00 02 f7 00")
        let fragments = Array(L2CAPFragmenter(maximumDataLength: 3).fragments(of: bytes, handle: 0x0040))
        #expect(
            fragments.map(\.encoded) == [
                hex("40 00 03 00 03 00 04"),
                hex("40 10 03 00 00 02 f7"),
                hex("40 10 01 00 00"),
            ])
    }

    @Test("Controller to host uses PB 0b10; a PDU that fits is one fragment (§7.2)")
    func controllerFragments() {
        let frame = L2CAPBasicFrame(channelID: .att, payload: [0x03, 0xF7, 0x00])
        let fragmenter = L2CAPFragmenter(maximumDataLength: 27, firstBoundary: .firstFlushable)
        let fragments = fragmenter.fragments(of: frame, handle: 0x0040)
        #expect(fragments.count == 1)
        #expect(fragments.first?.encoded == hex("40 20 07 00 03 00 04 00 03 f7 00"))
    }

    @Test("Fragments are slices of the PDU; sizes clamp to 1...65535; empty PDU gives none (§7.2)")
    func slicingAndClamping() {
        let bytes = pdu(100)[...]
        let fragments = L2CAPFragmenter(maximumDataLength: 0).fragments(of: bytes, handle: 1)
        #expect(fragments.count == bytes.count)
        #expect(fragments.allSatisfy { $0.data.count == 1 && sharesStorage($0.data, with: bytes) })
        #expect(L2CAPFragmenter(maximumDataLength: 1 << 20).maximumDataLength == 0xFFFF)
        #expect(L2CAPFragmenter(maximumDataLength: 27).fragments(of: [], handle: 1).isEmpty)
        #expect(fragments.last?.packetBoundary == .continuing)
        #expect(fragments.first?.packetBoundary == .firstNonFlushable)
    }
}
