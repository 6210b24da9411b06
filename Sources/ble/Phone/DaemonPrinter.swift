import BLEDevices
import BLELocking
import BLEPhone
import BLEWire
import Foundation

/// What `ble phone daemon` prints: one line per thing worth telling, each with the wall-clock
/// time (UTC, milliseconds) in front, terminal-safe (`Console` escapes; trace lines and the
/// app's words may quote what the headset sent).
final class DaemonPrinter: Sendable {
    private struct State {
        var observer: HeadsetAppObserver?
        /// Heartbeats handled when the last heartbeat line was printed.
        var heartbeatsPrinted = 0
    }

    private let state = Locked(State())
    private let heartbeatsPerLine: Int

    init(heartbeatsPerLine: Int) {
        self.heartbeatsPerLine = heartbeatsPerLine
    }

    /// The app's observer, whose heartbeat count the heartbeat lines report.
    func watch(_ observer: HeadsetAppObserver) {
        state.withLock { $0.observer = observer }
    }

    func line(_ text: String, toErrors: Bool = false) {
        let stamped = Self.now() + "  " + text
        if toErrors { Console.err(stamped) } else { Console.out(stamped) }
    }

    /// What the app says (`HeadsetAppObserver`'s lines).
    func appSaid(_ text: String) {
        line("app: " + TerminalText.escaped(text))
    }

    func print(_ event: AppDaemonEvent) {
        switch event {
        case .restoring(let record):
            line("restoring the saved record: " + Self.summary(record))
        case .trace(let entry):
            trace(entry)
        case .recordSaved(let record, let final):
            let what = record.map(Self.summary) ?? "nothing preserved (no record kept)"
            line((final ? "saved the restoration record at shutdown: " : "saved the restoration record: ") + what)
        case .recordNotSaved(let error):
            line("the restoration record was not saved: " + TerminalText.escaped("\(error)"), toErrors: true)
        case .signal(let signal):
            line("received \(signal)", toErrors: true)
        case .stopping(let grace):
            line("stopping: ending the app (grace period \(Self.seconds(grace)) s)")
        case .transportClosed:
            line("transport closed")
        }
    }

    /// The trace entries worth a line: launches, restorations, state changes, callbacks, ends,
    /// what was dropped or denied; each delivered notification only counts toward the
    /// heartbeat lines (one a second would drown the rest).
    private func trace(_ entry: PhoneTraceEntry) {
        switch entry.event {
        case .launched, .restored, .stateChanged, .callbackStarted, .killed, .eventDropped, .relaunchDenied, .alert:
            line(PhoneTraceText.line(entry))
        case .eventDelivered(.valueUpdate, _):
            heartbeatsMayHaveFlowed()
        default:
            break
        }
    }

    /// A line each time `heartbeatsPerLine` more heartbeats were handled (read at each delivered
    /// notification: the count is the app's, which handles a notification after its delivery).
    private func heartbeatsMayHaveFlowed() {
        let due = state.withLock { state -> Int? in
            guard let handled = state.observer?.counts.heartbeats,
                handled >= state.heartbeatsPrinted + heartbeatsPerLine
            else { return nil }
            state.heartbeatsPrinted = handled - handled % heartbeatsPerLine
            return handled
        }
        if let due { line("heartbeats: \(due) handled") }
    }

    static func summary(_ record: RestorationRecord) -> String {
        var parts: [String] = []
        for central in record.centrals {
            let connected = central.peripherals.filter { $0.state == .connected }.count
            var text = "central '\(TerminalText.escaped(central.restoreIdentifier))': \(central.peripherals.count) peripheral(s)"
            text += " (\(connected) connected), \(central.subscriptions.count) subscription(s)"
            if central.scan != nil { text += ", scanning" }
            parts.append(text)
        }
        for manager in record.peripheralManagers {
            parts.append(
                "peripheral manager '\(TerminalText.escaped(manager.restoreIdentifier))': \(manager.services.count) service(s), "
                    + "\(manager.subscribedCentrals.count) subscribed central(s)")
        }
        return parts.isEmpty ? "nothing preserved" : parts.joined(separator: "; ")
    }

    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
    }

    static func now() -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
    }
}
