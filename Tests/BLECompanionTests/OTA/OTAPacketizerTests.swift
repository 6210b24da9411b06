import BLECompanion
import Testing

@Suite("OTA packets")
struct OTAPacketizerTests {
    @Test("An image splits into numbered packets of the payload size, the last one short, each with its CRC")
    func splitting() throws {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let image = try FirmwareImage(bytes: bytes, version: "1.0.0")
        let packets = try OTAPacketizer(image: image, packetSize: 244)
        #expect(packets.packetCount == 5)
        var joined: [UInt8] = []
        for number in 0..<packets.packetCount {
            let packet = packets.packet(number)
            #expect(packet.number == UInt16(number))
            #expect(packet.crc32 == CRC32.checksum(packet.payload))
            #expect(packet.payload.count == (number < 4 ? 244 : 1000 - 4 * 244))
            joined += packet.payload
        }
        #expect(joined == bytes)
        #expect(packets.parameters.packetCount == 5)
        #expect(packets.bytes(beforePacket: 5) == 1000)
        #expect(packets.crc32OfPackets(2) == CRC32.checksum(bytes[0..<488]))
        #expect(packets.crc32OfPackets(5) == CRC32.checksum(bytes))
    }

    @Test("An exact multiple of the payload has no empty last packet")
    func exactMultiple() throws {
        let image = try FirmwareImage(bytes: [UInt8](repeating: 1, count: 480), version: "1.0.0")
        #expect(try OTAPacketizer(image: image, packetSize: 240).packetCount == 2)
    }

    @Test("Packet numbers are 16-bit: more than 65,535 packets, or a zero payload, is refused")
    func limits() throws {
        let image = try FirmwareImage(bytes: [UInt8](repeating: 0, count: 65_536), version: "1.0.0")
        #expect(throws: OTAFailure.imageTooLarge(packetCount: 65_536, maximum: 65_535)) {
            try OTAPacketizer(image: image, packetSize: 1)
        }
        #expect(try OTAPacketizer(image: image, packetSize: 2).packetCount == 32_768)
        #expect(throws: OTAFailure.payloadTooSmall(0)) { try OTAPacketizer(image: image, packetSize: 0) }
    }
}
