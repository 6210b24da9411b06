import Foundation

/// The `--json` outputs: `Encodable` values, one object per line, through one encoder. Keys are
/// sorted, so the text of a value is the same on every run (JSONEncoder keeps no declaration
/// order) and scripts may compare it byte for byte; slashes are left as they are.
enum JSONOutput {
    static func line(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// An optional written as `null` when absent rather than left out, so that every object of an
/// output has the same keys.
@propertyWrapper
struct NullWhenAbsent<Value: Encodable>: Encodable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}
