import BLE

/// What the headset sends the app (headset protocol v1, types 0x01–0x7F): events, and the
/// answers to the app's requests.
public enum HeadsetDeviceMessage: DeviceProtocolMessage, CustomStringConvertible {
    case proximity(HeadsetProtocol.Proximity)
    case audioJack(HeadsetProtocol.AudioJack)
    /// 0…100.
    case volume(UInt8)
    case gesture(HeadsetProtocol.Gesture)
    /// Percent, 0…100.
    case battery(UInt8)
    /// The device-driven wake-up: sent every heartbeat period, counting up from 0.
    case heartbeat(UInt32)
    /// The wearer asks the app to open the camera.
    case openCamera
    /// The headset's MAC address (the answer to MAC address query, or sent unasked).
    case macAddress(BluetoothAddress)
    /// The answer to firmware version query.
    case firmwareVersion(String)
    /// The answer to OTA start when the headset can take the update (or cannot: battery).
    case mcuResponse(HeadsetProtocol.MCUResponse)
    /// The answer to OTA start (version format error), OTA commit and OTA abort.
    case otaResult(HeadsetProtocol.OTAResult)
    /// OTA error report: the packet to send again (and everything after it).
    case otaResend(packet: UInt16)
    /// The answer to OTA status query.
    case otaStatus(HeadsetProtocol.OTAStatus)
    /// Windowed acknowledgement: every packet before `nextPacket` is received and verified.
    case otaAcknowledged(nextPacket: UInt16)
    /// Selective OTA error report (v1.1): only this packet is missing or bad; the headset holds
    /// verified packets after it.
    case otaResendPacket(UInt16)

    /// Message type codes, one table.
    public enum Code: UInt8, Sendable, CaseIterable {
        case proximity = 0x01
        case audioJack = 0x02
        case volume = 0x03
        case gesture = 0x04
        case battery = 0x05
        case heartbeat = 0x06
        case openCamera = 0x07
        case macAddress = 0x08
        case firmwareVersion = 0x09
        case mcuResponse = 0x0A
        case otaResult = 0x0B
        case otaResend = 0x0C
        case otaStatus = 0x0D
        case otaAcknowledged = 0x0E
        case otaResendPacket = 0x0F
    }

    public var code: Code {
        switch self {
        case .proximity: .proximity
        case .audioJack: .audioJack
        case .volume: .volume
        case .gesture: .gesture
        case .battery: .battery
        case .heartbeat: .heartbeat
        case .openCamera: .openCamera
        case .macAddress: .macAddress
        case .firmwareVersion: .firmwareVersion
        case .mcuResponse: .mcuResponse
        case .otaResult: .otaResult
        case .otaResend: .otaResend
        case .otaStatus: .otaStatus
        case .otaAcknowledged: .otaAcknowledged
        case .otaResendPacket: .otaResendPacket
        }
    }

    public var messageType: UInt8 { code.rawValue }

    public func encodePayload(into writer: inout DevicePayloadWriter) {
        switch self {
        case .proximity(let state): writer.uint8(state.rawValue)
        case .audioJack(let state): writer.uint8(state.rawValue)
        case .volume(let level): writer.uint8(level)
        case .gesture(let gesture): writer.uint8(gesture.rawValue)
        case .battery(let percent): writer.uint8(percent)
        case .heartbeat(let count): writer.uint32(count)
        case .openCamera: break
        case .macAddress(let address): writer.append(address.octets.reversed())
        case .firmwareVersion(let version): writer.text(version)
        case .mcuResponse(let response): writer.uint8(response.rawValue)
        case .otaResult(let result): writer.uint8(result.rawValue)
        case .otaResend(let packet): writer.uint16(packet)
        case .otaStatus(let status):
            writer.uint32(status.receivedBytes)
            writer.uint16(status.nextPacket)
        case .otaAcknowledged(let next): writer.uint16(next)
        case .otaResendPacket(let packet): writer.uint16(packet)
        }
    }

    public init(messageType: UInt8, payload: ArraySlice<UInt8>) throws(DeviceProtocolError) {
        guard let code = Code(rawValue: messageType) else {
            throw .unknownMessageType(messageType, payload: Array(payload))
        }
        var reader = DevicePayloadReader(messageType: messageType, payload: payload)
        switch code {
        case .proximity: self = .proximity(try reader.code("state", HeadsetProtocol.Proximity.init))
        case .audioJack: self = .audioJack(try reader.code("state", HeadsetProtocol.AudioJack.init))
        case .volume: self = .volume(try reader.code("level") { $0 <= 100 ? $0 : nil })
        case .gesture: self = .gesture(try reader.code("gesture", HeadsetProtocol.Gesture.init))
        case .battery: self = .battery(try reader.code("percent") { $0 <= 100 ? $0 : nil })
        case .heartbeat: self = .heartbeat(try reader.uint32("count"))
        case .openCamera: self = .openCamera
        case .macAddress:
            let octets = try reader.octets(6, "address")
            self = .macAddress(BluetoothAddress(octets.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }))
        case .firmwareVersion:
            self = .firmwareVersion(try reader.text("version", maximum: HeadsetProtocol.maximumVersionLength))
        case .mcuResponse: self = .mcuResponse(try reader.code("response", HeadsetProtocol.MCUResponse.init))
        case .otaResult: self = .otaResult(try reader.code("result", HeadsetProtocol.OTAResult.init))
        case .otaResend: self = .otaResend(packet: try reader.uint16("packet"))
        case .otaStatus:
            let received = try reader.uint32("received bytes")
            self = .otaStatus(
                HeadsetProtocol.OTAStatus(receivedBytes: received, nextPacket: try reader.uint16("next packet")))
        case .otaAcknowledged: self = .otaAcknowledged(nextPacket: try reader.uint16("next packet"))
        case .otaResendPacket: self = .otaResendPacket(try reader.uint16("packet"))
        }
        try reader.finish()
    }

    public var description: String {
        switch self {
        case .proximity(let state): "proximity \(state)"
        case .audioJack(let state): "audio jack \(state)"
        case .volume(let level): "volume \(level)"
        case .gesture(let gesture): "gesture \(gesture)"
        case .battery(let percent): "battery \(percent) %"
        case .heartbeat(let count): "heartbeat \(count)"
        case .openCamera: "open camera"
        case .macAddress(let address): "MAC address \(address)"
        case .firmwareVersion(let version): "firmware version \(version)"
        case .mcuResponse(let response): "MCU response \(response)"
        case .otaResult(let result): "OTA result \(result)"
        case .otaResend(let packet): "OTA error: resend from packet \(packet)"
        case .otaStatus(let status): "OTA status: \(status.receivedBytes) octets, next packet \(status.nextPacket)"
        case .otaAcknowledged(let next): "OTA acknowledged up to packet \(next)"
        case .otaResendPacket(let packet): "OTA error: resend packet \(packet) only"
        }
    }
}
