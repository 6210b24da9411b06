import BLELocking
import BLESimulation

/// `BGTaskScheduler` for one app instance (`AppContext.taskScheduler`): registers launch
/// handlers, submits and cancels requests. Apple's names; async because the scheduler is the
/// phone's.
public final class BGTaskScheduler: Sendable {
    let context: AppContext

    init(context: AppContext) {
        self.context = context
    }

    /// `register(forTaskWithIdentifier:using:launchHandler:)`: only for an identifier in
    /// `BGTaskSchedulerPermittedIdentifiers`, and only before the launch ends (in
    /// `didFinishLaunching`); a new process registers again. Refused registrations throw (iOS
    /// raises NSInternalInconsistencyException) and are traced. The handler runs on the app's
    /// executor whatever `queue` is given (an app's queues are suspended with it).
    public func register(
        forTaskWithIdentifier identifier: String, using queue: AppExecutor? = nil,
        launchHandler: @escaping @Sendable (BGTask) async -> Void
    ) async throws(BGTaskRegistrationError) {
        if let error = await context.phone.registerScheduledTask(
            identifier, for: context.app, launch: context.launchNumber, handler: launchHandler)
        {
            throw error
        }
    }

    /// `submit(_:)`: queues the request; a request with the same identifier is replaced.
    public func submit(_ request: some BGTaskRequest) async throws(BGTaskSchedulerError) {
        if let error = await context.phone.submitScheduledTask(ScheduledTaskRequest(request), for: context.app) {
            throw error
        }
    }

    /// `cancel(taskRequestWithIdentifier:)`.
    public func cancel(taskRequestWithIdentifier identifier: String) async {
        await context.phone.cancelScheduledTasks(identifier, for: context.app)
    }

    /// `cancelAllTaskRequests()`.
    public func cancelAllTaskRequests() async {
        await context.phone.cancelScheduledTasks(nil, for: context.app)
    }

    /// `getPendingTaskRequests(completionHandler:)` / `pendingTaskRequests()`.
    public func pendingTaskRequests() async -> [ScheduledTaskRequest] {
        await context.phone.pendingScheduledTasks(of: context.app)
    }

    /// The phone's virtual now, to build an `earliestBeginDate` (Apple's `Date()`).
    public var now: VirtualInstant { context.phone.simulation.now }
}

/// `BGTask` (`BGAppRefreshTask` / `BGProcessingTask`, told apart by `kind`): what a launch
/// handler gets. Set `expirationHandler` at once; call `setTaskCompleted(success:)` when done.
public final class BGTask: Sendable {
    public let identifier: String
    public let kind: BGTaskKind
    let run: Int
    let app: AppIdentifier
    let launch: Int
    let phone: Phone
    /// Behind the project's one lock: set by the app, read by the phone at expiration.
    private let handler = Locked<(@Sendable () async -> Void)?>(nil)

    init(identifier: String, kind: BGTaskKind, run: Int, app: AppIdentifier, launch: Int, phone: Phone) {
        self.identifier = identifier
        self.kind = kind
        self.run = run
        self.app = app
        self.launch = launch
        self.phone = phone
    }

    /// Called when the task's time is up (or the system needs it to stop); without one, the
    /// system completes the task unsuccessfully at its time limit.
    public var expirationHandler: (@Sendable () async -> Void)? {
        get { handler.withLock { $0 } }
        set { handler.withLock { $0 = newValue } }
    }

    /// `setTaskCompleted(success:)`: the app lets go of the task (a second call does nothing).
    public func setTaskCompleted(success: Bool) async {
        await phone.completeScheduledTask(run: run, of: app, launch: launch, success: success)
    }
}

extension AppContext {
    /// `BGTaskScheduler.shared` for this instance.
    public var taskScheduler: BGTaskScheduler { BGTaskScheduler(context: self) }
}
