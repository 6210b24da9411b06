/// Text that came from outside (a device name, a URI, any string field of a packet, a file)
/// made safe to print on a terminal: every character a terminal would act on instead of showing
/// is written as a visible escape.
///
/// A hostile advertiser controls the octets of its name; printed raw, an ESC starts a control
/// sequence (moving the cursor, rewriting lines, setting the window title), a CR or a newline
/// forges lines, and a bidirectional override reorders what follows it. So the one renderer
/// (`Rendering.text`), the CLI's human output and its log lines pass every such string through
/// `escaped(_:)`; JSON keeps the exact characters (its escapes are not interpreted by a
/// terminal) through `escapedJSON(_:)`.
///
/// What is escaped, by Unicode scalar:
/// - C0 controls U+0000–U+001F (NUL, BEL, BS, TAB, LF, CR, ESC, …) and DEL U+007F;
/// - C1 controls U+0080–U+009F (CSI U+009B, OSC U+009D, NEL U+0085, …);
/// - the line and paragraph separators U+2028, U+2029;
/// - the bidirectional formatting characters (Unicode UAX #9): ALM U+061C, LRM U+200E, RLM
///   U+200F, the embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069.
///
/// Both forms are idempotent (their output holds none of these scalars, so escaping it again
/// changes nothing) and leave every other character, backslash included, as it is.
public enum TerminalText {
    /// Whether a terminal may act on `scalar` rather than show it.
    @inlinable
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether `text` holds nothing to escape.
    public static func isSafe(_ text: some StringProtocol) -> Bool {
        !text.unicodeScalars.contains(where: isUnsafe)
    }

    /// `text` with every unsafe scalar written as Swift writes it in a literal: `\n`, `\r`, `\t`,
    /// `\0`, otherwise `\u{1B}` (upper-case hex). `keepingNewlines` leaves U+000A as a line
    /// break, for output made of several lines whose fields were escaped one by one.
    public static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard !isSafe(text) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar), !(keepingNewlines && scalar == "\n") {
                appendEscape(scalar, to: &out)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` as a quoted string literal: `"`, escaped as by `escaped(_:)`, with `\` and `"`
    /// themselves escaped so that the literal reads back unambiguously (a name holding a
    /// backslash and an `n` is not mistaken for a newline).
    public static func quoted(_ text: String) -> String {
        var out = "\""
        appendQuoted(text, to: &out)
        out += "\""
        return out
    }

    /// Appends `text` escaped as inside `quoted(_:)`, without the quotes.
    static func appendQuoted(_ text: String, to out: inout String) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case let c where isUnsafe(c): appendEscape(c, to: &out)
            default: out.unicodeScalars.append(scalar)
            }
        }
    }

    /// A JSON text with every unsafe scalar that RFC 8259 lets stand raw in a string (DEL, C1,
    /// the separators and bidirectional controls) written as a `\uXXXX` escape, which decodes
    /// to the same character: the JSON value is unchanged, its bytes carry no control. Such
    /// scalars occur only inside strings (JSON's own syntax is ASCII), and C0 controls are
    /// already escaped by every JSON encoder.
    public static func escapedJSON(_ json: String) -> String {
        guard !isSafe(json) else { return json }
        var out = ""
        out.reserveCapacity(json.utf8.count + 12)
        for scalar in json.unicodeScalars {
            if isUnsafe(scalar) {
                appendJSONEscape(scalar, to: &out)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func appendEscape(_ scalar: Unicode.Scalar, to out: inout String) {
        switch scalar {
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "\0": out += "\\0"
        default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }

    /// `\u001b`: the JSON escape of a scalar of the Basic Multilingual Plane (every unsafe one is).
    static func appendJSONEscape(_ scalar: Unicode.Scalar, to out: inout String) {
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
