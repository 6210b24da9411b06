/// An Intel HEX file (Intel's "Hexadecimal Object File Format Specification", rev. A, 1988)
/// decoded to the flat image it describes: data records (00) placed at their addresses, extended
/// segment (02) and extended linear (04) address records moving the base, start address
/// records (03, 05) kept, and the end-of-file record (01) required. Gaps are filled with 0xFF
/// (erased flash); data written twice is refused.
public struct IntelHexImage: Sendable, Hashable {
    /// The address of the image's first byte (the lowest address written).
    public var baseAddress: UInt32
    /// The bytes from `baseAddress` to the highest address written, gaps as 0xFF.
    public var bytes: [UInt8]
    /// How many records the file holds (each checked).
    public var recordCount: Int
    /// How many bytes the data records carry (less than `bytes.count` when there are gaps).
    public var dataByteCount: Int
    /// The start address record's value (03: CS:IP as CS << 16 | IP; 05: EIP), if any.
    public var startAddress: UInt32?

    /// The widest span from lowest to highest address accepted.
    public static let maximumSpan = 64 * 1024 * 1024

    /// Whether `bytes` starts like a HEX file: optional whitespace, ':', then hex digits to the
    /// end of the first line.
    static func looksLikeIntelHex(_ bytes: [UInt8]) -> Bool {
        guard let start = bytes.firstIndex(where: { !Self.isSpace($0) }), bytes[start] == UInt8(ascii: ":") else {
            return false
        }
        let line = bytes[(start + 1)...].prefix { $0 != 0x0A && $0 != 0x0D }
        return line.count >= 10 && line.allSatisfy { Self.nibble($0) != nil }
    }

    /// Decodes a whole file; a damaged line is `FirmwareFileError.intelHex(line:_:)`.
    public init(decoding bytes: [UInt8]) throws(FirmwareFileError) {
        // Address → bytes runs, merged into the flat image at the end.
        var runs: [(address: UInt64, data: ArraySlice<UInt8>, line: Int)] = []
        var base: UInt64 = 0
        var records = 0
        var dataCount = 0
        var start: UInt32?
        var endLine: Int?
        var lineNumber = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            var text = line[...]
            while let last = text.last, Self.isSpace(last) { text = text.dropLast() }
            while let first = text.first, Self.isSpace(first) { text = text.dropFirst() }
            if text.isEmpty { continue }
            if endLine != nil { throw .intelHex(line: lineNumber, .afterEndOfFile) }
            let record = try Self.record(text, line: lineNumber)
            records += 1
            switch record.type {
            case 0x00:
                guard !record.data.isEmpty else { continue }
                runs.append((base + UInt64(record.address), record.data, lineNumber))
                dataCount += record.data.count
            case 0x01:
                guard record.data.isEmpty else { throw .intelHex(line: lineNumber, .malformedRecord(type: 1)) }
                endLine = lineNumber
            case 0x02, 0x04:
                guard record.data.count == 2, record.address == 0 else {
                    throw .intelHex(line: lineNumber, .malformedRecord(type: record.type))
                }
                let value = record.data.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                base = record.type == 0x02 ? value << 4 : value << 16
            case 0x03, 0x05:
                guard record.data.count == 4, record.address == 0 else {
                    throw .intelHex(line: lineNumber, .malformedRecord(type: record.type))
                }
                start = record.data.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            default:
                throw .intelHex(line: lineNumber, .unknownRecordType(record.type))
            }
        }
        guard endLine != nil else { throw .intelHex(line: lineNumber, .noEndOfFile) }
        guard let lowest = runs.map(\.address).min() else { throw .intelHex(line: lineNumber, .noData) }
        let highest = runs.map { $0.address + UInt64($0.data.count) }.max() ?? lowest
        let span = highest - lowest
        guard span <= UInt64(Self.maximumSpan) else {
            let line = runs.first { $0.address + UInt64($0.data.count) == highest }?.line ?? lineNumber
            throw .intelHex(line: line, .spanTooLarge(span: span, limit: Self.maximumSpan))
        }
        // Sorted by address, each run must start at or after the end of the one before it.
        let sorted = runs.enumerated().sorted { ($0.element.address, $0.offset) < ($1.element.address, $1.offset) }
        var image = [UInt8](repeating: 0xFF, count: Int(span))
        var end = lowest
        var previousLine = 0
        for (_, run) in sorted {
            // The line reported is the later of the two in the file: the one that writes again.
            guard run.address >= end else {
                throw .intelHex(
                    line: max(run.line, previousLine), .overlap(address: UInt32(truncatingIfNeeded: run.address)))
            }
            previousLine = run.line
            let offset = Int(run.address - lowest)
            image.replaceSubrange(offset..<offset + run.data.count, with: run.data)
            end = run.address + UInt64(run.data.count)
        }
        // The lowest address fits 32 bits: a segment base is at most 0xFFFF0 and a linear one
        // 0xFFFF0000, plus a 16-bit offset; past that the file describes bytes above 4 GiB.
        self.baseAddress = UInt32(truncatingIfNeeded: lowest)
        self.bytes = image
        self.recordCount = records
        self.dataByteCount = dataCount
        self.startAddress = start
    }

    /// One record: ':', byte count, 16-bit address, type, data, checksum, in hex digits.
    private static func record(_ text: ArraySlice<UInt8>, line: Int) throws(FirmwareFileError)
        -> (type: UInt8, address: UInt16, data: ArraySlice<UInt8>)
    {
        guard text.first == UInt8(ascii: ":") else { throw .intelHex(line: line, .noStartCode) }
        let digits = text.dropFirst()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            let column = index - text.startIndex + 1
            guard let high = nibble(digits[index]) else { throw .intelHex(line: line, .notHex(column: column)) }
            guard index + 1 < digits.endIndex else { throw .intelHex(line: line, .tooShort) }
            guard let low = nibble(digits[index + 1]) else { throw .intelHex(line: line, .notHex(column: column + 1)) }
            bytes.append(high << 4 | low)
            index += 2
        }
        guard bytes.count >= 5 else { throw .intelHex(line: line, .tooShort) }
        let count = Int(bytes[0])
        guard bytes.count - 5 == count else {
            throw .intelHex(line: line, .lengthMismatch(declared: count, actual: bytes.count - 5))
        }
        let sum = bytes.dropLast().reduce(UInt8(0), &+)
        let expected = 0 &- sum
        guard expected == bytes[bytes.count - 1] else {
            throw .intelHex(line: line, .checksum(expected: expected, actual: bytes[bytes.count - 1]))
        }
        let data = Array(bytes[4..<(4 + count)])[...]
        return (bytes[3], UInt16(bytes[1]) << 8 | UInt16(bytes[2]), data)
    }

    static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
}
