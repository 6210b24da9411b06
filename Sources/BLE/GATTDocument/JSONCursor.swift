/// A position in the document and the value there, with typed accessors that throw
/// `GATTDocumentError` naming the path.
package struct JSONCursor {
    package let value: JSONValue
    package let path: String

    package init(value: JSONValue, path: String) {
        self.value = value
        self.path = path
    }

    package func member(_ key: String) -> JSONCursor? {
        guard case .object(let members) = value, let member = members[key] else { return nil }
        return JSONCursor(value: member, path: path.isEmpty ? key : "\(path).\(key)")
    }

    package func fail(_ problem: String) -> GATTDocumentError { GATTDocumentError(path: path, problem: problem) }

    /// An object whose keys are all among `allowed` (a typo is an error, not a silent default).
    package func object(allowing allowed: Set<String>) throws(GATTDocumentError) -> JSONCursor {
        guard case .object(let members) = value else { throw fail("expected an object, found \(value.kind)") }
        if let unknown = members.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw fail(
                "unknown key \"\(unknown)\"; expected one of: " + allowed.sorted().joined(separator: ", "))
        }
        return self
    }

    package func array() throws(GATTDocumentError) -> [JSONCursor] {
        guard case .array(let elements) = value else { throw fail("expected an array, found \(value.kind)") }
        return elements.enumerated().map { JSONCursor(value: $0.element, path: "\(path)[\($0.offset)]") }
    }

    package func string() throws(GATTDocumentError) -> String {
        guard case .string(let text) = value else { throw fail("expected a string, found \(value.kind)") }
        return text
    }

    package func bool() throws(GATTDocumentError) -> Bool {
        guard case .bool(let flag) = value else { throw fail("expected true or false, found \(value.kind)") }
        return flag
    }

    package func number() throws(GATTDocumentError) -> Double {
        guard case .number(let number) = value else { throw fail("expected a number, found \(value.kind)") }
        return number
    }

    /// An integer in `range`, as a JSON number or a hex string ("0x0341" or "FFFF").
    package func integer(in range: ClosedRange<Int>) throws(GATTDocumentError) -> Int {
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
