import Foundation

/// Output of the GATT commands: each line is written and flushed at once, so that a script or
/// test reading a long-running command (`ble serve`, `ble subscribe`) sees it as it happens.
enum Console {
    static func out(_ line: String) { ControllerCommand.printFlushed(line) }
    static func err(_ line: String) { ControllerCommand.printFlushed(line, to: .standardError) }
}

/// A command's failure: printed by the argument parser as `Error: <message>`, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
