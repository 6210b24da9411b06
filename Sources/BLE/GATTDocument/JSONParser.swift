/// Why a GATT description is not the JSON `ble serve` takes: a syntax error (with its line and
/// column) or a key given twice in one object (RFC 8259 §4 leaves duplicates to the reader;
/// Foundation keeps the last silently, which hides a mistake), with its path in the document.
package enum JSONParseError: Error, Equatable, CustomStringConvertible {
    case syntax(String, line: Int, column: Int)
    case duplicateKey(String, path: String)
    case tooDeep(path: String, limit: Int)

    package var description: String {
        switch self {
        case .syntax(let problem, let line, let column): "\(problem) at line \(line), column \(column)"
        case .duplicateKey(let key, let path):
            "\(path.isEmpty ? "the top-level object" : path): key \"\(key)\" appears more than once"
        case .tooDeep(let path, let limit): "\(path): nested deeper than \(limit) levels"
        }
    }
}

/// A strict JSON parser (RFC 8259) into `JSONValue`: rejects duplicate keys, trailing content,
/// and nesting past `depthLimit` (so a hostile file cannot exhaust the stack). Works on UTF-8
/// octets; never traps on any input.
package struct JSONParser {
    package static let depthLimit = 64

    private let bytes: [UInt8]
    private var index = 0
    /// Where each value starts, by path, when the caller asked (`parseLocated`).
    private var offsets: [String: Int]?

    package static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        return try parser.document()
    }

    /// The document and where each of its values starts, so that a mistake found later (by a
    /// schema) can name its line and column as well as its path.
    package static func parseLocated(_ bytes: [UInt8]) throws(LocatedJSONParseError) -> (JSONValue, JSONLocations) {
        var parser = JSONParser(bytes: bytes)
        parser.offsets = [:]
        do {
            let value = try parser.document()
            return (value, JSONLocations(bytes: bytes, offsets: parser.offsets ?? [:]))
        } catch {
            // Every error leaves the parser where it found the problem (a duplicate key's start).
            let (line, column) = lineAndColumn(of: parser.index, in: bytes)
            throw LocatedJSONParseError(error: error, line: line, column: column)
        }
    }

    private mutating func document() throws(JSONParseError) -> JSONValue {
        // A UTF-8 byte order mark is tolerated (RFC 8259 §8.1 lets a parser ignore it).
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipWhitespace()
        let value = try value(path: "", depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw syntax("unexpected content after the document") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    // MARK: Values

    private mutating func value(path: String, depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < Self.depthLimit else { throw .tooDeep(path: path, limit: Self.depthLimit) }
        guard index < bytes.count else { throw syntax("unexpected end of the document") }
        offsets?[path] = index
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(path: path, depth: depth)
        case UInt8(ascii: "["): return try array(path: path, depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw syntax("unexpected character")
        }
    }

    private mutating func object(path: String, depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw syntax("expected a key in quotes") }
            let keyStart = index
            let key = try string()
            guard members[key] == nil else {
                index = keyStart
                throw .duplicateKey(key, path: path)
            }
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw syntax("expected ':' after a key") }
            index += 1
            skipWhitespace()
            members[key] = try value(path: path.isEmpty ? key : "\(path).\(key)", depth: depth + 1)
            if try closes(with: "}", in: "an object") { return .object(members) }
        }
    }

    private mutating func array(path: String, depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(path: "\(path)[\(elements.count)]", depth: depth + 1))
            if try closes(with: "]", in: "an array") { return .array(elements) }
        }
    }

    /// After a member or an element: consumes a ',' (false: another follows) or the closing
    /// `bracket` (true); anything else is a syntax error.
    private mutating func closes(with bracket: Unicode.Scalar, in container: String) throws(JSONParseError) -> Bool {
        skipWhitespace()
        if peek(UInt8(ascii: ",")) {
            index += 1
            return false
        }
        guard peek(UInt8(ascii: bracket)) else { throw syntax("expected ',' or '\(bracket)' in \(container)") }
        index += 1
        return true
    }

    private mutating func literal(_ word: String, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let octets = Array(word.utf8)
        guard bytes[index...].starts(with: octets) else { throw syntax("unexpected character") }
        index += octets.count
        return value
    }

    /// RFC 8259 §6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
    private mutating func number() throws(JSONParseError) -> Double {
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        if peek(UInt8(ascii: "0")) {
            index += 1
        } else {
            guard digits() > 0 else { throw syntax("expected a digit") }
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard digits() > 0 else { throw syntax("expected a digit after '.'") }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard digits() > 0 else { throw syntax("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let number = Double(text), number.isFinite else {
            index = start
            throw syntax("a number out of range")
        }
        return number
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    /// A string: escapes decoded (surrogate pairs joined), control characters refused, the
    /// octets checked as UTF-8.
    private mutating func string() throws(JSONParseError) -> String {
        index += 1
        var octets: [UInt8] = []
        while true {
            guard index < bytes.count else { throw syntax("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: octets, as: UTF8.self) else {
                    throw syntax("a string that is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw syntax("unterminated string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): octets.append(escape)
                case UInt8(ascii: "b"): octets.append(0x08)
                case UInt8(ascii: "f"): octets.append(0x0C)
                case UInt8(ascii: "n"): octets.append(0x0A)
                case UInt8(ascii: "r"): octets.append(0x0D)
                case UInt8(ascii: "t"): octets.append(0x09)
                case UInt8(ascii: "u"): octets += try unicodeEscape()
                default:
                    index -= 1
                    throw syntax("an unknown escape")
                }
            case 0x00..<0x20:
                throw syntax("a control character in a string (escape it)")
            default:
                octets.append(byte)
                index += 1
            }
        }
    }

    /// After `\u`: four hex digits, or a surrogate pair of two escapes; the scalar as UTF-8.
    private mutating func unicodeEscape() throws(JSONParseError) -> [UInt8] {
        let first = try hex4()
        var scalar: UInt32 = first
        if (0xD800...0xDBFF).contains(first) {
            guard bytes[index...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) else {
                throw syntax("a lone high surrogate")
            }
            index += 2
            let second = try hex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw syntax("a high surrogate without its low one") }
            scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(first) {
            throw syntax("a lone low surrogate")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw syntax("not a Unicode scalar") }
        return Array(String(Character(unicode)).utf8)
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw syntax("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw syntax("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    // MARK: Plumbing

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// A syntax error at the current position (1-based line and column, in characters).
    private func syntax(_ problem: String) -> JSONParseError {
        let (line, column) = Self.lineAndColumn(of: index, in: bytes)
        return .syntax(problem, line: line, column: column)
    }

    /// The 1-based line and column (in characters) of an offset.
    static func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        let before = bytes[..<min(offset, bytes.count)]
        let line = before.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let column = String(decoding: bytes[lineStart..<min(offset, bytes.count)], as: UTF8.self).count + 1
        return (line, column)
    }
}
