import UnixSignals

/// What an app daemon reports as it runs, in order (`ble phone daemon` prints them).
public enum AppDaemonEvent: Sendable {
    /// A saved record was loaded into the system Bluetooth service before the launch: its
    /// peripherals wait as pending connects (the old process's links died with it).
    case restoring(RestorationRecord)
    /// Each entry of the phone's trace, as it is recorded (the launch, `willRestoreState`,
    /// state changes, callbacks, every delivered event, the end).
    case trace(PhoneTraceEntry)
    /// The record was saved in the state file (nil: nothing is preserved, and the file holds
    /// no record for the app); `final` for the save after the app ended.
    case recordSaved(RestorationRecord?, final: Bool)
    /// A save failed; the daemon goes on (the next change tries again), logged.
    case recordNotSaved(RestorationStoreError)
    /// A signal arrived (the first asks for a graceful shutdown, a second ends the daemon).
    case signal(UnixSignal)
    /// The graceful shutdown began: the app is being ended within the grace period.
    case stopping(gracePeriod: Duration)
    /// The controller's transport is closed: the daemon is done.
    case transportClosed
}

/// Why an app daemon could not start.
public enum AppDaemonError: Error, Sendable, CustomStringConvertible {
    /// The state directory cannot be made or used.
    case stateDirectory(path: String, reason: String)
    /// The record file is not usable (damaged, not SQLite, newer, unreadable): left untouched.
    case store(RestorationStoreError)
    /// The radio (the transport to the controller) could not be opened.
    case radio(String)

    public var description: String {
        switch self {
        case .stateDirectory(let path, let reason): "state directory \(path): \(reason)"
        case .store(let error): "\(error)"
        case .radio(let reason): reason
        }
    }
}
