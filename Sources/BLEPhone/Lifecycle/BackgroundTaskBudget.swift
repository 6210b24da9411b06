import BLESimulation

/// The background tasks of one app instance and the one budget they share, as a value-type
/// state machine (UIApplication `beginBackgroundTask(withName:expirationHandler:)`,
/// `endBackgroundTask(_:)`, `backgroundTimeRemaining`; "UIApplication Background Task Notes",
/// Apple DTS).
///
/// - A task is an assertion, not a timer: every open task keeps the app running, and all of
///   them share one budget (observed) that starts when the app starts running in the
///   background — it leaves the front, or a Bluetooth wake or relaunch resumes it (inference:
///   each wake from suspension starts a fresh budget) — and is reset when the app comes to the
///   front.
/// - The expiration handlers of the open tasks run `expirationLead` before the budget ends
///   (observed ~5 s); at the budget, an app with a task still open is killed (0x2182bad2).
/// - `beginBackgroundTask` returns `.invalid` when the app does not run, or when its time is
///   (almost) up: past the expiration point nothing more can be granted.
package struct BackgroundTaskBudget: Sendable {
    package struct OpenTask: Sendable, Equatable {
        package var identifier: Int
        package var name: String?
    }

    private let budget: Duration
    private let lead: Duration
    /// When the budget started; nil while the app is in front (unlimited).
    package private(set) var backgroundSince: VirtualInstant?
    package private(set) var open: [OpenTask] = []
    private var nextIdentifier = 1
    private var expirationDone = false
    private var timersScheduled = false

    package init(profile: PhoneProfile) {
        budget = profile.backgroundTaskBudget
        lead = profile.expirationLead
    }

    package var expirationTime: VirtualInstant? { backgroundSince?.advanced(by: budget - lead) }
    package var deadline: VirtualInstant? { backgroundSince?.advanced(by: budget) }

    /// `backgroundTimeRemaining`: unlimited in front, else what is left of the budget.
    package func remaining(at now: VirtualInstant) -> BackgroundTimeRemaining {
        guard let deadline else { return .unlimited }
        return .limited(max(.zero, now.duration(to: deadline)))
    }

    /// `beginBackgroundTask`: the task's identifier, or nil (`.invalid`) when none can be granted.
    package mutating func begin(name: String?, at now: VirtualInstant, appRuns: Bool) -> (Int?, [BudgetAction]) {
        guard appRuns else { return (nil, [.refused(name: name)]) }
        if let expirationTime, now >= expirationTime || expirationDone { return (nil, [.refused(name: name)]) }
        let identifier = nextIdentifier
        nextIdentifier += 1
        let task = OpenTask(identifier: identifier, name: name)
        open.append(task)
        var actions: [BudgetAction] = [.began(task)]
        if open.count == 1 { actions.append(.holdChanged(true)) }
        return (identifier, actions + reconcileTimers())
    }

    /// `endBackgroundTask`: ending an unknown or already-ended task does nothing (UIKit logs it).
    package mutating func end(_ identifier: Int) -> [BudgetAction] {
        guard let index = open.firstIndex(where: { $0.identifier == identifier }) else { return [] }
        let task = open.remove(at: index)
        var actions: [BudgetAction] = [.ended(task)]
        if open.isEmpty { actions.append(.holdChanged(false)) }
        return actions + reconcileTimers()
    }

    /// The app started running in the background: the budget starts now.
    package mutating func startBudget(at now: VirtualInstant) -> [BudgetAction] {
        backgroundSince = now
        expirationDone = false
        var actions: [BudgetAction] = []
        if timersScheduled {
            // A restarted budget replaces the old deadlines.
            timersScheduled = false
            actions += [.cancel(.expiration), .cancel(.deadline)]
        }
        return actions + reconcileTimers()
    }

    /// The app came to the front: unlimited time, the budget reset.
    package mutating func enteredForeground() -> [BudgetAction] {
        backgroundSince = nil
        expirationDone = false
        return reconcileTimers()
    }

    package mutating func timerFired(_ timer: BudgetTimer) -> [BudgetAction] {
        switch timer {
        case .expiration:
            guard !open.isEmpty, backgroundSince != nil else { return [] }
            expirationDone = true
            return [.expire(open)]
        case .deadline:
            timersScheduled = false
            guard !open.isEmpty, backgroundSince != nil else { return [] }
            return [.overrun]
        }
    }

    /// Timers run only while tasks are open in the background (a wake without a task costs
    /// nothing here).
    private mutating func reconcileTimers() -> [BudgetAction] {
        let wanted = !open.isEmpty && backgroundSince != nil
        if wanted, !timersScheduled, let expirationTime, let deadline {
            timersScheduled = true
            var actions: [BudgetAction] = [.schedule(.deadline, at: deadline)]
            if !expirationDone { actions.insert(.schedule(.expiration, at: expirationTime), at: 0) }
            return actions
        }
        if !wanted, timersScheduled {
            timersScheduled = false
            return [.cancel(.expiration), .cancel(.deadline)]
        }
        return []
    }
}

package enum BudgetTimer: Sendable, Hashable {
    case expiration
    case deadline
}

/// What the budget asks the phone to do.
package enum BudgetAction: Sendable, Equatable {
    case began(BackgroundTaskBudget.OpenTask)
    case ended(BackgroundTaskBudget.OpenTask)
    case refused(name: String?)
    /// Whether any task is open (the lifecycle's hold on suspension).
    case holdChanged(Bool)
    case schedule(BudgetTimer, at: VirtualInstant)
    case cancel(BudgetTimer)
    /// Call these tasks' expiration handlers.
    case expire([BackgroundTaskBudget.OpenTask])
    /// Tasks still open at the budget: kill the app (0x2182bad2).
    case overrun
}

/// `UIApplication.backgroundTimeRemaining`: Apple returns DBL_MAX while the app is in front.
public enum BackgroundTimeRemaining: Sendable, Hashable, CustomStringConvertible {
    case unlimited
    case limited(Duration)

    public var description: String {
        switch self {
        case .unlimited: "unlimited"
        case .limited(let duration): "\(duration)"
        }
    }
}

/// `UIBackgroundTaskIdentifier`.
public struct BackgroundTaskIdentifier: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `UIBackgroundTaskIdentifier.invalid`: no task was granted.
    public static let invalid = BackgroundTaskIdentifier(rawValue: 0)
    public var description: String { self == .invalid ? "invalid" : "task \(rawValue)" }
}
