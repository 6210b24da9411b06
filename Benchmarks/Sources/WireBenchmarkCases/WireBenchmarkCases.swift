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
        attReadByTypeResponseDecode, attReadByTypeResponseEncode,
        attNotification244Decode, attNotification244Encode,
        h4StreamParse,
    ]

    public static func named(_ name: String) -> WireBenchmarkCase? {
        all.first { $0.name == name }
    }

    // MARK: ATT

    /// ATT_READ_BY_TYPE_RSP, 23 octets: three characteristic declarations (handle, properties,
    /// value handle, 16-bit UUID), as a server answers characteristic discovery.
    static let readByTypeResponse: [UInt8] = [
        0x09, 0x07,
        0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2A,
        0x04, 0x00, 0x02, 0x05, 0x00, 0x01, 0x2A,
        0x06, 0x00, 0x0A, 0x07, 0x00, 0xA6, 0x2A,
    ]

    static let attReadByTypeResponseDecode = WireBenchmarkCase(
        name: "att-read-by-type-rsp-decode",
        summary: "decode an ATT Read By Type Response (23 octets, 3 entries) and visit its entries"
    ) {
        guard case .readByTypeResponse(let response)? = try? ATTPDU(decoding: readByTypeResponse)
        else { return -1 }
        var sum = 0
        for entry in response.entries { sum &+= Int(entry.handle) &+ entry.value.count }
        return sum
    }

    static let decodedReadByTypeResponse = try! ATTPDU(decoding: readByTypeResponse)

    static let attReadByTypeResponseEncode = WireBenchmarkCase(
        name: "att-read-by-type-rsp-encode",
        summary: "encode an ATT Read By Type Response (23 octets, 3 entries)"
    ) {
        var writer = ByteWriter(capacity: 32)
        decodedReadByTypeResponse.encode(into: &writer)
        return writer.count
    }

    /// ATT_HANDLE_VALUE_NTF carrying 244 octets (ATT_MTU 247).
    static let notification244: [UInt8] = [0x1B, 0x2A, 0x00] + (0..<244).map { UInt8($0 & 0xFF) }

    static let attNotification244Decode = WireBenchmarkCase(
        name: "att-notification-244-decode",
        summary: "decode a 244-octet ATT Handle Value Notification"
    ) {
        guard case .handleValueNotification(let notification)? = try? ATTPDU(decoding: notification244)
        else { return -1 }
        return Int(notification.handle) &+ notification.value.count
    }

    static let decodedNotification244 = try! ATTPDU(decoding: notification244)

    static let attNotification244Encode = WireBenchmarkCase(
        name: "att-notification-244-encode",
        summary: "encode a 244-octet ATT Handle Value Notification"
    ) {
        var writer = ByteWriter(capacity: 256)
        decodedNotification244.encode(into: &writer)
        return writer.count
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
