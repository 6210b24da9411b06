import BLESimulation

/// The phone's bookkeeping of its apps and of the handset's own state (locked, radios), kept in
/// one stored property of `Phone` so the extensions that act on it stay separate files.
struct PhoneRuntime {
    var apps: [AppIdentifier: InstalledApp] = [:]
    /// The app in front (nil on the home screen or the lock screen).
    var front: AppIdentifier?
    var locked = false
    /// The app that was in front when the phone locked: unlocking brings it back.
    var frontBeforeLock: AppIdentifier?
    /// Restarted with a passcode and not unlocked since: no relaunch before the first unlock.
    var awaitingFirstUnlock = false
    var bluetoothOffInSettings = false
    var bluetoothOffInControlCenter = false
    var airplaneMode = false
    /// Bumped at each foregrounding: who was most recently in front (alerts).
    var foregroundSerial = 0
    var timers: [PhoneTimer: ScheduledTimer] = [:]
    var timerGeneration: UInt64 = 0
    /// Relaunches waiting for the first unlock, in arrival order.
    var relaunchesAwaitingUnlock: [(AppIdentifier, AppBluetoothDelivery)] = []
    /// Events for a not-running app waiting for the restoration record to decide a relaunch.
    var pendingRelaunch: [AppIdentifier: [AppBluetoothDelivery]] = [:]
    var counters = PhoneCounters()
    /// Charging, battery, Low Power Mode, network, the Background App Refresh switch.
    var conditions = PhoneConditions()
    var scheduledTasks = TaskSchedulerRuntime()
    var audio = AudioRuntime()
    var keepAlive = KeepAliveRuntime()
    var documents = DocumentsRuntime()

    var radioOn: Bool { !bluetoothOffInSettings && !bluetoothOffInControlCenter && !airplaneMode }
}

/// What the phone counted (nothing is dropped without a count and a log line).
public struct PhoneCounters: Sendable, Hashable {
    public var eventsDelivered = 0
    public var eventsQueued = 0
    public var eventsCoalesced = 0
    public var eventsDropped = 0
    public var relaunches = 0
    public var relaunchesDenied = 0
    public var alertsRaised = 0
    public var alertsSuppressed = 0
    public var wakes = 0
    public var kills = 0
}

/// One installed app: its declaration and factory, the live instance, and its rule machines.
///
/// A reference, confined to the phone's actor: every Bluetooth event reads it a few times, and
/// as a value each read copied all of it (a dozen references retained and released).
final class InstalledApp {
    let declaration: AppDeclaration
    let make: @Sendable (AppContext) -> any PhoneApp
    var lifecycle: AppLifecycle
    var budget: BackgroundTaskBudget
    var launchCount = 0
    var context: AppContext?
    var instance: (any PhoneApp)?
    var clock: AppClockCore?
    var expirationHandlers: [Int: @Sendable () async -> Void] = [:]
    var terminationReasons: [TerminationReason] = []
    /// The relaunch-table rows that apply since the app last ran (its termination, and the
    /// radio switches flipped while it was not running): it is relaunched only if each allows.
    var causesSinceRun: Set<TerminationCause> = []
    var inbox = AppInbox()
    /// A restoration launch: the managers attached so far, and the deliveries held for the rest.
    var restoring: RestorationWait?
    var idleTimerDisabled = false
    var lastForegrounded: Int?
    /// The app has asked for system alerts (an event with alert text): it competes for them.
    var wantsAlerts = false

    init(declaration: AppDeclaration, profile: PhoneProfile, make: @escaping @Sendable (AppContext) -> any PhoneApp) {
        self.declaration = declaration
        self.make = make
        lifecycle = AppLifecycle(profile: profile)
        budget = BackgroundTaskBudget(profile: profile)
    }
}

/// Deliveries held after a restoration relaunch until their manager is made again.
struct RestorationWait {
    var attached: Set<ManagerKey> = []
    var held: [AppBluetoothDelivery] = []
}

/// A manager as restoration matches it: role and restore identifier (the serial differs between
/// instances).
struct ManagerKey: Hashable {
    var role: ManagerRole
    var restoreIdentifier: String?
    init(_ manager: ManagerID) {
        role = manager.role
        restoreIdentifier = manager.restoreIdentifier
    }
}

/// The phone's timers: one of each per app, and the auto-lock.
enum PhoneTimer: Hashable {
    case lifecycle(AppIdentifier, LifecycleTimer)
    case budget(AppIdentifier, BudgetTimer)
    case autoLock
    /// Keep-alive modes: transfers, handler allowances, the silent-push rate limit (KeepAlive/).
    case keepAlive(AppIdentifier, KeepAliveTimer)
    /// BGTaskScheduler's evaluation and each run's limits (Tasks/).
    case scheduledTask(ScheduledTaskTimer)
    case audio(AudioTimer)
}

struct ScheduledTimer {
    var generation: UInt64
    var token: EventQueue.Token?
    /// When the queued event fires.
    var armedFor: VirtualInstant
    /// When the timer is due: later than `armedFor` when it was moved later while armed.
    var deadline: VirtualInstant
}
