/// The one place that renders packets for logs, `ble decode` and test failures.
///
/// Every wire type is rendered structurally (by reflection) into a `RenderedValue` tree, from
/// which both the human-readable text and JSON are produced, so the two never disagree. A type
/// that wants a particular form (a status code with its name and number, a UUID, an address)
/// conforms to `CustomRendering`.
public indirect enum RenderedValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case string(String)
    /// An opaque string shown without quotes in text form (names, hex, addresses).
    case symbol(String)
    case bytes([UInt8])
    case array([RenderedValue])
    /// A named object (`name` is the enum case or type, nil for plain records).
    case object(name: String?, fields: [(String, RenderedValue)])

    public static func == (lhs: RenderedValue, rhs: RenderedValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.unsigned(let a), .unsigned(let b)): return a == b
        case (.string(let a), .string(let b)), (.symbol(let a), .symbol(let b)): return a == b
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let n1, let f1), .object(let n2, let f2)):
            return n1 == n2 && f1.count == f2.count
                && zip(f1, f2).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }
}

/// A type that renders itself instead of being reflected.
public protocol CustomRendering {
    var rendered: RenderedValue { get }
}

/// A type whose rendering (text and JSON) comes from `Rendering`.
public protocol WireRenderable: CustomStringConvertible {}

extension WireRenderable {
    public var description: String { Rendering.text(self) }
    /// Compact JSON of this value.
    public var json: String { Rendering.json(self) }
}

public enum Rendering {
    /// Builds the rendering tree of any value.
    public static func render(_ value: Any) -> RenderedValue {
        if let custom = value as? any CustomRendering { return custom.rendered }
        switch value {
        case let v as Bool: return .bool(v)
        case let v as String: return .string(v)
        case let v as StaticString: return .string(v.description)
        case let v as Int: return .integer(Int64(v))
        case let v as Int8: return .integer(Int64(v))
        case let v as Int16: return .integer(Int64(v))
        case let v as Int32: return .integer(Int64(v))
        case let v as Int64: return .integer(v)
        case let v as UInt: return .unsigned(UInt64(v))
        case let v as UInt8: return .unsigned(UInt64(v))
        case let v as UInt16: return .unsigned(UInt64(v))
        case let v as UInt32: return .unsigned(UInt64(v))
        case let v as UInt64: return .unsigned(v)
        case let v as Double: return .string(String(v))
        case let v as [UInt8]: return .bytes(v)
        case let v as ArraySlice<UInt8>: return .bytes(Array(v))
        default: break
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let child = mirror.children.first else { return .null }
            return render(child.value)
        case .enum:
            let caseName = enumCaseName(value)
            guard let payload = mirror.children.first else { return .symbol(caseName) }
            let inner = render(payload.value)
            switch inner {
            case .object(let innerName?, let fields):
                // An enum inside an enum (an ATT PDU inside a channel payload): keep both names.
                return .object(name: caseName + "." + innerName, fields: fields)
            case .object(nil, let fields):
                return .object(name: caseName, fields: fields)
            default:
                let payloadMirror = Mirror(reflecting: payload.value)
                if payloadMirror.displayStyle == .tuple {
                    return inner
                }
                return .object(name: caseName, fields: [("value", inner)])
            }
        case .tuple:
            var fields: [(String, RenderedValue)] = []
            for (i, child) in mirror.children.enumerated() {
                fields.append((child.label.map { $0.hasPrefix(".") ? "_\(i)" : $0 } ?? "_\(i)", render(child.value)))
            }
            return .object(name: nil, fields: fields)
        case .collection, .set:
            return .array(mirror.children.map { render($0.value) })
        case .dictionary:
            return .array(mirror.children.map { render($0.value) })
        case .struct, .class:
            var fields: [(String, RenderedValue)] = []
            for child in mirror.children {
                guard let label = child.label, !label.hasPrefix("_") else { continue }
                fields.append((label, render(child.value)))
            }
            return .object(name: nil, fields: fields)
        default:
            return .symbol(String(describing: value))
        }
    }

    /// The name of `value`'s enum case. A case with a payload is named by its mirror's label; a
    /// case without one has no child, so its name comes from the type's metadata, as `print`
    /// takes it. Never from `description`: for a `WireRenderable` that is this very rendering,
    /// and asking it would recurse without end (the LE Scan Timeout crash).
    static func enumCaseName(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        if let label = mirror.children.first?.label { return label }
        return EnumMetadata.caseName(of: value) ?? "\(mirror.subjectType)"
    }

    /// One-line human-readable text: `commandComplete { numHCICommandPackets: 1, … }`.
    public static func text(_ value: Any) -> String {
        var out = ""
        writeText(render(value), into: &out)
        return out
    }

    public static func text(of rendered: RenderedValue) -> String {
        var out = ""
        writeText(rendered, into: &out)
        return out
    }

    private static func writeText(_ value: RenderedValue, into out: inout String) {
        switch value {
        case .null: out += "nil"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .unsigned(let u): out += String(u)
        // Strings and symbols may come from the packet (a device name, a URI): escaped for
        // terminals, so that printing a packet cannot move the cursor or forge lines.
        case .string(let s):
            out += "\""
            TerminalText.appendQuoted(s, to: &out)
            out += "\""
        case .symbol(let s): out += TerminalText.escaped(s)
        case .bytes(let b): out += b.isEmpty ? "[]" : Hex.string(b)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += ", " }
                writeText(item, into: &out)
            }
            out += "]"
        case .object(let name, let fields):
            if let name { out += TerminalText.escaped(name) }
            if fields.isEmpty {
                if name == nil { out += "{}" }
                return
            }
            out += name == nil ? "{ " : " { "
            for (i, (key, item)) in fields.enumerated() {
                if i > 0 { out += ", " }
                out += TerminalText.escaped(key) + ": "
                writeText(item, into: &out)
            }
            out += " }"
        }
    }

    /// Compact JSON. Objects from enum cases carry their case name under "type"; byte strings
    /// are lower-case hex strings.
    public static func json(_ value: Any) -> String {
        json(of: render(value))
    }

    public static func json(of rendered: RenderedValue) -> String {
        var out = ""
        writeJSON(rendered, into: &out)
        return out
    }

    private static func writeJSON(_ value: RenderedValue, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .unsigned(let u): out += String(u)
        case .string(let s), .symbol(let s): writeJSONString(s, into: &out)
        case .bytes(let b): writeJSONString(Hex.string(b), into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                writeJSON(item, into: &out)
            }
            out += "]"
        case .object(let name, let fields):
            out += "{"
            var first = true
            if let name {
                out += "\"type\":"
                writeJSONString(name, into: &out)
                first = false
            }
            for (key, item) in fields {
                if !first { out += "," }
                first = false
                writeJSONString(key, into: &out)
                out += ":"
                writeJSON(item, into: &out)
            }
            out += "}"
        }
    }

    /// `s` as a JSON string literal (RFC 8259 §7), for JSON built elsewhere by hand.
    public static func jsonString(_ s: String) -> String {
        var out = ""
        writeJSONString(s, into: &out)
        return out
    }

    static func writeJSONString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            // The other controls (C0, and DEL, C1, bidirectional formatting, which RFC 8259
            // would let stand raw): `\u` escapes, the same characters without their effect on
            // a terminal showing the JSON.
            case let c where TerminalText.isUnsafe(c): TerminalText.appendJSONEscape(c, to: &out)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
