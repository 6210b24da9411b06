/// DEFLATE decompression (RFC 1951): stored, fixed-Huffman and dynamic-Huffman blocks, written
/// here so that reading a firmware package needs no compression library. Input is untrusted:
/// every malformed stream is an `InflateError`, and the output never grows past `limit`.
enum Inflate {
    /// Decompresses `input` (raw DEFLATE, no zlib or gzip wrapper), refusing more than `limit`
    /// bytes of output.
    static func decompress(_ input: ArraySlice<UInt8>, limit: Int) throws(InflateError) -> [UInt8] {
        var state = InflateState(input: input, limit: limit)
        var last = false
        while !last {
            last = try state.bits(1) == 1
            // BTYPE, RFC 1951 §3.2.3: 00 stored, 01 fixed Huffman, 10 dynamic Huffman, 11 reserved.
            switch try state.bits(2) {
            case 0: try state.storedBlock()
            case 1: try state.codes(literals: HuffmanTable.fixedLiterals, distances: HuffmanTable.fixedDistances)
            case 2:
                let (literals, distances) = try state.dynamicTables()
                try state.codes(literals: literals, distances: distances)
            default: throw .reservedBlockType
            }
        }
        return state.output
    }
}

/// Why a DEFLATE stream could not be decompressed.
public enum InflateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stream ended before its last block did.
    case truncated
    /// A block of type 11, which RFC 1951 §3.2.3 reserves.
    case reservedBlockType
    /// A stored block whose LEN and NLEN are not each other's complement (§3.2.4).
    case storedLengthMismatch
    /// A dynamic block's code lengths do not form a usable prefix code (§3.2.7).
    case badCodeLengths(String)
    /// A code that no symbol has, or a length or distance symbol out of range (§3.2.5).
    case badSymbol(String)
    /// A distance reaching back before the start of the output.
    case distanceTooFar(distance: Int, available: Int)
    /// The output would pass the limit (a zip bomb, or a size that lies).
    case tooLarge(limit: Int)

    public var description: String {
        switch self {
        case .truncated: "the deflate stream ends early"
        case .reservedBlockType: "a deflate block has the reserved type 3"
        case .storedLengthMismatch: "a stored deflate block's length check fails"
        case .badCodeLengths(let why): "a deflate block's Huffman code is invalid (\(why))"
        case .badSymbol(let why): "the deflate stream holds an invalid code (\(why))"
        case .distanceTooFar(let distance, let available):
            "a deflate back-reference reaches \(distance) bytes back with \(available) written"
        case .tooLarge(let limit): "the deflate stream expands past \(limit) bytes"
        }
    }
}

/// A canonical Huffman code (RFC 1951 §3.2.2) as counts of codes per length and the symbols in
/// code order: decoding walks the lengths one bit at a time, which needs no big tables.
struct HuffmanTable: Sendable {
    static let maximumBits = 15
    /// counts[n]: how many codes have n bits.
    var counts: [Int]
    /// Symbols ordered by code length, then by symbol value (the canonical order).
    var symbols: [Int]

    /// Builds the code from each symbol's length (0: unused). Over-subscribed lengths are an
    /// error; an incomplete code is allowed only as RFC 1951 allows it (a single distance code),
    /// and decoding a missing code is then an error.
    init(lengths: [Int], allowIncomplete: Bool) throws(InflateError) {
        var counts = [Int](repeating: 0, count: Self.maximumBits + 1)
        for length in lengths { counts[length] += 1 }
        var left = 1
        for length in 1...Self.maximumBits {
            left = left * 2 - counts[length]
            if left < 0 { throw .badCodeLengths("over-subscribed") }
        }
        let used = lengths.count - counts[0]
        if left > 0 && !allowIncomplete && used > 1 { throw .badCodeLengths("incomplete") }
        var offsets = [Int](repeating: 0, count: Self.maximumBits + 2)
        for length in 1...Self.maximumBits { offsets[length + 1] = offsets[length] + counts[length] }
        var symbols = [Int](repeating: 0, count: used)
        for (symbol, length) in lengths.enumerated() where length != 0 {
            symbols[offsets[length]] = symbol
            offsets[length] += 1
        }
        counts[0] = 0
        self.counts = counts
        self.symbols = symbols
    }

    /// The fixed literal/length code of RFC 1951 §3.2.6.
    static let fixedLiterals: HuffmanTable = {
        var lengths = [Int](repeating: 8, count: 288)
        for symbol in 144..<256 { lengths[symbol] = 9 }
        for symbol in 256..<280 { lengths[symbol] = 7 }
        // The lengths are the specification's own: they always form a complete code.
        return (try? HuffmanTable(lengths: lengths, allowIncomplete: false)) ?? HuffmanTable(counts: [], symbols: [])
    }()

    /// The fixed distance code: 30 five-bit codes (symbols 30 and 31 never occur).
    static let fixedDistances: HuffmanTable = {
        let lengths = [Int](repeating: 5, count: 30)
        return (try? HuffmanTable(lengths: lengths, allowIncomplete: true)) ?? HuffmanTable(counts: [], symbols: [])
    }()

    private init(counts: [Int], symbols: [Int]) {
        self.counts = counts
        self.symbols = symbols
    }
}

/// The decoder's position in the input and the output so far.
struct InflateState {
    let input: ArraySlice<UInt8>
    let limit: Int
    var position: Int
    var bitBuffer: UInt32 = 0
    var bitCount = 0
    var output: [UInt8] = []

    init(input: ArraySlice<UInt8>, limit: Int) {
        self.input = input
        self.limit = limit
        self.position = input.startIndex
    }

    /// The next `count` bits (≤ 16), least significant first (§3.1.1).
    mutating func bits(_ count: Int) throws(InflateError) -> Int {
        while bitCount < count {
            guard position < input.endIndex else { throw .truncated }
            bitBuffer |= UInt32(input[position]) << UInt32(bitCount)
            position += 1
            bitCount += 8
        }
        let value = Int(bitBuffer & ((1 << UInt32(count)) - 1))
        bitBuffer >>= UInt32(count)
        bitCount -= count
        return value
    }

    mutating func append(_ byte: UInt8) throws(InflateError) {
        guard output.count < limit else { throw .tooLarge(limit: limit) }
        output.append(byte)
    }

    /// A stored block (§3.2.4): to the byte boundary, LEN, NLEN, then LEN bytes as they are.
    mutating func storedBlock() throws(InflateError) {
        bitBuffer = 0
        bitCount = 0
        guard input.endIndex - position >= 4 else { throw .truncated }
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
        position += 4
        guard length == ~complement & 0xFFFF else { throw .storedLengthMismatch }
        guard input.endIndex - position >= length else { throw .truncated }
        guard output.count + length <= limit else { throw .tooLarge(limit: limit) }
        output.append(contentsOf: input[position..<position + length])
        position += length
    }

    /// One symbol of `table`: reads a bit at a time and compares with the first code of each
    /// length (canonical codes are consecutive within a length).
    mutating func decode(_ table: HuffmanTable) throws(InflateError) -> Int {
        var code = 0
        var first = 0
        var index = 0
        for length in 1...HuffmanTable.maximumBits {
            code |= try bits(1)
            let count = table.counts[length]
            if code - first < count { return table.symbols[index + code - first] }
            index += count
            first = (first + count) << 1
            code <<= 1
        }
        throw .badSymbol("no symbol has this code")
    }

    /// Base lengths and extra bits of length symbols 257–285 (§3.2.5).
    static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    /// Base distances and extra bits of distance symbols 0–29 (§3.2.5).
    static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
        6145, 8193, 12289, 16385, 24577,
    ]
    static let distanceExtra = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]

    /// A compressed block's literals and back-references up to its end-of-block symbol.
    mutating func codes(literals: HuffmanTable, distances: HuffmanTable) throws(InflateError) {
        while true {
            let symbol = try decode(literals)
            if symbol < 256 {
                try append(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let lengthIndex = symbol - 257
            guard lengthIndex < Self.lengthBase.count else { throw .badSymbol("length symbol \(symbol)") }
            let length = try Self.lengthBase[lengthIndex] + bits(Self.lengthExtra[lengthIndex])
            let distanceSymbol = try decode(distances)
            guard distanceSymbol < Self.distanceBase.count else {
                throw .badSymbol("distance symbol \(distanceSymbol)")
            }
            let distance = try Self.distanceBase[distanceSymbol] + bits(Self.distanceExtra[distanceSymbol])
            guard distance <= output.count else {
                throw .distanceTooFar(distance: distance, available: output.count)
            }
            guard output.count + length <= limit else { throw .tooLarge(limit: limit) }
            // Byte by byte: a copy may overlap what it writes (distance < length repeats).
            let start = output.count - distance
            for offset in 0..<length { output.append(output[start + offset]) }
        }
    }

    /// The order in which code length code lengths are sent (§3.2.7).
    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// A dynamic block's header (§3.2.7): the code length code, then the literal/length and
    /// distance code lengths it encodes.
    mutating func dynamicTables() throws(InflateError) -> (HuffmanTable, HuffmanTable) {
        let literalCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let codeLengthCount = try bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else {
            throw .badCodeLengths("\(literalCount) literal and \(distanceCount) distance codes")
        }
        var codeLengthLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeLengthCount { codeLengthLengths[Self.codeLengthOrder[index]] = try bits(3) }
        let codeLengthTable = try HuffmanTable(lengths: codeLengthLengths, allowIncomplete: false)
        var lengths: [Int] = []
        let total = literalCount + distanceCount
        while lengths.count < total {
            let symbol = try decode(codeLengthTable)
            let repeated: Int
            var value = 0
            switch symbol {
            case 0...15:
                lengths.append(symbol)
                continue
            case 16:
                guard let previous = lengths.last else { throw .badCodeLengths("a repeat with nothing before it") }
                value = previous
                repeated = try 3 + bits(2)
            case 17: repeated = try 3 + bits(3)
            default: repeated = try 11 + bits(7)
            }
            guard lengths.count + repeated <= total else { throw .badCodeLengths("repeats past the last code") }
            lengths.append(contentsOf: repeatElement(value, count: repeated))
        }
        guard lengths[256] != 0 else { throw .badCodeLengths("no end-of-block code") }
        let literals = try HuffmanTable(lengths: Array(lengths[0..<literalCount]), allowIncomplete: false)
        let distances = try HuffmanTable(lengths: Array(lengths[literalCount...]), allowIncomplete: true)
        return (literals, distances)
    }
}
