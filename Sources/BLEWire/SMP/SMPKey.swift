/// A 128-bit Security Manager value: a confirm or random value, an LTK, IRK, CSRK or DHKey
/// check (Core 5.4 Vol 3 Part H §3.5.3, §3.5.4, §3.5.7, §3.6.2, §3.6.4, §3.6.6).
///
/// SMP sends every multi-octet value least significant octet first (Vol 3 Part H §3.1), while
/// the specification's sample data (Vol 3 Part H §2.2.3, Appendix D) prints numbers most
/// significant first. This type stores the number as two 64-bit halves, so it is a fixed-size
/// value with no heap storage; `description` and `init?(hex:)` use the printed (most significant
/// first) order and `encode(into:)` writes the wire (least significant first) order.
public struct SMPKey128: Hashable, Sendable, Comparable, CustomStringConvertible, CustomRendering {
    /// Most significant 64 bits.
    public var high: UInt64
    /// Least significant 64 bits (the first eight octets on the wire).
    public var low: UInt64

    @inlinable
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public static let zero = SMPKey128(high: 0, low: 0)

    /// Parses 32 hex digits, most significant first, as the specification prints values
    /// (`"5783D52156AD6F0E6388274EC6702EE0"`; spaces, underscores and a leading `0x` are ignored).
    public init?(hex text: some StringProtocol) {
        guard let words = SMPHexWords.parse(text, words: 2) else { return nil }
        self.init(high: words[0], low: words[1])
    }

    /// From 16 octets in wire order (least significant first); nil for any other count.
    public init?(littleEndian octets: some Collection<UInt8>) {
        guard octets.count == 16 else { return nil }
        var reader = ByteReader(Array(octets))
        guard let low = try? reader.u64("low"), let high = try? reader.u64("high") else { return nil }
        self.init(high: high, low: low)
    }

    /// Reads 16 octets, least significant first.
    @inlinable
    public init(from reader: inout ByteReader, field: StaticString) throws(DecodeError) {
        try reader.require(16, field)
        let low = try reader.u64(field)
        self.init(high: try reader.u64(field), low: low)
    }

    /// Appends 16 octets, least significant first.
    @inlinable
    public func encode(into writer: inout ByteWriter) {
        writer.u64(low)
        writer.u64(high)
    }

    /// The 16 wire octets (least significant first).
    public var littleEndianBytes: [UInt8] {
        var writer = ByteWriter(capacity: 16)
        encode(into: &writer)
        return writer.bytes
    }

    /// 32 lower-case hex digits, most significant first (the specification's notation).
    public var hex: String { SMPHexWords.render([high, low]) }

    public var description: String { "0x" + hex }

    public var rendered: RenderedValue { .symbol(description) }

    public static func < (lhs: SMPKey128, rhs: SMPKey128) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

/// A 256-bit Security Manager value: a P-256 public key coordinate (Core 5.4 Vol 3 Part H
/// §3.5.6), a private key or a DHKey (Vol 3 Part H §2.3.5.6).
///
/// Stored as four 64-bit words (no heap storage); printed most significant first as in the
/// specification's sample data, sent least significant octet first.
public struct SMPKey256: Hashable, Sendable, CustomStringConvertible, CustomRendering {
    /// Bits 255...192.
    public var word3: UInt64
    /// Bits 191...128.
    public var word2: UInt64
    /// Bits 127...64.
    public var word1: UInt64
    /// Bits 63...0 (the first eight octets on the wire).
    public var word0: UInt64

    @inlinable
    public init(word3: UInt64, word2: UInt64, word1: UInt64, word0: UInt64) {
        self.word3 = word3
        self.word2 = word2
        self.word1 = word1
        self.word0 = word0
    }

    public static let zero = SMPKey256(word3: 0, word2: 0, word1: 0, word0: 0)

    /// Parses 64 hex digits, most significant first (spaces, underscores, `0x` ignored).
    public init?(hex text: some StringProtocol) {
        guard let words = SMPHexWords.parse(text, words: 4) else { return nil }
        self.init(word3: words[0], word2: words[1], word1: words[2], word0: words[3])
    }

    /// From 32 octets in wire order (least significant first); nil for any other count.
    public init?(littleEndian octets: some Collection<UInt8>) {
        guard octets.count == 32 else { return nil }
        var reader = ByteReader(Array(octets))
        guard let key = try? SMPKey256(from: &reader, field: "key") else { return nil }
        self = key
    }

    /// Reads 32 octets, least significant first.
    @inlinable
    public init(from reader: inout ByteReader, field: StaticString) throws(DecodeError) {
        try reader.require(32, field)
        let w0 = try reader.u64(field)
        let w1 = try reader.u64(field)
        let w2 = try reader.u64(field)
        self.init(word3: try reader.u64(field), word2: w2, word1: w1, word0: w0)
    }

    /// Appends 32 octets, least significant first.
    @inlinable
    public func encode(into writer: inout ByteWriter) {
        writer.u64(word0)
        writer.u64(word1)
        writer.u64(word2)
        writer.u64(word3)
    }

    /// The 32 wire octets (least significant first).
    public var littleEndianBytes: [UInt8] {
        var writer = ByteWriter(capacity: 32)
        encode(into: &writer)
        return writer.bytes
    }

    /// 64 lower-case hex digits, most significant first.
    public var hex: String { SMPHexWords.render([word3, word2, word1, word0]) }

    public var description: String { "0x" + hex }

    public var rendered: RenderedValue { .symbol(description) }
}

/// Hex text ⇄ 64-bit words, most significant word first, for the key types' printed form.
enum SMPHexWords {
    static func parse(_ text: some StringProtocol, words count: Int) -> [UInt64]? {
        var body = Substring(text)
        if body.hasPrefix("0x") || body.hasPrefix("0X") { body = body.dropFirst(2) }
        guard let octets = Hex.bytes(body.filter { $0 != "_" }), octets.count == count * 8 else {
            return nil
        }
        return (0..<count).map { word in
            octets[(word * 8)..<(word * 8 + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
    }

    static func render(_ words: [UInt64]) -> String {
        var out = ""
        out.reserveCapacity(words.count * 16)
        for word in words {
            let text = String(word, radix: 16)
            out += String(repeating: "0", count: 16 - text.count) + text
        }
        return out
    }
}
