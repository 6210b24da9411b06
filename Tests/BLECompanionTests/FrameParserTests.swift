import BLECompanion
import PropertyBased
import Testing

@Suite("Device protocol segmentation and reassembly")
struct FrameParserTests {
    /// Frames of every size class, including ones longer than an MTU-23 chunk.
    static let frames: [DeviceFrame] = [
        DeviceFrame(kind: .event, messageType: 0x04, payload: [4]),
        DeviceFrame(kind: .request, messageType: 0x81, sequence: 1),
        DeviceFrame(kind: .response, messageType: 0x09, sequence: 1, payload: [5] + Array("1.2.3".utf8)),
        DeviceFrame(kind: .event, messageType: 0x84, payload: Array(repeating: 0xA5, count: 236)),
        DeviceFrame(kind: .event, messageType: 0x84, payload: (0..<500).map { UInt8(truncatingIfNeeded: $0) }),
    ]

    static var stream: [UInt8] { frames.flatMap(\.encoded) }

    @Test(
        "Segmentation over ATT_MTU 23 and 247: chunks of at most MTU − 3 octets that rejoin to the frame",
        arguments: [23, 247])
    func segmentation(mtu: Int) {
        let size = DeviceFrameSegmenter.maximumChunkLength(forATTMTU: mtu)
        #expect(size == mtu - 3)
        for frame in Self.frames {
            let octets = frame.encoded
            let chunks = DeviceFrameSegmenter.segments(of: octets, maximumLength: size)
            #expect(chunks.allSatisfy { $0.count <= size && !$0.isEmpty })
            #expect(chunks.count == (octets.count + size - 1) / size)
            #expect(Array(chunks.joined()) == octets)
            var parser = DeviceFrameParser()
            let results = chunks.flatMap { parser.append($0) }
            #expect(results.count == 1)
            #expect((try? results.first?.get()) == frame)
        }
    }

    @Test("Reassembly at every split point of a two-frame stream, in two chunks")
    func everySplitPoint() {
        let stream = Self.frames[2].encoded + Self.frames[3].encoded
        for split in 0...stream.count {
            var parser = DeviceFrameParser()
            let frames = (parser.append(stream[..<split]) + parser.append(stream[split...])).compactMap {
                try? $0.get()
            }
            #expect(frames == [Self.frames[2], Self.frames[3]], "split at \(split)")
            #expect(parser.discardedOctets == 0 && parser.bufferedOctets == 0)
        }
    }

    @Test(
        "Reassembly from one-octet chunks and from MTU 23 and 247 chunks of the whole stream", arguments: [1, 20, 244])
    func chunked(size: Int) {
        var parser = DeviceFrameParser()
        let results = DeviceFrameSegmenter.segments(of: Self.stream, maximumLength: size).flatMap { parser.append($0) }
        #expect(results.compactMap { try? $0.get() } == Self.frames)
        #expect(parser.framesParsed == Self.frames.count)
    }

    @Test("Resynchronisation: garbage before, between and inside frames is skipped and counted")
    func resynchronises() {
        let good = Self.frames[0].encoded
        var corrupted = Self.frames[2].encoded
        corrupted[7] ^= 0x01
        let garbage: [UInt8] = [0x00, 0x11, 0x22]
        let stream = garbage + good + [0xA5, 0x77] + good + corrupted + good
        var parser = DeviceFrameParser()
        let results = parser.append(stream)
        let frames = results.compactMap { try? $0.get() }
        #expect(frames == [Self.frames[0], Self.frames[0], Self.frames[0]])
        let errors = results.compactMap { result -> DeviceProtocolError? in
            if case .failure(let error) = result { return error }
            return nil
        }
        #expect(errors.first == .unsynchronised(discarded: 3))
        #expect(errors.contains(.unsupportedVersion(7)))
        #expect(errors.contains { if case .checksumMismatch = $0 { true } else { false } })
        #expect(parser.discardedOctets == garbage.count + 2 + corrupted.count)
        #expect(parser.bufferedOctets == 0)
    }

    @Test("A false start with a long length field waits, then yields to the frames behind it")
    func falseStart() {
        // A5 10 … declares 400 octets; the real frames behind it are found once the CRC fails.
        var parser = DeviceFrameParser()
        let falseStart = hex("A5 10 04 00 90 01")
        let filler = (0..<400).map { _ in UInt8(0x33) }
        let results = parser.append(falseStart + Self.frames[0].encoded + filler + Self.frames[1].encoded)
        let frames = results.compactMap { try? $0.get() }
        #expect(frames == [Self.frames[0], Self.frames[1]])
    }

    @Test("Random bytes never trap the stream parser, and every octet is accounted for")
    func randomNeverTraps() async {
        let chunks = Gen.uint8().array(of: 0...60).array(of: 1...8)
        await propertyCheck(count: 2000, input: chunks) { chunks in
            var parser = DeviceFrameParser(maximumPayloadLength: 64)
            var delivered = 0
            for chunk in chunks {
                for result in parser.append(chunk) {
                    if case .success(let frame) = result { delivered += frame.encoded.count }
                }
            }
            let total = chunks.reduce(0) { $0 + $1.count }
            #expect(delivered + parser.discardedOctets + parser.bufferedOctets == total)
        }
    }

    @Test("Frames interleaved with random garbage free of the sync octet all come through, in order")
    func framesAmongGarbage() async {
        let garbage = Gen.uint8(in: 0...0xA4).array(of: 0...30)
        let payload = Gen.uint8().array(of: 0...80)
        await propertyCheck(count: 500, input: garbage, payload, Gen.int(in: 1...50)) { noise, payload, size in
            let frames = (0..<3).map { DeviceFrame(kind: .event, messageType: UInt8($0), payload: payload) }
            let stream = noise + frames[0].encoded + noise + frames[1].encoded + frames[2].encoded + noise
            var parser = DeviceFrameParser()
            let results = DeviceFrameSegmenter.segments(of: stream, maximumLength: size).flatMap { parser.append($0) }
            #expect(results.compactMap { try? $0.get() } == frames)
            #expect(parser.discardedOctets == noise.count * 3)
        }
    }
}
