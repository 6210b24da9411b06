import BLELocking
import Logging

/// Keeps the lines a logger writes, for tests that check what was logged: handed to a
/// configuration instead of bootstrapping the global logging system (which can happen once per
/// process).
package final class LogRecorder: Sendable {
    package struct Line: Sendable, CustomStringConvertible {
        package let level: Logger.Level
        package let message: String
        package var description: String { "[\(level)] \(message)" }
    }

    private let recorded = Locked<[Line]>([])

    package init() {}

    package var lines: [Line] { recorded.withLock { $0 } }

    /// The lines at `level` or above.
    package func lines(atLeast level: Logger.Level) -> [Line] { lines.filter { $0.level >= level } }

    package func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "test", factory: { _ in Handler(recorder: self) })
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ line: Line) { recorded.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.append(Line(level: event.level, message: event.message.description))
        }
    }
}
