import BLEWire
import PropertyBased
import Testing

@Suite("H4 stream framing (Core 5.4 Vol 4 Part A §2)")
struct H4StreamParserTests {
    /// One packet of every type, zero-length ones and one long enough to straddle most splits.
    static let samplePackets: [[UInt8]] = [
        hex("01 03 0c 00"),  // HCI_Reset
        hex("04 0e 04 01 03 0c 00"),  // Command Complete (Reset, success)
        hex("02 40 00 07 00 03 00 04 00 02 f7 00"),  // ATT Exchange MTU Request, host → controller
        // LE Connection Complete: handle 0x0040, central, public peer F0:F1:F2:F3:F4:F5,
        // interval 0x0018, latency 0, timeout 0x00C8, clock accuracy 1.
        hex("04 3e 13 01 00 40 00 00 00 f5 f4 f3 f2 f1 f0 18 00 00 00 c8 00 01"),
        hex("03 01 10 03 aa bb cc"),  // SCO, handle 1, "possibly invalid"
        hex("05 60 60 0a 00 10 20 30 40 01 00 02 00 55 66"),  // ISO, complete SDU with time stamp
        hex("04 13 05 01 40 00 01 00"),  // Number Of Completed Packets
        hex("02 40 20 00 00"),  // empty ACL fragment
        [0x02, 0x41, 0x20, 0x2C, 0x01] + (0..<300).map { UInt8(truncatingIfNeeded: $0) },
        hex("04 0f 04 00 01 0d 20"),  // Command Status
    ]
    static let stream = samplePackets.flatMap { $0 }

    /// Feeds `chunks` in order, draining after each, and returns every packet as bytes.
    static func parse(_ chunks: [ArraySlice<UInt8>], limits: H4StreamParser.Limits = .formatMaximum)
        throws(H4StreamError) -> [[UInt8]]
    {
        var parser = H4StreamParser(limits: limits)
        var out: [[UInt8]] = []
        for chunk in chunks {
            parser.feed(chunk)
            while let packet = try parser.next() { out.append(packet.encoded) }
        }
        #expect(parser.pendingByteCount == 0)
        return out
    }

    /// Splits `bytes` into chunks whose sizes cycle through `sizes`.
    static func chunk(_ bytes: [UInt8], sizes: [Int]) -> [ArraySlice<UInt8>] {
        var chunks: [ArraySlice<UInt8>] = []
        var start = 0
        var i = 0
        while start < bytes.count {
            let end = min(bytes.count, start + max(1, sizes[i % sizes.count]))
            chunks.append(bytes[start..<end])
            start = end
            i += 1
        }
        return chunks
    }

    @Test("One chunk holding the whole stream yields every packet in place (§2)")
    func wholeStream() throws {
        let chunk = Self.stream[...]
        var parser = H4StreamParser()
        parser.feed(chunk)
        var packets: [H4Packet] = []
        while let packet = try parser.next() { packets.append(packet) }
        #expect(packets.map(\.encoded) == Self.samplePackets)
        #expect(packets.allSatisfy { sharesStorage($0.payload, with: chunk) })
        #expect(parser.bufferedByteCount == 0)
        #expect(parser.offset == Self.stream.count)
    }

    @Test("Fed one octet at a time, the parser yields the same packets (§2)")
    func oneOctetAtATime() throws {
        #expect(try Self.parse(Self.chunk(Self.stream, sizes: [1])) == Self.samplePackets)
    }

    @Test("Every two-chunk split of the stream yields the same packets (§2)")
    func everyTwoChunkSplit() throws {
        for split in 0...Self.stream.count {
            let chunks = [Self.stream[..<split], Self.stream[split...]]
            #expect(try Self.parse(chunks) == Self.samplePackets, "split at \(split)")
        }
    }

    @Test("Every three-chunk split around the short packets yields the same packets (§2)")
    func threeChunkSplits() throws {
        let short = 80  // the first eight packets; the long one follows
        for a in 0...short {
            for b in a...short {
                let chunks = [Self.stream[..<a], Self.stream[a..<b], Self.stream[b...]]
                #expect(try Self.parse(chunks) == Self.samplePackets, "splits at \(a), \(b)")
            }
        }
    }

    @Test("Random chunkings yield the same packets (§2)")
    func randomChunkings() async {
        await propertyCheck(count: 500, input: Gen.int(in: 1...64).array(of: 1...16)) { sizes in
            #expect((try? Self.parse(Self.chunk(Self.stream, sizes: sizes))) == Self.samplePackets)
        }
    }

    @Test("Chunks fed before draining are queued in order (§2)")
    func feedSeveralThenDrain() throws {
        var parser = H4StreamParser()
        for chunk in Self.chunk(Self.stream, sizes: [5, 1, 30, 2]) { parser.feed(chunk) }
        #expect(parser.pendingByteCount == Self.stream.count)
        var out: [[UInt8]] = []
        while let packet = try parser.next() { out.append(packet.encoded) }
        #expect(out == Self.samplePackets)
        // Feeding again after a drain, with a packet split across three chunks.
        let split = Self.chunk(Self.samplePackets[2], sizes: [3, 4])
        for chunk in split { parser.feed(chunk) }
        #expect(try parser.next()?.encoded == Self.samplePackets[2])
        #expect(try parser.next() == nil)
    }

    @Test("A chunk of a thousand packets and its tail parse in place (§2)")
    func thousandPackets() throws {
        let one = Self.samplePackets[2]
        let chunk = Array(repeating: one, count: 1000).flatMap { $0 } + one.prefix(5)
        var parser = H4StreamParser()
        let packets = try parser.packets(from: chunk)
        #expect(packets.count == 1000)
        #expect(packets.allSatisfy { $0.encoded == one && sharesStorage($0.payload, with: chunk[...]) })
        #expect(parser.bufferedByteCount == 5)
        let rest = try parser.packets(from: Array(one.dropFirst(5)))
        #expect(rest.map(\.encoded) == [one])
    }

    @Test("A megabyte parsed in arbitrary chunks buffers at most one packet (§2)")
    func megabyte() async {
        // 1 MiB of ACL packets of varying sizes.
        var stream: [UInt8] = []
        var expected: [[UInt8]] = []
        var size = 0
        while stream.count < 1 << 20 {
            let packet = [0x02] + frame(.acl, Array(repeating: UInt8(size & 0xFF), count: size % 1021))
            stream += packet
            expected.append(packet)
            size += 7
        }
        let largest = expected.map(\.count).max() ?? 0
        await propertyCheck(count: 5, input: Gen.int(in: 1...9000).array(of: 1...8)) { sizes in
            var parser = H4StreamParser()
            var count = 0
            for chunk in Self.chunk(stream, sizes: sizes) {
                parser.feed(chunk)
                while let packet = try parser.next() {
                    if packet.encoded != expected[count] { Issue.record("packet \(count) differs") }
                    count += 1
                }
                #expect(parser.bufferedByteCount < largest)
            }
            #expect(count == expected.count)
        }
    }

    @Test("An unknown packet indicator fails with its octet and stream offset, and stays failed (§2)")
    func garbageIndicator() throws {
        let stream = Self.samplePackets[1] + [0x07] + Self.samplePackets[0]
        var parser = H4StreamParser()
        parser.feed(stream)
        #expect(try parser.next()?.encoded == Self.samplePackets[1])
        #expect(throws: H4StreamError.unknownPacketType(octet: 0x07, offset: 7)) { try parser.next() }
        parser.feed(Self.samplePackets[0])
        #expect(throws: H4StreamError.unknownPacketType(octet: 0x07, offset: 7)) { try parser.next() }
        #expect(parser.failure == .unknownPacketType(octet: 0x07, offset: 7))
        #expect(parser.pendingByteCount == 0)
    }

    @Test("The garbage offset is the same however the stream is split (§2)")
    func garbageOffsetAnySplit() {
        let garbage = Self.stream + [0x00, 0x01]
        for chunks in [
            Self.chunk(garbage, sizes: [1]), Self.chunk(garbage, sizes: [13, 200]), [garbage[...]],
        ] {
            #expect(throws: H4StreamError.unknownPacketType(octet: 0x00, offset: Self.stream.count)) {
                try Self.parse(chunks)
            }
        }
        #expect(throws: H4StreamError.unknownPacketType(octet: 0xFF, offset: 0)) {
            try Self.parse([[0xFF]])
        }
    }

    @Test("A declared length above the limit fails, in place or straddling (§2)")
    func tooLong() {
        let limits = H4StreamParser.Limits(acl: 27)
        let fits = [0x02] + frame(.acl, Array(repeating: 0xAA, count: 27))
        let long = [0x02] + frame(.acl, Array(repeating: 0xAA, count: 28))
        let expected = H4StreamError.packetTooLong(
            type: .acl, declaredLength: 28, maximum: 27, offset: fits.count)
        for sizes in [[1000], [1], [fits.count + 2, 1000]] {
            #expect(throws: expected) {
                try Self.parse(Self.chunk(fits + long, sizes: sizes), limits: limits)
            }
        }
        #expect(
            H4StreamParser.Limits.uniform(100)
                == .init(command: 100, acl: 100, sco: 100, event: 100, iso: 100))
        #expect(H4StreamParser.Limits.uniform(70000) == .formatMaximum)
        #expect(
            throws: H4StreamError.packetTooLong(type: .event, declaredLength: 4, maximum: 3, offset: 0)
        ) { try Self.parse([Self.samplePackets[1][...]], limits: .uniform(3)) }
    }

    @Test("The default limits accept the largest packet each header can declare (§2)")
    func largestPackets() throws {
        let packets = H4PacketType.allCases.map { type in
            [type.rawValue] + frame(type, Array(repeating: 0x5A, count: type.maximumDataLength))
        }
        let stream = packets.flatMap { $0 }
        #expect(try Self.parse(Self.chunk(stream, sizes: [4096, 3])) == packets)
    }

    @Test("packets(from:) returns everything completed by the chunk (§2)")
    func packetsConvenience() throws {
        var parser = H4StreamParser()
        let first = try parser.packets(from: Array(Self.stream[..<10]))
        #expect(first.map(\.encoded) == [Self.samplePackets[0]])
        #expect(parser.pendingByteCount == 6)
        let rest = try parser.packets(from: Array(Self.stream[10...]))
        #expect(rest.map(\.encoded) == Array(Self.samplePackets.dropFirst()))
        #expect(try parser.packets(from: []) == [])
    }

    @Test("Random bytes in random chunks never trap the parser, and what it yields is the input (§2)")
    func randomStreams() async {
        let bytes = Gen.uint8(in: 0...6).array(of: 0...400)
        await propertyCheck(count: 1000, input: bytes, Gen.int(in: 1...40).array(of: 1...6)) { input, sizes in
            var parser = H4StreamParser(limits: .uniform(64))
            var out: [UInt8] = []
            do throws(H4StreamError) {
                for chunk in Self.chunk(input, sizes: sizes) {
                    parser.feed(chunk)
                    while let packet = try parser.next() { out += packet.encoded }
                }
                #expect(out.count + parser.pendingByteCount == input.count)
            } catch {
                #expect(error.offset == out.count)
            }
            #expect(Array(input.prefix(out.count)) == out)
        }
    }
}
