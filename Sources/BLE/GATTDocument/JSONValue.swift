/// A JSON document as a tree of values, read strictly by `JSONParser` (a number is never a
/// boolean, a key appears once per object), so that the GATT description can be checked with a
/// path to every mistake.
package enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// What kind of value it is, for error messages.
    package var kind: String {
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
