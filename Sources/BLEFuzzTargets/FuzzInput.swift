/// Takes structured choices out of a fuzz input, front to back; once the input is used up
/// every choice is zero or empty (so any input is a complete, deterministic script).
struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isEmpty: Bool { position >= bytes.count }
    var remainingCount: Int { bytes.count - position }

    mutating func u8() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16() -> UInt16 { UInt16(u8()) | UInt16(u8()) << 8 }

    /// A number in `0..<bound` (`bound` ≥ 1).
    mutating func below(_ bound: Int) -> Int { Int(u8()) % bound }

    /// Up to `count` octets (fewer at the end of the input).
    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, position + max(0, count))
        defer { position = end }
        return Array(bytes[min(position, end)..<end])
    }

    /// A length-prefixed chunk: one octet of length, then that many octets.
    mutating func chunk() -> [UInt8] { take(Int(u8())) }

    /// Everything left.
    mutating func rest() -> [UInt8] { take(remainingCount) }
}
