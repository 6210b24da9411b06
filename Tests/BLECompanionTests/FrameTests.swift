import BLECompanion
import PropertyBased
import Testing

@Suite("Device protocol frames")
struct FrameTests {
    @Test("Device protocol §checksums: CRC-16/CCITT-FALSE and CRC-32 check values of \"123456789\"")
    func checkValues() {
        let digits = Array("123456789".utf8)
        #expect(DeviceChecksum.crc16CCITT(digits) == 0x29B1)
        #expect(CRC32.checksum(digits) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }

    @Test("Headset protocol v1 §frame: header fields, little-endian length and CRC (gesture tap)")
    func layout() throws {
        let frame = DeviceFrame(kind: .event, messageType: 0x04, payload: [4])
        #expect(frame.encoded == hex("A5 10 04 00 01 00 04 50 A9"))
        #expect(try DeviceFrame(decoding: hex("A5 10 04 00 01 00 04 50 A9")) == frame)
        let request = DeviceFrame(kind: .request, messageType: 0x81, sequence: 1)
        #expect(request.encoded == hex("A5 11 81 01 00 00 8E 9E"))
        let long = DeviceFrame(
            kind: .response, messageType: 0x09, sequence: 9, payload: Array(repeating: 7, count: 300))
        #expect(Array(long.encoded[4..<6]) == [0x2C, 0x01])
        #expect(try DeviceFrame(decoding: long.encoded) == long)
    }

    @Test("Headset protocol v1 §frame: each header and checksum fault is its own typed error")
    func malformed() {
        func error(_ bytes: [UInt8], maximum: Int = 1024) -> DeviceProtocolError? {
            do {
                _ = try DeviceFrame(decoding: bytes, maximumPayloadLength: maximum)
                return nil
            } catch {
                return error
            }
        }
        #expect(error([]) == .frameTruncated(needed: 6, available: 0))
        #expect(error(hex("5A 10 04 00 01 00 04 50 A9")) == .badSync(0x5A))
        #expect(error(hex("A5 20 04 00 01 00 04 50 A9")) == .unsupportedVersion(2))
        #expect(error(hex("A5 13 04 01 01 00 04 50 A9")) == .invalidFrameKind(3))
        #expect(error(hex("A5 10 04 01 01 00 04 50 A9")) == .invalidSequence(kind: .event, sequence: 1))
        #expect(error(hex("A5 11 81 00 00 00 8E 9E")) == .invalidSequence(kind: .request, sequence: 0))
        #expect(error(hex("A5 10 04 00 01 02"), maximum: 512) == .payloadTooLong(length: 0x0201, maximum: 512))
        #expect(error(hex("A5 10 04 00 01 00 04 50")) == .frameTruncated(needed: 9, available: 8))
        #expect(error(hex("A5 10 04 00 01 00 04 50 A9 00")) == .lengthMismatch(declared: 9, actual: 10))
        let corrupted = hex("A5 10 04 00 01 00 05 50 A9")
        let computed = DeviceChecksum.crc16CCITT(corrupted.prefix(7))
        #expect(computed != 0xA950)
        #expect(error(corrupted) == .checksumMismatch(received: 0xA950, computed: computed))
    }

    @Test("Headset protocol v1 §frame: random bytes never trap the frame decoder")
    func randomNeverTraps() async {
        await propertyCheck(count: 3000, input: Gen.uint8().array(of: 0...40)) { bytes in
            if let frame = try? DeviceFrame(decoding: bytes) {
                #expect(frame.encoded == bytes)
            }
            // With a valid sync octet, version and length the CRC decides.
            var fixed = [0xA5, 0x10, bytes.first ?? 0, 0, UInt8(bytes.count), 0] + bytes
            let crc = DeviceChecksum.crc16CCITT(fixed)
            fixed += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
            #expect((try? DeviceFrame(decoding: fixed))?.payload == bytes)
        }
    }
}
