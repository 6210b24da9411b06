extension Phone {
    /// UIApplication `beginBackgroundTask(withName:expirationHandler:)` for the instance of
    /// `launch`: nil (`.invalid`) when the app does not run or its time is up.
    func beginBackgroundTask(
        for app: AppIdentifier, launch: Int, name: String?, expirationHandler: (@Sendable () async -> Void)?
    ) -> Int? {
        guard let entry = runtime.apps[app], entry.context?.launchNumber == launch else {
            record(.backgroundTaskRefused(name: name), app: app)
            return nil
        }
        let (identifier, actions) = runtime.apps[app]!.budget.begin(
            name: name, at: simulation.now, appRuns: entry.lifecycle.state.runsCode)
        if let identifier, let expirationHandler {
            runtime.apps[app]!.expirationHandlers[identifier] = expirationHandler
        }
        performBudget(actions, for: app)
        return identifier
    }

    /// UIApplication `endBackgroundTask(_:)`.
    func endBackgroundTask(_ identifier: Int, for app: AppIdentifier, launch: Int) {
        guard isCurrent(app, launch: launch) else { return }
        runtime.apps[app]!.expirationHandlers[identifier] = nil
        performBudget(runtime.apps[app]!.budget.end(identifier), for: app)
    }

    /// UIApplication `backgroundTimeRemaining` (unlimited in front, as Apple's DBL_MAX).
    func backgroundTimeRemaining(for app: AppIdentifier, launch: Int) -> BackgroundTimeRemaining {
        guard let entry = runtime.apps[app], entry.context?.launchNumber == launch else { return .limited(.zero) }
        return entry.budget.remaining(at: simulation.now)
    }

    func performBudget(_ actions: [BudgetAction], for app: AppIdentifier) {
        for action in actions {
            switch action {
            case .began(let task):
                record(.backgroundTaskBegan(identifier: task.identifier, name: task.name), app: app)
            case .ended(let task):
                record(.backgroundTaskEnded(identifier: task.identifier, name: task.name), app: app)
            case .refused(let name):
                record(.backgroundTaskRefused(name: name), app: app)
            case .holdChanged(let held):
                feed(app) { $0.setTaskHold(held) }
            case .schedule(let timer, let time):
                schedule(.budget(app, timer), at: time)
            case .cancel(let timer):
                cancel(.budget(app, timer))
            case .expire(let tasks):
                for task in tasks {
                    record(.backgroundTaskExpiring(identifier: task.identifier, name: task.name), app: app)
                    if let handler = runtime.apps[app]?.expirationHandlers[task.identifier] {
                        runOnApp(app, .expirationHandler, handler)
                    }
                }
            case .overrun:
                logger.notice("\(app): background tasks still open at the end of the budget (0x2182bad2)")
                kill(app, .backgroundTaskOverrun)
            }
        }
    }

    func budgetTimerFired(_ timer: BudgetTimer, of app: AppIdentifier) {
        guard runtime.apps[app] != nil else { return }
        performBudget(runtime.apps[app]!.budget.timerFired(timer), for: app)
    }
}

extension AppContext {
    /// UIApplication `beginBackgroundTask(withName:expirationHandler:)`: asks for time to
    /// finish work in the background. Returns `.invalid` when none can be granted (the app is
    /// not running, or its background time is up). The expiration handler runs on the app's
    /// executor `expirationLead` before the shared budget ends; a task still open at the end
    /// of the budget gets the app killed (0x2182bad2). Every begin must be ended.
    public func beginBackgroundTask(
        withName name: String? = nil, expirationHandler: (@Sendable () async -> Void)? = nil
    ) async -> BackgroundTaskIdentifier {
        let launch = launchNumber
        let app = self.app
        let identifier = await phone.beginBackgroundTask(
            for: app, launch: launch, name: name, expirationHandler: expirationHandler)
        return identifier.map(BackgroundTaskIdentifier.init(rawValue:)) ?? .invalid
    }

    /// UIApplication `endBackgroundTask(_:)`.
    public func endBackgroundTask(_ identifier: BackgroundTaskIdentifier) async {
        guard identifier != .invalid else { return }
        await phone.endBackgroundTask(identifier.rawValue, for: app, launch: launchNumber)
    }

    /// UIApplication `backgroundTimeRemaining`: `.unlimited` in front (Apple returns DBL_MAX).
    public var backgroundTimeRemaining: BackgroundTimeRemaining {
        get async { await phone.backgroundTimeRemaining(for: app, launch: launchNumber) }
    }
}
