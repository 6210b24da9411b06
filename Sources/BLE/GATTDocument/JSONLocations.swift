/// Where each value of a parsed document starts (`JSONParser.parseLocated`), by its path as
/// `JSONCursor` writes it (`timeline[3].action`), so that an error found by a schema can say
/// line and column too.
package struct JSONLocations: Sendable {
    private let bytes: [UInt8]
    private let offsets: [String: Int]

    init(bytes: [UInt8], offsets: [String: Int]) {
        self.bytes = bytes
        self.offsets = offsets
    }

    /// The 1-based line and column of the value at `path`, or of the nearest enclosing value that
    /// exists (a missing key is reported at its object).
    package func position(of path: String) -> (line: Int, column: Int) {
        var path = path
        while true {
            if let offset = offsets[path] { return JSONParser.lineAndColumn(of: offset, in: bytes) }
            guard let cut = path.lastIndex(where: { $0 == "." || $0 == "[" }) else { break }
            path = String(path[..<cut])
        }
        return JSONParser.lineAndColumn(of: offsets[""] ?? 0, in: bytes)
    }
}

/// A `JSONParseError` with the line and column where the parser stopped (for a duplicate key,
/// the key's second occurrence).
package struct LocatedJSONParseError: Error, Equatable, CustomStringConvertible {
    package var error: JSONParseError
    package var line: Int
    package var column: Int

    package var description: String {
        switch error {
        case .syntax: "\(error)"
        case .duplicateKey, .tooDeep: "\(error) at line \(line), column \(column)"
        }
    }
}
