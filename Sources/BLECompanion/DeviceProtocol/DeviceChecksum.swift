/// The checksum of device protocol frames, CRC-16/CCITT-FALSE. Firmware packets carry CRC-32
/// (IEEE 802.3, as zlib computes it): `CRC32`.
public enum DeviceChecksum {
    /// CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, not reflected, no final
    /// XOR. "123456789" gives 0x29B1. It detects every error burst up to 16 bits and every odd
    /// number of bit errors in a frame, which a CRC-8 would not over frames of hundreds of
    /// octets.
    public static func crc16CCITT<Bytes: Sequence<UInt8>>(_ bytes: Bytes, initial: UInt16 = 0xFFFF) -> UInt16 {
        var crc = initial
        for byte in bytes {
            crc = crc16Table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)] ^ (crc << 8)
        }
        return crc
    }

    private static let crc16Table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }
}
