import BLEWire

/// One measured operation: `run` performs it once on prepared input and returns a value that
/// depends on the result, so the optimizer cannot drop the work.
public struct WireBenchmarkCase: Sendable {
    public let name: String
    public let summary: String
    public let run: @Sendable () -> Int
}

/// The cases of the wire-format issue, shared by the ordo-one benchmarks (time, allocations) and
/// the callgrind/DHAT instruction counter.
public enum WireBenchmarkCases {
    public static let all: [WireBenchmarkCase] = [
        h4StreamParse
    ]

    public static func named(_ name: String) -> WireBenchmarkCase? {
        all.first { $0.name == name }
    }

    // MARK: H4 stream

    /// 1 MB of H4 traffic: ACL packets carrying 244-octet notifications, interleaved with Number
    /// Of Completed Packets events, fed in 1,021-octet chunks (not aligned to packets).
    static let h4Stream: [UInt8] = {
        var stream: [UInt8] = []
        stream.reserveCapacity(1 << 20)
        var n: UInt16 = 0
        while stream.count < 1 << 20 {
            // ACL, handle 0x0040, first fragment, L2CAP length 247, CID 4, ATT notify handle n.
            stream += [0x02, 0x40, 0x20, 0xFB, 0x00, 0xF7, 0x00, 0x04, 0x00, 0x1B]
            stream += [UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8)]
            stream += [UInt8](repeating: UInt8(truncatingIfNeeded: n), count: 244)
            // Number Of Completed Packets: 1 handle, 0x0040, 1 packet.
            stream += [0x04, 0x13, 0x05, 0x01, 0x40, 0x00, 0x01, 0x00]
            n &+= 1
        }
        return Array(stream.prefix(1 << 20))
    }()

    static let h4StreamParse = WireBenchmarkCase(
        name: "h4-stream-1MB",
        summary: "H4 stream parsing of 1 MB in 1,021-octet chunks"
    ) {
        var parser = H4StreamParser()
        var packets = 0
        var start = 0
        let stream = h4Stream
        while start < stream.count {
            let end = min(start + 1021, stream.count)
            parser.feed(stream[start..<end])
            while let packet = try? parser.next() {
                packets &+= packet.payload.count
            }
            start = end
        }
        return packets
    }
}
