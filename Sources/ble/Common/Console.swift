import BLEWire
import Foundation

/// Output of the commands: each line is written and flushed at once, so that a script or test
/// reading a long-running command (`ble serve`, `ble subscribe`) sees it as it happens.
///
/// Lines carry text from outside (names a device advertises, a served document's names, error
/// messages quoting a packet): every control a terminal would act on is written escaped
/// (`TerminalText`), so no peer can move the cursor or rewrite the screen. Newlines are kept,
/// for reports of several lines; a field that could hold one is escaped where it is
/// formatted (the renderer, a scanned name). JSON lines hold no such control (`JSONOutput`,
/// `Rendering.json`), so this leaves them as they are.
enum Console {
    static func out(_ line: String) { ControllerCommand.printFlushed(safe(line)) }
    static func err(_ line: String) { ControllerCommand.printFlushed(safe(line), to: .standardError) }

    static func safe(_ line: String) -> String { TerminalText.escaped(line, keepingNewlines: true) }
}

/// A command's failure: printed by the argument parser as `Error: <message>`, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    /// Escaped like every other line: a message may quote what a peer sent.
    var description: String { Console.safe(message) }
}
