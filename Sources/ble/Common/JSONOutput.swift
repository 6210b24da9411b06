import BLEWire
import Foundation

/// The `--json` outputs: `Encodable` values, one object per line, through one encoder. Keys are
/// sorted, so the text of a value is the same on every run (JSONEncoder keeps no declaration
/// order) and scripts may compare it byte for byte; slashes are left as they are. Controls the
/// encoder would leave raw (DEL, C1, bidirectional formatting) are `\u` escapes: the same
/// strings, without their effect on a terminal (`TerminalText.escapedJSON`).
enum JSONOutput {
    static func line(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return TerminalText.escapedJSON(String(decoding: try encoder.encode(value), as: UTF8.self))
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
