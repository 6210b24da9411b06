import ArgumentParser
import BLE
import BLELocking
import Logging

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// `--log-level LEVEL` and `-v`: what the stack logs, to standard error. Every command has
/// them; without either the stack stays silent, and at `trace` the host logs each HCI packet
/// it exchanges, rendered as `ble decode` renders it.
struct LoggingOptions: ParsableArguments {
    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "Log to standard error at this level or above: "
                + Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                + " (trace shows every HCI packet).",
            valueName: "LEVEL"))
    var logLevel: Logger.Level?

    @Flag(name: [.customShort("v"), .customLong("verbose")], help: "Log at debug level (--log-level debug).")
    var verbose = false

    /// The level asked for, nil for none.
    var level: Logger.Level? { logLevel ?? (verbose ? .debug : nil) }

    func validate() throws {
        // Parsing is the first thing a command does: the logging system is set up before
        // anything can log, and once per process (a second bootstrap traps).
        guard level != nil else { return }
        Self.bootstrapped.withLock { done in
            guard !done else { return }
            done = true
            // Escaped for terminals: log lines quote what peers send (TerminalSafeLogHandler).
            LoggingSystem.bootstrap { label in TerminalSafeLogHandler(label: label) }
        }
    }

    private static let bootstrapped = Locked(false)

    /// A logger for one part of the stack: silent unless a level was asked for.
    func logger(_ label: String) -> Logger { Self.logger(label, level: level) }

    /// A logger at `level`, or a silent one for nil.
    static func logger(_ label: String, level: Logger.Level?) -> Logger {
        guard let level else { return Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() }) }
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }

    /// A host configuration that logs to this command's logger.
    var hostConfiguration: HostConfiguration {
        var configuration = HostConfiguration()
        configuration.logger = logger("ble.host")
        return configuration
    }
}
