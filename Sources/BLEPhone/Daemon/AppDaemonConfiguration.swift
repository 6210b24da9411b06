import Foundation
import Logging
import UnixSignals

/// The settings of an app run as a daemon (`AppDaemon`).
public struct AppDaemonConfiguration: Sendable {
    /// Where the daemon keeps what outlives its process: the restoration record
    /// (`recordFile`), the peripherals the phone has seen (`knownPeripheralsFile`) and the
    /// app's storage directory (under `appsDirectory`). Created when missing.
    public var stateDirectory: String
    /// The phone's rules (auto-lock is off: nobody locks a daemon's phone).
    public var profile: PhoneProfile
    /// How long the app has to end after the first signal (`willTerminate`, the last save, the
    /// transport closed) before the daemon ends at once.
    public var gracePeriod: Duration
    /// The signals that stop the daemon: the first gracefully (ServiceLifecycle's
    /// `gracefulShutdownSignals`), a second at once.
    public var signals: [UnixSignal]
    public var logger: Logger

    public init(
        stateDirectory: String, profile: PhoneProfile = .ios17, gracePeriod: Duration = .seconds(5),
        signals: [UnixSignal] = [.sigterm, .sigint],
        logger: Logger = Logger(label: "swift-ble.daemon", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.stateDirectory = stateDirectory
        self.profile = profile
        self.gracePeriod = gracePeriod
        self.signals = signals
        self.logger = logger
    }

    /// The SQLite file of restoration records (`RestorationStore`).
    public var recordFile: String { path("restoration.sqlite") }
    /// The JSON file of the peripherals the phone's central has seen, so that a restored
    /// record's identifiers resolve to the same peripherals in a new process.
    public var knownPeripheralsFile: String { path("known-peripherals.json") }
    /// Where the phone makes each app's storage directory.
    public var appsDirectory: String { path("apps") }

    private func path(_ name: String) -> String {
        URL(fileURLWithPath: stateDirectory, isDirectory: true).appendingPathComponent(name).path
    }
}
