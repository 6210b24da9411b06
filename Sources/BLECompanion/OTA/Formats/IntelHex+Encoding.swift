extension IntelHexImage {
    /// `data` at `address` as Intel HEX text ("Hexadecimal Object File Format Specification",
    /// Intel, rev. A, 1988): an Extended Linear Address record (04) whenever the upper 16 bits
    /// change, Data records (00) of up to 16 bytes that never cross a 64 KiB boundary, a Start
    /// Linear Address record (05) and the End Of File record (01). Each record's checksum is the
    /// two's complement of the sum of its bytes.
    public static func encoded(_ data: [UInt8], at address: UInt32 = 0) -> String {
        var text = ""
        var upper: UInt32?
        var offset = 0
        while offset < data.count {
            let current = address &+ UInt32(offset)
            if current >> 16 != upper {
                upper = current >> 16
                text += record(0x04, [UInt8(current >> 24), UInt8(truncatingIfNeeded: current >> 16)])
            }
            let room = Int(0x1_0000 - (current & 0xFFFF))
            let count = min(16, data.count - offset, room)
            text += record(0x00, address: UInt16(current & 0xFFFF), Array(data[offset..<offset + count]))
            offset += count
        }
        text += record(0x05, (0..<4).map { UInt8(truncatingIfNeeded: address >> (24 - 8 * $0)) })
        return text + record(0x01)
    }

    private static func record(_ type: UInt8, address: UInt16 = 0, _ data: [UInt8] = []) -> String {
        let body = [UInt8(data.count), UInt8(address >> 8), UInt8(address & 0xFF), type] + data
        let checksum = 0 &- body.reduce(0, &+)
        return ":" + (body + [checksum]).map { hex($0) }.joined() + "\n"
    }
}
