import BLESimulation

/// What a scheduling policy knows when it decides whether a pending request runs now.
public struct TaskSchedulingSituation: Sendable, Hashable {
    public var now: VirtualInstant
    public var conditions: PhoneConditions
    /// The phone is locked (the idle state processing tasks wait for).
    public var locked: Bool
    /// The app is the one in front.
    public var appInFront: Bool
    public var appState: AppState
    /// The user force-quit the app and has not opened it since.
    public var forceQuitSinceLastUse: Bool
    /// When the user last had the app in front (nil: never since it was installed).
    public var lastUsedByUser: VirtualInstant?
    /// When a task of the same kind (refresh, processing) last started for this app.
    public var lastRunOfKind: VirtualInstant?
    /// The starts of tasks of the same kind for this app within the last 24 hours.
    public var runsOfKindInLastDay: Int
    public var profileMajorVersion: Int
}

/// What a policy decides for one request.
public enum TaskSchedulingDecision: Sendable, Hashable {
    case run
    /// Not now, for this reason (re-evaluated at the next change or period).
    case wait(String)
    /// Not before this instant, for this reason (the phone evaluates again then).
    case waitUntil(VirtualInstant, String)
}

/// Decides when pending BGTaskScheduler requests run, how long they may run and whether a
/// running one may go on. `Phone.setTaskSchedulingPolicy(_:)` plugs another one in; the phone
/// applies the documented rules that are not the policy's to decide (registration, modes, the
/// pending limits, `earliestBeginDate`, Background App Refresh at submit) itself.
///
/// The phone evaluates the pending requests at every change that can matter (conditions, lock
/// and unlock, any app's state, a submit, a completion) and at the latest
/// `reevaluationInterval` after the last evaluation while requests are pending.
public protocol BackgroundTaskSchedulingPolicy: Sendable {
    func decide(_ request: ScheduledTaskRequest, in situation: TaskSchedulingSituation) -> TaskSchedulingDecision
    /// Whether a task that runs may go on; false expires it now (the system ends processing
    /// tasks when the user starts using the phone).
    func mayContinue(_ request: ScheduledTaskRequest, in situation: TaskSchedulingSituation) -> Bool
    /// How long a task of this kind may run before its expiration handler is called.
    func timeLimit(for kind: BGTaskKind) -> Duration
    /// After the expiration handler, how long the app has to call `setTaskCompleted` before it
    /// is killed (`TerminationReason.scheduledTaskOverrun`).
    var overrunGrace: Duration { get }
    /// The longest wait between two evaluations while requests are pending.
    var reevaluationInterval: Duration { get }
}

/// The phone's default policy, deterministic so that a test can say when a task runs: a
/// request runs at the first evaluation where every rule below allows it (WWDC 2020
/// "Background execution demystified" names seven factors: battery, Low Power Mode, app usage,
/// force-quit, the Background App Refresh switch, budgets and rate limits; Apple publishes no
/// thresholds beyond the 20 % battery, so the others are inferences with a field each).
///
/// 1. Background App Refresh off: nothing runs.
/// 2. Force-quit and not opened since: nothing runs until the user opens the app (WWDC 2020),
///    except processing tasks on iOS 26+ (Apple DTS; phone-rules.md correction 3).
/// 3. Usage: the user must have had the app in front within `recentUseWindow` (7 days, I).
/// 4. Not before `earliestBeginDate` (a lower bound only).
/// 5. Not while the app is in front (the system runs these tasks in the background, I).
/// 6. Not in Low Power Mode; not below `minimumBatteryLevel` (20 %) unless charging.
/// 7. Processing: only while the phone is locked (idle), on power when `requiresExternalPower`,
///    with a network when `requiresNetworkConnectivity`.
/// 8. Rate limit and budget per app and kind: refresh no sooner than `refreshInterval` (15 min,
///    I) after the last refresh and at most `refreshRunsPerDay` (24, I) starts per 24 h;
///    processing at most `processingRunsPerDay` (4, I).
///
/// Time limits: refresh 30 s ("BGAppRefreshTask": up to 30 s, D), processing
/// `processingTimeLimit` (10 min, I: "several minutes"); `overrunGrace` 5 s (I) after the
/// expiration handler. A running processing task is expired early when the phone is unlocked,
/// unplugged (if it needs power), loses its network (if it needs one), or enters Low Power Mode.
public struct DefaultTaskSchedulingPolicy: BackgroundTaskSchedulingPolicy, Hashable {
    public var minimumBatteryLevel = 20
    public var recentUseWindow: Duration = .seconds(7 * 86_400)
    public var refreshInterval: Duration = .seconds(15 * 60)
    public var refreshRunsPerDay = 24
    public var processingRunsPerDay = 4
    public var refreshTimeLimit: Duration = .seconds(30)
    public var processingTimeLimit: Duration = .seconds(600)
    public var overrunGrace: Duration = .seconds(5)
    public var reevaluationInterval: Duration = .seconds(15 * 60)

    public init() {}

    public func decide(_ request: ScheduledTaskRequest, in situation: TaskSchedulingSituation)
        -> TaskSchedulingDecision
    {
        let conditions = situation.conditions
        if !conditions.backgroundAppRefresh { return .wait("Background App Refresh is off") }
        if situation.forceQuitSinceLastUse, !(request.kind.isProcessing && situation.profileMajorVersion >= 26) {
            return .wait("the app was force-quit; it waits until the user opens it")
        }
        guard let used = situation.lastUsedByUser else { return .wait("the user has never opened the app") }
        if used.advanced(by: recentUseWindow) <= situation.now {
            return .wait("the user has not opened the app recently")
        }
        if let earliest = request.earliestBeginDate, earliest > situation.now {
            return .waitUntil(earliest, "not before its earliest begin date")
        }
        if situation.appInFront { return .wait("the app is in front") }
        if let reason = conditionsForbid(request, conditions) { return .wait(reason) }
        if request.kind.isProcessing, !situation.locked { return .wait("the phone is in use (not locked)") }
        switch request.kind {
        case .appRefresh:
            if let last = situation.lastRunOfKind, last.advanced(by: refreshInterval) > situation.now {
                return .waitUntil(
                    last.advanced(by: refreshInterval),
                    "rate limit: one refresh per \(refreshInterval.components.seconds / 60) min")
            }
            if situation.runsOfKindInLastDay >= refreshRunsPerDay { return .wait("daily refresh budget spent") }
        case .processing:
            if situation.runsOfKindInLastDay >= processingRunsPerDay { return .wait("daily processing budget spent") }
        }
        return .run
    }

    public func mayContinue(_ request: ScheduledTaskRequest, in situation: TaskSchedulingSituation) -> Bool {
        guard request.kind.isProcessing else { return true }
        return situation.conditions.backgroundAppRefresh && situation.locked && !situation.appInFront
            && conditionsForbid(request, situation.conditions) == nil
    }

    public func timeLimit(for kind: BGTaskKind) -> Duration {
        kind.isProcessing ? processingTimeLimit : refreshTimeLimit
    }

    private func conditionsForbid(_ request: ScheduledTaskRequest, _ conditions: PhoneConditions) -> String? {
        if conditions.lowPowerMode { return "Low Power Mode is on" }
        if conditions.batteryLevel < minimumBatteryLevel, !conditions.charging {
            return "battery below \(minimumBatteryLevel) % and not charging"
        }
        if case .processing(let power, let network) = request.kind {
            if power, !conditions.charging { return "requires external power" }
            if network, conditions.network == .none { return "requires network connectivity" }
        }
        return nil
    }
}
