import BLESimulation

// The plumbing the keep-alive modes share: the holds they place on the lifecycle, their timers,
// what waits for a launch to finish, background launches.

extension Phone {
    /// The numbers the keep-alive modes use (`KeepAliveRules`).
    public var keepAliveRules: KeepAliveRules { runtime.keepAlive.rules }

    /// Changes the keep-alive numbers (before the run, as a profile's observed values).
    public func setKeepAliveRules(_ rules: KeepAliveRules) {
        runtime.keepAlive.rules = rules
    }

    /// What the phone counted of keep-alive modes.
    public var keepAliveCounters: KeepAliveCounters { runtime.keepAlive.counters }

    /// Changes the app's keep-alive state (made on first use).
    func withKeepAlive<T>(_ app: AppIdentifier, _ change: (inout AppKeepAlive) -> T) -> T {
        change(&runtime.keepAlive.apps[app, default: AppKeepAlive()])
    }

    /// Sets the lifecycle's holds from the keep-alive state: location updates in the location
    /// mode, events being handled, calls.
    func syncKeepAliveHolds(_ app: AppIdentifier) {
        guard let state = runtime.apps[app]?.lifecycle.state, state != .notRunning else { return }
        let keepAlive = runtime.keepAlive.apps[app]
        let location = keepAlive?.location?.keepsAppRunning ?? false
        let handling = !(keepAlive?.handlings.isEmpty ?? true)
        let call = !(keepAlive?.calls.isEmpty ?? true)
        feed(app) { $0.setHold(.location, location) }
        feed(app) { $0.setHold(.eventHandling, handling) }
        feed(app) { $0.setHold(.call, call) }
    }

    /// Starts handling a background event: it holds the app running until its completion or
    /// `allowance`, when `timer` fires.
    func beginHandling(_ handling: Handling, of app: AppIdentifier, allowance: Duration, timer: KeepAliveTimer) {
        withKeepAlive(app) { _ = $0.handlings.insert(handling) }
        schedule(.keepAlive(app, timer), after: allowance)
        syncKeepAliveHolds(app)
    }

    /// When the handling `timer` ends it: the deadline `beginHandling` set (the handler may run
    /// later than that began, after a launch or while waiting for a delegate), else `allowance`
    /// from now.
    func handlingDeadline(_ app: AppIdentifier, _ timer: KeepAliveTimer, allowance: Duration) -> VirtualInstant {
        runtime.timers[.keepAlive(app, timer)]?.deadline ?? simulation.now.advanced(by: allowance)
    }

    /// Ends handling an event: false when it was not under way (a second or late completion).
    @discardableResult
    func endHandling(_ handling: Handling, of app: AppIdentifier, timer: KeepAliveTimer) -> Bool {
        guard runtime.keepAlive.apps[app]?.handlings.remove(handling) != nil else { return false }
        cancel(.keepAlive(app, timer))
        syncKeepAliveHolds(app)
        return true
    }

    /// A suspended app resumes in the background for `reason`, traced as a wake.
    func wakeForKeepAlive(_ app: AppIdentifier, _ reason: WakeReason, until: VirtualInstant) {
        runtime.counters.wakes += 1
        record(.woken(reason, until: until), app: app)
    }

    /// Launches a not-running app in the background for `reason`; `then` runs once
    /// `didFinishLaunching` returns (the system calls the event's handler after launch).
    func launchForKeepAlive(_ app: AppIdentifier, reason: LaunchReason, then: AfterLaunch?) {
        launch(app, inFront: false, reason: reason)
        if let then { withKeepAlive(app) { $0.afterLaunch.append(then) } }
    }

    /// Whether the user force-quit the app since it last ran.
    func wasForceQuit(_ app: AppIdentifier) -> Bool {
        runtime.apps[app]?.causesSinceRun.contains(.forceQuit) ?? false
    }

    func keepAliveTimerFired(_ timer: KeepAliveTimer, of app: AppIdentifier) {
        switch timer {
        case .transfer(let session): transferTimerFired(session, of: app)
        case .urlSessionCompletion(let session): urlSessionCompletionOverdue(session, of: app)
        case .silentPushWindow(let serial): silentPushWindowEnded(serial, of: app)
        case .silentPushWaiting: silentPushWaitingTimerFired(of: app)
        case .voipReport(let serial): voipReportOverdue(serial, of: app)
        }
    }

    /// `didFinishLaunching` returned: the handlers the launch was for run now.
    func keepAliveSawCallbackFinished(_ callback: AppCallback, of app: AppIdentifier) {
        guard callback == .didFinishLaunching, let waiting = runtime.keepAlive.apps[app]?.afterLaunch,
            !waiting.isEmpty
        else { return }
        runtime.keepAlive.apps[app]!.afterLaunch = []
        for item in waiting {
            switch item {
            case .urlSessionEvents(let session): callHandleEvents(session, of: app)
            case .silentPush(let serial, let payload): callSilentPushHandler(serial, payload, of: app)
            case .voipPush(let serial, let payload): handVoIPPush(serial, payload, to: app)
            }
        }
    }
}
