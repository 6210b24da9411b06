import BLESimulation

/// What one app instance gets from the phone: its executor, its declaration, its storage
/// directory, its clock, and (through extensions) its background tasks and Bluetooth managers.
///
/// A new context is made at each launch; the old one's executor is discarded with its instance.
public final class AppContext: Sendable {
    public let app: AppIdentifier
    public let declaration: AppDeclaration
    /// Runs the app's code; held while the app is suspended (`AppExecutor`).
    public let executor: AppExecutor
    /// A folder that survives kills and relaunches (the app's container), or nil.
    public let storageDirectory: String?
    /// The launch this context belongs to (1 for the first).
    public let launchNumber: Int
    /// The app's own clock: it stands while the app is suspended, so timers on it measure the
    /// app's running time (`AppClock`).
    public let clock: AppClock
    /// What `didFinishLaunching` was given (the managers to restore, for a relaunch).
    public let launchOptions: LaunchOptions
    package let phone: Phone

    package init(
        app: AppIdentifier, declaration: AppDeclaration, executor: AppExecutor, storageDirectory: String?,
        launchNumber: Int, phone: Phone, clock: AppClock? = nil, launchOptions: LaunchOptions = LaunchOptions()
    ) {
        self.app = app
        self.declaration = declaration
        self.executor = executor
        self.storageDirectory = storageDirectory
        self.launchNumber = launchNumber
        self.phone = phone
        self.clock = clock ?? AppClockCore(simulation: phone.simulation).clock
        self.launchOptions = launchOptions
    }
}
