/// A JSON document as a tree of values, read strictly by `JSONParser` (a number is never a
/// boolean, a key appears once per object), so that the GATT description can be checked with a
/// path to every mistake.
enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// What kind of value it is, for error messages.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A mistake in a GATT description, at a path in the document such as
/// `services[1].characteristics[0].properties[2]`.
struct GATTDocumentError: Error, CustomStringConvertible, Equatable {
    var path: String
    var problem: String

    var description: String { path.isEmpty ? problem : "\(path): \(problem)" }
}

/// A position in the document and the value there, with typed accessors that throw
/// `GATTDocumentError` naming the path.
struct JSONCursor {
    let value: JSONValue
    let path: String

    func member(_ key: String) -> JSONCursor? {
        guard case .object(let members) = value, let member = members[key] else { return nil }
        return JSONCursor(value: member, path: path.isEmpty ? key : "\(path).\(key)")
    }

    func fail(_ problem: String) -> GATTDocumentError { GATTDocumentError(path: path, problem: problem) }

    /// An object whose keys are all among `allowed` (a typo is an error, not a silent default).
    func object(allowing allowed: Set<String>) throws(GATTDocumentError) -> JSONCursor {
        guard case .object(let members) = value else { throw fail("expected an object, found \(value.kind)") }
        if let unknown = members.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw fail(
                "unknown key \"\(unknown)\"; expected one of: " + allowed.sorted().joined(separator: ", "))
        }
        return self
    }

    func array() throws(GATTDocumentError) -> [JSONCursor] {
        guard case .array(let elements) = value else { throw fail("expected an array, found \(value.kind)") }
        return elements.enumerated().map { JSONCursor(value: $0.element, path: "\(path)[\($0.offset)]") }
    }

    func string() throws(GATTDocumentError) -> String {
        guard case .string(let text) = value else { throw fail("expected a string, found \(value.kind)") }
        return text
    }

    func bool() throws(GATTDocumentError) -> Bool {
        guard case .bool(let flag) = value else { throw fail("expected true or false, found \(value.kind)") }
        return flag
    }

    func number() throws(GATTDocumentError) -> Double {
        guard case .number(let number) = value else { throw fail("expected a number, found \(value.kind)") }
        return number
    }

    /// An integer in `range`, as a JSON number or a hex string ("0x0341" or "FFFF").
    func integer(in range: ClosedRange<Int>) throws(GATTDocumentError) -> Int {
        let parsed: Int?
        switch value {
        case .number(let number):
            parsed = number == number.rounded() && abs(number) < 1e15 ? Int(number) : nil
        case .string(let text):
            let digits = text.hasPrefix("0x") || text.hasPrefix("0X") ? String(text.dropFirst(2)) : text
            parsed = Int(digits, radix: 16)
        default:
            throw fail("expected an integer or a hex string, found \(value.kind)")
        }
        guard let parsed, range.contains(parsed) else {
            throw fail("expected an integer in \(range.lowerBound)…\(range.upperBound)")
        }
        return parsed
    }
}
