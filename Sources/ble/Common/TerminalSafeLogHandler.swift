import BLEWire
import Logging

/// The CLI's log handler: standard error, with every control a terminal would act on escaped
/// in the message and the metadata (`TerminalText`). Log lines quote what peers send (a
/// packet at trace level, a name, an error about a PDU), so a hostile peer could otherwise
/// write escape sequences to the terminal of anyone running with `--log-level`.
struct TerminalSafeLogHandler: LogHandler {
    private var inner: StreamLogHandler

    init(label: String) {
        inner = StreamLogHandler.standardError(label: label)
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: TerminalText.escaped(event.message.description))
        event.metadata = event.metadata.map(Self.safe)
        inner.log(event: event)
    }

    static func safe(_ metadata: Logger.Metadata) -> Logger.Metadata {
        var out: Logger.Metadata = [:]
        for (key, value) in metadata { out[TerminalText.escaped(key)] = safe(value) }
        return out
    }

    static func safe(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .dictionary(let dictionary): .dictionary(safe(dictionary))
        case .array(let values): .array(values.map(safe))
        case .string(let text): .string(TerminalText.escaped(text))
        case .stringConvertible(let value): .string(TerminalText.escaped(value.description))
        }
    }
}
