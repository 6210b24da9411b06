/// CRC-32 as in IEEE 802.3 (also zlib, PNG): reflected polynomial 0xEDB88320, initial value and
/// final XOR 0xFFFFFFFF. Each OTA packet carries it over its payload, and a device can answer it
/// over the prefix it has received so a resumed transfer can check what is already there.
public struct CRC32: Sendable, Hashable {
    /// The running register (before the final XOR).
    private var register: UInt32 = 0xFFFF_FFFF

    public init() {}

    /// The checksum of everything fed so far.
    public var value: UInt32 { register ^ 0xFFFF_FFFF }

    /// Feeds more bytes.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = register
        for byte in bytes {
            crc = Self.table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] ^ (crc >> 8)
        }
        register = crc
    }

    /// The checksum of `bytes` in one call.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// One entry per byte value: the register after shifting that byte through eight steps.
    private static let table: [UInt32] = (0..<256).map { index in
        var entry = UInt32(index)
        for _ in 0..<8 {
            entry = entry & 1 == 1 ? (entry >> 1) ^ 0xEDB8_8320 : entry >> 1
        }
        return entry
    }
}
