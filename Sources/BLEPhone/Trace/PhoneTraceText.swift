import BLESimulation
import BLEWire

/// A trace as readable lines, one per entry: `+HH:MM:SS.mmm  app  event in words`.
///
/// Terminal-safe: summaries, notes and alert texts may hold what a device sent over the air (a
/// name, a value), and bundle identifiers come from a scenario file, so every control a terminal
/// would act on is written as a visible escape (`TerminalText`), newlines included — one entry
/// is one line.
public enum PhoneTraceText {
    /// The column for entries that concern the whole phone (a lock, a reboot).
    public static let phoneColumn = "phone"

    /// Every entry, one line each, each ending in a newline.
    public static func lines(_ entries: [PhoneTraceEntry]) -> String {
        let width = entries.reduce(phoneColumn.count) { max($0, $1.app?.bundleIdentifier.count ?? 0) }
        var out = ""
        out.reserveCapacity(entries.count * (width + 64))
        for entry in entries {
            appendLine(entry, appWidth: width, to: &out)
            out += "\n"
        }
        return out
    }

    /// One entry as a line (without its newline).
    public static func line(_ entry: PhoneTraceEntry) -> String {
        var out = ""
        appendLine(entry, appWidth: 0, to: &out)
        return out
    }

    private static func appendLine(_ entry: PhoneTraceEntry, appWidth: Int, to out: inout String) {
        out += time(entry.time)
        out += "  "
        let app = entry.app?.bundleIdentifier ?? phoneColumn
        out += TerminalText.escaped(app)
        if app.count < appWidth { out += String(repeating: " ", count: appWidth - app.count) }
        out += "  "
        out += TerminalText.escaped(entry.event.record.words)
    }

    /// `+HH:MM:SS.mmm` since the start of the simulation (hours grow past 99 as needed).
    public static func time(_ instant: VirtualInstant) -> String {
        let total = max(0, instant.nanoseconds / 1_000_000)
        let milliseconds = total % 1000
        let seconds = total / 1000 % 60
        let minutes = total / 60_000 % 60
        let hours = total / 3_600_000
        return "+" + padded(hours, 2) + ":" + padded(minutes, 2) + ":" + padded(seconds, 2) + "."
            + padded(milliseconds, 3)
    }

    static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
