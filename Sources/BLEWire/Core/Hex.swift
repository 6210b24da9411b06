/// Hexadecimal helpers shared by rendering, the CLI and tests.
public enum Hex {
    private static let digits: [Character] = Array("0123456789abcdef")

    /// Lower-case hex, no separators: `[0x04, 0x0e]` → "040e".
    public static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var out = ""
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return out
    }

    /// `0x` and `width` upper-case hex digits: `(0x0c03, 4)` → "0x0C03".
    public static func prefixed<T: BinaryInteger>(_ value: T, width: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// Parses hex digits, ignoring spaces, colons, dashes and a leading `0x`. Returns nil on an odd
    /// number of digits or a non-hex character.
    public static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        var body = Substring(text)
        if body.hasPrefix("0x") || body.hasPrefix("0X") { body = body.dropFirst(2) }
        var out: [UInt8] = []
        out.reserveCapacity(body.utf8.count / 2)
        var high: UInt8? = nil
        for scalar in body.utf8 {
            let nibble: UInt8
            switch scalar {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = scalar - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = scalar - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = scalar - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "\n"),
                UInt8(ascii: "\t"):
                continue
            default: return nil
            }
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return high == nil ? out : nil
    }
}
