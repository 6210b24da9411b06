import BLEWire

/// Building JSON text by hand, so that key order and spacing are exactly as documented (the
/// `--json` outputs are compared byte for byte by scripts and tests).
enum JSONText {
    /// A JSON string literal (RFC 8259 §7).
    static func string(_ text: String) -> String { Rendering.jsonString(text) }

    /// An object from key–value pairs whose values are JSON text already, in the order given.
    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    static func array(_ elements: [String]) -> String {
        "[" + elements.joined(separator: ",") + "]"
    }
}
