import BLESimulation

/// What one app instance gets from the phone: its executor, its declaration, its storage
/// directory, and (through extensions) its clock, background tasks and Bluetooth managers.
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
    package let phone: Phone

    package init(
        app: AppIdentifier, declaration: AppDeclaration, executor: AppExecutor, storageDirectory: String?,
        launchNumber: Int, phone: Phone
    ) {
        self.app = app
        self.declaration = declaration
        self.executor = executor
        self.storageDirectory = storageDirectory
        self.launchNumber = launchNumber
        self.phone = phone
    }
}
