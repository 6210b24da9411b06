import BLEWire

/// A trace as JSON: an array with one object per entry, one entry per line,
/// `{"time_ms": 1500, "app": "com.example.app", "event": {"type": "stateChanged", "from": "active", "to": "background"}}`.
///
/// `time_ms` is whole milliseconds of virtual time; `app` is null for the phone itself; the
/// event's `type` is a `PhoneTraceEvent` case and its other keys are that type's fields
/// (docs/phone-scenarios.md, "The trace as JSON", lists them). Keys keep a fixed order, so the
/// text of a trace is the same on every run. Strings carry no control a terminal would act on:
/// those are `\u` escapes, which decode to the same characters.
public enum PhoneTraceJSON {
    public static func document(_ entries: [PhoneTraceEntry]) -> String {
        var out = ""
        out.reserveCapacity(entries.count * 120 + 4)
        out += "["
        for (index, entry) in entries.enumerated() {
            out += index == 0 ? "\n" : ",\n"
            appendObject(entry, to: &out)
        }
        out += entries.isEmpty ? "]\n" : "\n]\n"
        return out
    }

    /// One entry's object, on one line.
    public static func object(_ entry: PhoneTraceEntry) -> String {
        var out = ""
        appendObject(entry, to: &out)
        return out
    }

    private static func appendObject(_ entry: PhoneTraceEntry, to out: inout String) {
        let record = entry.event.record
        out += "{\"time_ms\":"
        out += String(entry.time.milliseconds)
        out += ",\"app\":"
        if let app = entry.app { appendString(app.bundleIdentifier, to: &out) } else { out += "null" }
        out += ",\"event\":{\"type\":"
        appendString(record.type, to: &out)
        for field in record.fields {
            out += ","
            appendString(field.name, to: &out)
            out += ":"
            appendValue(field.value, to: &out)
        }
        out += "}}"
    }

    /// `text` as a JSON string literal, escaped as the trace's strings are.
    public static func string(_ text: String) -> String {
        var out = ""
        appendString(text, to: &out)
        return out
    }

    static func appendValue(_ value: PhoneTraceRecord.Value, to out: inout String) {
        switch value {
        case .text(let text): appendString(text, to: &out)
        case .integer(let number): out += String(number)
        case .flag(let flag): out += flag ? "true" : "false"
        case .texts(let texts):
            out += "["
            for (index, text) in texts.enumerated() {
                if index > 0 { out += "," }
                appendString(text, to: &out)
            }
            out += "]"
        }
    }

    /// A JSON string: the one escaping of the project (RFC 8259 §7, controls as `\u` escapes).
    static func appendString(_ text: String, to out: inout String) {
        out += Rendering.jsonString(text)
    }
}
