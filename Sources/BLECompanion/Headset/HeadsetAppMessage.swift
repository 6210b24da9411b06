/// What the app sends the headset (headset protocol v1, types 0x81–0xFF).
public enum HeadsetAppMessage: DeviceProtocolMessage, CustomStringConvertible {
    /// A request; answered by `.firmwareVersion`.
    case firmwareVersionQuery
    /// A request; answered by `.macAddress`.
    case macAddressQuery
    /// A request; answered by `.mcuResponse` (entered OTA mode, battery too low) or
    /// `.otaResult(.versionFormatError)`.
    case otaStart(HeadsetProtocol.OTAStart)
    /// An event (no answer); a bad or missing packet brings `.otaResend`.
    case otaData(HeadsetProtocol.OTAData)
    /// A request; answered by `.otaStatus`.
    case otaStatusQuery
    /// A request: verify and swap to the new image; answered by `.otaResult`.
    case otaCommit
    /// A request: drop the partial image; answered by `.otaResult(.aborted)`.
    case otaAbort
    /// An event: the heartbeat period in seconds, 0 for none.
    case setHeartbeatPeriod(seconds: UInt16)

    /// Message type codes, one table.
    public enum Code: UInt8, Sendable, CaseIterable {
        case firmwareVersionQuery = 0x81
        case macAddressQuery = 0x82
        case otaStart = 0x83
        case otaData = 0x84
        case otaStatusQuery = 0x85
        case otaCommit = 0x86
        case otaAbort = 0x87
        case setHeartbeatPeriod = 0x88
    }

    public var code: Code {
        switch self {
        case .firmwareVersionQuery: .firmwareVersionQuery
        case .macAddressQuery: .macAddressQuery
        case .otaStart: .otaStart
        case .otaData: .otaData
        case .otaStatusQuery: .otaStatusQuery
        case .otaCommit: .otaCommit
        case .otaAbort: .otaAbort
        case .setHeartbeatPeriod: .setHeartbeatPeriod
        }
    }

    public var messageType: UInt8 { code.rawValue }

    public func encodePayload(into writer: inout DevicePayloadWriter) {
        switch self {
        case .firmwareVersionQuery, .macAddressQuery, .otaStatusQuery, .otaCommit, .otaAbort:
            break
        case .otaStart(let start):
            writer.uint32(start.imageSize)
            writer.uint16(start.packetLength)
            writer.append(start.sha256.prefix(32))
            writer.append(repeatElement(0, count: max(0, 32 - start.sha256.count)))
            writer.text(start.version)
        case .otaData(let packet):
            writer.uint16(packet.packet)
            writer.uint32(packet.crc32)
            writer.append(packet.data)
        case .setHeartbeatPeriod(let seconds):
            writer.uint16(seconds)
        }
    }

    public init(messageType: UInt8, payload: ArraySlice<UInt8>) throws(DeviceProtocolError) {
        guard let code = Code(rawValue: messageType) else {
            throw .unknownMessageType(messageType, payload: Array(payload))
        }
        var reader = DevicePayloadReader(messageType: messageType, payload: payload)
        switch code {
        case .firmwareVersionQuery: self = .firmwareVersionQuery
        case .macAddressQuery: self = .macAddressQuery
        case .otaStatusQuery: self = .otaStatusQuery
        case .otaCommit: self = .otaCommit
        case .otaAbort: self = .otaAbort
        case .otaStart:
            let size = try reader.uint32("image size")
            let packetLength = try reader.uint16("packet length")
            guard packetLength > 0 else { throw reader.malformed("packet length", .invalidValue(0)) }
            let digest = try reader.octets(32, "SHA-256")
            let version = try reader.text("version", maximum: HeadsetProtocol.maximumVersionLength)
            self = .otaStart(
                HeadsetProtocol.OTAStart(
                    imageSize: size, packetLength: packetLength, sha256: Array(digest), version: version))
        case .otaData:
            let packet = try reader.uint16("packet")
            let crc = try reader.uint32("CRC-32")
            let data = reader.rest()
            guard !data.isEmpty else { throw reader.malformed("data", .truncated(needed: 1, available: 0)) }
            self = .otaData(HeadsetProtocol.OTAData(packet: packet, crc32: crc, data: Array(data)))
        case .setHeartbeatPeriod:
            self = .setHeartbeatPeriod(seconds: try reader.uint16("seconds"))
        }
        try reader.finish()
    }

    public var description: String {
        switch self {
        case .firmwareVersionQuery: "firmware version query"
        case .macAddressQuery: "MAC address query"
        case .otaStart(let start):
            "OTA start: \(start.imageSize) octets in packets of \(start.packetLength), version \(start.version)"
        case .otaData(let packet): "OTA data packet \(packet.packet), \(packet.data.count) octets"
        case .otaStatusQuery: "OTA status query"
        case .otaCommit: "OTA commit"
        case .otaAbort: "OTA abort"
        case .setHeartbeatPeriod(let seconds): "heartbeat every \(seconds) s"
        }
    }
}
