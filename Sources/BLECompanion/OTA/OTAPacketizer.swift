/// Cuts an image into numbered packets of a fixed payload size (the last may be short) and keeps
/// their CRC-32s, so a resend costs no recomputation and a resumed prefix can be checked.
public struct OTAPacketizer: Sendable {
    public let image: FirmwareImage
    public let packetSize: Int
    public let packetCount: Int
    /// CRC-32 of each packet's payload.
    private let packetCRCs: [UInt32]

    public init(image: FirmwareImage, packetSize: Int) throws(OTAFailure) {
        guard packetSize >= 1 else { throw .payloadTooSmall(packetSize) }
        let count = (image.size - 1) / packetSize + 1
        guard count <= OTASessionParameters.maximumPacketCount else {
            throw .imageTooLarge(packetCount: count, maximum: OTASessionParameters.maximumPacketCount)
        }
        self.image = image
        self.packetSize = packetSize
        self.packetCount = count
        var crcs: [UInt32] = []
        crcs.reserveCapacity(count)
        for number in 0..<count {
            crcs.append(CRC32.checksum(image.bytes[Self.byteRange(number, packetSize, image.size)]))
        }
        self.packetCRCs = crcs
    }

    public var parameters: OTASessionParameters {
        OTASessionParameters(image: image, packetSize: packetSize)
    }

    /// The bytes packet `number` carries; `number` must be below `packetCount`.
    public func byteRange(ofPacket number: Int) -> Range<Int> {
        Self.byteRange(number, packetSize, image.size)
    }

    /// Bytes in the packets before `number` (the device's offset when `number` is next).
    public func bytes(beforePacket number: Int) -> Int {
        min(max(0, number) * packetSize, image.size)
    }

    /// Packet `number`, with its CRC; `number` must be below `packetCount`.
    public func packet(_ number: Int) -> OTAPacket {
        OTAPacket(
            number: UInt16(truncatingIfNeeded: number), payload: Array(image.bytes[byteRange(ofPacket: number)]),
            crc32: packetCRCs[number])
    }

    /// CRC-32 of the image bytes in the first `packetCount` packets.
    public func crc32OfPackets(_ count: Int) -> UInt32 {
        CRC32.checksum(image.bytes[0..<bytes(beforePacket: count)])
    }

    private static func byteRange(_ number: Int, _ size: Int, _ total: Int) -> Range<Int> {
        let start = min(number * size, total)
        return start..<min(start + size, total)
    }
}
