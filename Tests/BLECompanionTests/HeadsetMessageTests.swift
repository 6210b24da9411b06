import BLE
import BLECompanion
import PropertyBased
import Testing

@Suite("Headset protocol v1 messages")
struct HeadsetMessageTests {
    @Test("Headset protocol v1 §headset → app: every message survives a round trip through a frame")
    func deviceRoundTrip() throws {
        for message in Samples.deviceMessages {
            let octets = message.frame(.event).encoded
            let decoded = try HeadsetDeviceMessage(frame: try DeviceFrame(decoding: octets))
            #expect(decoded == message)
            #expect((1...0x7F).contains(message.messageType))
        }
        #expect(Set(Samples.deviceMessages.map(\.code)) == Set(HeadsetDeviceMessage.Code.allCases))
    }

    @Test("Headset protocol v1 §app → headset: every message survives a round trip through a frame")
    func appRoundTrip() throws {
        for message in Samples.appMessages {
            let octets = message.frame(.request, sequence: 200).encoded
            let decoded = try HeadsetAppMessage(frame: try DeviceFrame(decoding: octets))
            #expect(decoded == message)
            #expect((0x81...0xFF).contains(message.messageType))
        }
        #expect(Set(Samples.appMessages.map(\.code)) == Set(HeadsetAppMessage.Code.allCases))
    }

    @Test("Headset protocol v1 §examples: frames byte for byte as the page shows them")
    func documentedVectors() throws {
        let device: [(HeadsetDeviceMessage, DeviceFrame.Kind, UInt8, String)] = [
            (.proximity(.near), .event, 0, "A5 10 01 00 01 00 00 83 CA"),
            (.gesture(.tap), .event, 0, "A5 10 04 00 01 00 04 50 A9"),
            (.heartbeat(7), .event, 0, "A5 10 06 00 04 00 07 00 00 00 C9 7A"),
            (
                .macAddress(BluetoothAddress("00:00:5E:00:53:10")!), .event, 0,
                "A5 10 08 00 06 00 10 53 00 5E 00 00 4F 75"
            ),
            (.otaResend(packet: 258), .event, 0, "A5 10 0C 00 02 00 02 01 DA 58"),
            (.otaResendPacket(258), .event, 0, "A5 10 0F 00 02 00 02 01 3A 96"),
            (.firmwareVersion("1.2.3"), .response, 1, "A5 12 09 01 06 00 05 31 2E 32 2E 33 87 0D"),
            (.mcuResponse(.enteredOTAMode), .response, 2, "A5 12 0A 02 01 00 00 54 40"),
            (
                .otaStatus(.init(receivedBytes: 4096, nextPacket: 16)), .response, 3,
                "A5 12 0D 03 06 00 00 10 00 00 10 00 4A 99"
            ),
            (.otaResult(.success), .response, 4, "A5 12 0B 04 01 00 00 9C CD"),
        ]
        for (message, kind, sequence, text) in device {
            #expect(message.frame(kind, sequence: sequence).encoded == hex(text), "\(message)")
            let frame = try DeviceFrame(decoding: hex(text))
            #expect(frame.kind == kind && frame.sequence == sequence)
            #expect(try HeadsetDeviceMessage(frame: frame) == message)
        }
        let start = HeadsetAppMessage.otaStart(
            .init(imageSize: 262_144, packetLength: 230, sha256: Samples.sha256, version: "2.0.0"))
        let app: [(HeadsetAppMessage, DeviceFrame.Kind, UInt8, String)] = [
            (.firmwareVersionQuery, .request, 1, "A5 11 81 01 00 00 8E 9E"),
            (
                start, .request, 2,
                "A5 11 83 02 2C 00 00 00 04 00 E6 00 00 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F 10 11 12 13 14 15"
                    + " 16 17 18 19 1A 1B 1C 1D 1E 1F 05 32 2E 30 2E 30 B0 15"
            ),
            (
                .otaData(.init(packet: 5, data: hex("DE AD BE EF"))), .event, 0,
                "A5 10 84 00 0A 00 05 00 5A A3 9C 7C DE AD BE EF D2 E7"
            ),
            (.otaCommit, .request, 4, "A5 11 86 04 00 00 53 24"),
        ]
        for (message, kind, sequence, text) in app {
            #expect(message.frame(kind, sequence: sequence).encoded == hex(text), "\(message)")
            #expect(try HeadsetAppMessage(frame: try DeviceFrame(decoding: hex(text))) == message)
        }
    }

    @Test("Headset protocol v1 §types: unknown types are typed errors that keep the payload, either way round")
    func unknownTypes() {
        #expect(throws: DeviceProtocolError.unknownMessageType(0x81, payload: [])) {
            try HeadsetDeviceMessage(messageType: 0x81, payload: [])
        }
        #expect(throws: DeviceProtocolError.unknownMessageType(0x7F, payload: [1, 2])) {
            try HeadsetDeviceMessage(messageType: 0x7F, payload: [1, 2])
        }
        #expect(throws: DeviceProtocolError.unknownMessageType(0x04, payload: [4])) {
            try HeadsetAppMessage(messageType: 0x04, payload: [4])
        }
        #expect(throws: DeviceProtocolError.unknownMessageType(0x00, payload: [])) {
            try HeadsetAppMessage(messageType: 0x00, payload: [])
        }
    }

    @Test("Headset protocol v1 §payloads: short, long and out-of-range fields are typed, naming the field")
    func malformedPayloads() {
        func device(_ type: UInt8, _ payload: [UInt8]) -> DeviceProtocolError? {
            do {
                _ = try HeadsetDeviceMessage(messageType: type, payload: payload[...])
                return nil
            } catch {
                return error
            }
        }
        func app(_ type: UInt8, _ payload: [UInt8]) -> DeviceProtocolError? {
            do {
                _ = try HeadsetAppMessage(messageType: type, payload: payload[...])
                return nil
            } catch {
                return error
            }
        }
        func malformed(_ type: UInt8, _ field: String, _ problem: DevicePayloadProblem) -> DeviceProtocolError {
            .malformedPayload(messageType: type, field: field, problem: problem)
        }
        #expect(device(0x01, []) == malformed(0x01, "state", .truncated(needed: 1, available: 0)))
        #expect(device(0x01, [3]) == malformed(0x01, "state", .invalidValue(3)))
        #expect(device(0x01, [0, 0]) == malformed(0x01, "end of payload", .trailingOctets(1)))
        #expect(device(0x02, [9]) == malformed(0x02, "state", .invalidValue(9)))
        #expect(device(0x03, [101]) == malformed(0x03, "level", .invalidValue(101)))
        #expect(device(0x04, [7]) == malformed(0x04, "gesture", .invalidValue(7)))
        #expect(device(0x05, [200]) == malformed(0x05, "percent", .invalidValue(200)))
        #expect(device(0x06, [1, 2, 3]) == malformed(0x06, "count", .truncated(needed: 4, available: 3)))
        #expect(device(0x07, [0]) == malformed(0x07, "end of payload", .trailingOctets(1)))
        #expect(device(0x08, [1, 2, 3, 4, 5]) == malformed(0x08, "address", .truncated(needed: 6, available: 5)))
        #expect(device(0x09, [3, 0x31]) == malformed(0x09, "version", .truncated(needed: 3, available: 1)))
        #expect(
            device(0x09, [33] + Array(repeating: 0x31, count: 33))
                == malformed(0x09, "version", .tooLong(length: 33, maximum: 32)))
        #expect(device(0x09, [2, 0xC3, 0x28]) == malformed(0x09, "version", .invalidText))
        #expect(device(0x0A, [2]) == malformed(0x0A, "response", .invalidValue(2)))
        #expect(device(0x0B, [6]) == malformed(0x0B, "result", .invalidValue(6)))
        #expect(device(0x0C, [1]) == malformed(0x0C, "packet", .truncated(needed: 2, available: 1)))
        #expect(device(0x0D, [0, 0, 0, 0, 1]) == malformed(0x0D, "next packet", .truncated(needed: 2, available: 1)))
        #expect(app(0x81, [0]) == malformed(0x81, "end of payload", .trailingOctets(1)))
        #expect(app(0x83, [0, 0, 4, 0, 0, 0]) == malformed(0x83, "packet length", .invalidValue(0)))
        #expect(
            app(0x83, [0, 0, 4, 0, 230, 0] + Array(repeating: 0, count: 31))
                == malformed(0x83, "SHA-256", .truncated(needed: 32, available: 31)))
        #expect(app(0x84, [5, 0, 1, 2, 3, 4]) == malformed(0x84, "data", .truncated(needed: 1, available: 0)))
        #expect(app(0x84, [5, 0, 1]) == malformed(0x84, "CRC-32", .truncated(needed: 4, available: 1)))
        #expect(app(0x88, [60]) == malformed(0x88, "seconds", .truncated(needed: 2, available: 1)))
    }

    @Test("Headset protocol v1 §payloads: random payloads of every type never trap either decoder")
    func randomPayloadsNeverTrap() async {
        await propertyCheck(count: 4000, input: Gen.uint8(), Gen.uint8().array(of: 0...48)) { type, payload in
            if let message = try? HeadsetDeviceMessage(messageType: type, payload: payload[...]) {
                let again = try? HeadsetDeviceMessage(messageType: message.messageType, payload: message.payload[...])
                #expect(again == message)
            }
            if let message = try? HeadsetAppMessage(messageType: type, payload: payload[...]) {
                let again = try? HeadsetAppMessage(messageType: message.messageType, payload: message.payload[...])
                #expect(again == message)
            }
        }
    }

    @Test(
        "Headset protocol v1 §OTA data: one packet fills one Write Command at MTU 23, 247 and 517",
        arguments: [23, 247, 517])
    func otaPacketFitsMTU(mtu: Int) throws {
        let length = HeadsetProtocol.maximumOTADataLength(forATTMTU: mtu)
        let packet = HeadsetAppMessage.otaData(.init(packet: 1, data: Array(repeating: 0x5A, count: length)))
        let octets = packet.frame(.event).encoded
        #expect(octets.count == mtu - 3)
        #expect(packet.payload.count <= HeadsetProtocol.maximumPayloadLength)
        #expect(try HeadsetAppMessage(frame: DeviceFrame(decoding: octets, maximumPayloadLength: 512)) == packet)
    }
}
