import BLEWire

/// One measured operation: `run` performs it once on prepared input and returns a value that
/// depends on the result, so the optimizer cannot drop the work.
public struct WireBenchmarkCase: Sendable {
    public let name: String
    public let summary: String
    public let run: @Sendable () -> Int

    /// Large inputs (a megabyte stream) run once per sample instead of a thousand times.
    public var isLarge: Bool { name.hasSuffix("1MB") }
}

/// The cases of the wire-format issue, shared by the ordo-one benchmarks (time, allocations) and
/// the callgrind/DHAT instruction counter.
public enum WireBenchmarkCases {
    public static let all: [WireBenchmarkCase] = [
        attReadByTypeResponseDecode, attReadByTypeResponseEncode,
        attNotification244Decode, attNotification244Encode,
        advertisingDataDecode, advertisingDataEncode,
        leAdvertisingReportDecode, leAdvertisingReportDecodeOnly, leAdvertisingReportEncode,
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

    // MARK: Advertising data

    /// 31 octets, 5 structures: Flags, 16-bit service UUIDs (Heart Rate, Battery), TX Power,
    /// Appearance (heart rate belt), Complete Local Name "HRM-Sensor-01".
    static let advertisingData31: [UInt8] =
        [0x02, 0x01, 0x06, 0x05, 0x03, 0x0D, 0x18, 0x0F, 0x18, 0x02, 0x0A, 0x04, 0x03, 0x19, 0x41, 0x03]
        + [0x0E, 0x09] + Array("HRM-Sensor-01".utf8)

    static let advertisingDataDecode = WireBenchmarkCase(
        name: "advertising-data-31-decode",
        summary: "decode a 31-octet advertising data block with 5 structures and visit them"
    ) {
        guard let data = try? AdvertisingData(decoding: advertisingData31) else { return -1 }
        var sum = 0
        for structure in data.structures { sum &+= Int(structure.type.rawValue) &+ structure.data.count }
        return sum
    }

    static let decodedAdvertisingData = try! AdvertisingData(decoding: advertisingData31)

    static let advertisingDataEncode = WireBenchmarkCase(
        name: "advertising-data-31-encode",
        summary: "encode a 31-octet advertising data block with 5 structures"
    ) {
        var writer = ByteWriter(capacity: 32)
        decodedAdvertisingData.encode(into: &writer)
        return writer.count
    }

    // MARK: HCI events

    /// HCI_LE_Advertising_Report with 2 reports (an ADV_IND with flags and a name, and its
    /// SCAN_RSP with a 128-bit service UUID), as a controller sends during active scanning.
    static let leAdvertisingReport: [UInt8] = {
        let advData: [UInt8] = [0x02, 0x01, 0x06, 0x07, 0x09] + Array("Sensor".utf8)
        let scanData: [UInt8] = [0x11, 0x07] + (0..<16).map { UInt8($0) }
        var params: [UInt8] = [0x02, 0x02]
        params += [0x00, 0x01, 0x11, 0x22, 0x33, 0x44, 0x55, 0xC6, UInt8(advData.count)] + advData + [0xC4]
        params += [0x04, 0x01, 0x11, 0x22, 0x33, 0x44, 0x55, 0xC6, UInt8(scanData.count)] + scanData + [0xC3]
        return [0x3E, UInt8(params.count)] + params
    }()

    static let leAdvertisingReportDecode = WireBenchmarkCase(
        name: "le-advertising-report-2-decode",
        summary: "decode an LE Advertising Report event with 2 reports and visit them"
    ) {
        guard case .le(.advertisingReport(let event))? = try? HCIEvent(decoding: leAdvertisingReport)
        else { return -1 }
        var sum = 0
        for report in event.reports { sum &+= Int(report.rssi) &+ report.data.count }
        return sum
    }

    static let leAdvertisingReportDecodeOnly = WireBenchmarkCase(
        name: "le-advertising-report-2-validate",
        summary: "decode (validate) an LE Advertising Report event with 2 reports, reports not visited"
    ) {
        guard case .le(.advertisingReport(let event))? = try? HCIEvent(decoding: leAdvertisingReport)
        else { return -1 }
        return event.reports.count
    }

    static let decodedLEAdvertisingReport = try! HCIEvent(decoding: leAdvertisingReport)

    static let leAdvertisingReportEncode = WireBenchmarkCase(
        name: "le-advertising-report-2-encode",
        summary: "encode an LE Advertising Report event with 2 reports"
    ) {
        var writer = ByteWriter(capacity: 64)
        decodedLEAdvertisingReport.encode(into: &writer)
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
