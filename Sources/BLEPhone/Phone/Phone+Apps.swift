import Foundation

extension Phone {
    /// Installs an app: `declaration` is its Info.plist, `make` builds a NEW instance at each
    /// launch (nothing in memory survives a kill; "About the app launch sequence").
    public func install(_ declaration: AppDeclaration, make: @escaping @Sendable (AppContext) -> any PhoneApp) {
        let app = AppIdentifier(declaration.bundleIdentifier)
        guard runtime.apps[app] == nil else {
            logger.warning("\(app) is already installed; the new installation replaces it")
            kill(app, .crash)
            runtime.apps[app] = InstalledApp(declaration: declaration, profile: profile, make: make)
            return
        }
        runtime.apps[app] = InstalledApp(declaration: declaration, profile: profile, make: make)
    }

    /// The app's execution state (`UIApplication.applicationState` plus not running / suspended).
    public func state(of app: AppIdentifier) -> AppState {
        runtime.apps[app]?.lifecycle.state ?? .notRunning
    }

    /// The state of the app's one scene (`UIScene.ActivationState`; always `.unattached` on
    /// profiles without scenes).
    public func sceneState(of app: AppIdentifier) -> SceneState {
        runtime.apps[app]?.lifecycle.scene ?? .unattached
    }

    /// The live instance (nil when not running), for tests.
    public func instance(of app: AppIdentifier) -> (any PhoneApp)? {
        runtime.apps[app]?.instance
    }

    /// How each of the app's processes ended, oldest first.
    public func terminationReasons(of app: AppIdentifier) -> [TerminationReason] {
        runtime.apps[app]?.terminationReasons ?? []
    }

    /// How many times the app was launched.
    public func launchCount(of app: AppIdentifier) -> Int {
        runtime.apps[app]?.launchCount ?? 0
    }

    /// The app in front, if any.
    public var frontApp: AppIdentifier? { runtime.front }

    public var isLocked: Bool { runtime.locked }

    /// What the phone counted.
    public var counters: PhoneCounters { runtime.counters }

    // MARK: Launch

    /// Starts a new process for `app`: a new context, executor, clock and instance, then the
    /// lifecycle's launch (in front, or in the background for a restoration relaunch).
    func launch(_ app: AppIdentifier, inFront: Bool, reason: LaunchReason) {
        guard let entry = runtime.apps[app], entry.lifecycle.state == .notRunning else { return }
        entry.launchCount += 1
        let executor = AppExecutor(simulation: simulation)
        let clock = AppClockCore(simulation: simulation)
        let context = AppContext(
            app: app, declaration: entry.declaration, executor: executor,
            storageDirectory: storageDirectory(for: app), launchNumber: entry.launchCount, phone: self,
            clock: clock.clock, launchOptions: reason.launchOptions)
        entry.context = context
        entry.clock = clock
        entry.budget = BackgroundTaskBudget(profile: profile)
        entry.expirationHandlers = [:]
        entry.causesSinceRun = []
        entry.idleTimerDisabled = false
        entry.restoring = reason.restoresBluetooth ? RestorationWait() : nil
        if inFront {
            runtime.foregroundSerial += 1
            entry.lastForegrounded = runtime.foregroundSerial
        }
        entry.instance = entry.make(context)
        record(.launched(reason), app: app)
        feed(app) { $0.launch(inFront: inFront) }
    }

    /// `storageRoot/bundleIdentifier`, created if missing (a failure is logged and traced; the
    /// app then has no directory).
    func storageDirectory(for app: AppIdentifier) -> String? {
        guard let storageRoot else { return nil }
        let path =
            storageRoot.hasSuffix("/") ? storageRoot + app.bundleIdentifier : storageRoot + "/" + app.bundleIdentifier
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return path
        } catch {
            logger.error("cannot create the storage directory of \(app): \(error)")
            record(.note("no storage directory: \(error)"), app: app)
            return nil
        }
    }

    /// The instance of `launch` is the app's live one (calls from an ended instance do nothing).
    func isCurrent(_ app: AppIdentifier, launch: Int) -> Bool {
        runtime.apps[app]?.context?.launchNumber == launch
    }

    // MARK: Driving the lifecycle

    /// Feeds one input to the app's lifecycle and performs what it returns.
    func feed(_ app: AppIdentifier, _ input: (inout AppLifecycle) -> [LifecycleAction]) {
        guard runtime.apps[app] != nil else { return }
        let actions = input(&runtime.apps[app]!.lifecycle)
        perform(actions, for: app)
    }

    /// Ends the app's process now, without callbacks.
    func kill(_ app: AppIdentifier, _ reason: TerminationReason) {
        feed(app) { $0.kill(reason) }
    }

    private func perform(_ actions: [LifecycleAction], for app: AppIdentifier) {
        for action in actions {
            guard let entry = runtime.apps[app] else { return }
            switch action {
            case .setState(let old, let new):
                record(.stateChanged(from: old, to: new), app: app)
                stateChanged(app, from: old, to: new)
            case .setScene(let old, let new):
                record(.sceneStateChanged(from: old, to: new), app: app)
            case .run(let callback):
                run(callback, of: app)
            case .openExecutor:
                entry.context?.executor.open()
                entry.clock?.start()
            case .holdExecutor:
                entry.context?.executor.hold()
                entry.clock?.stop()
            case .discardExecutor:
                let dropped = entry.context?.executor.discard() ?? 0
                entry.clock?.end()
                if dropped > 0 { logger.debug("\(app): \(dropped) jobs discarded with the instance") }
            case .schedule(let timer, let delay):
                schedule(.lifecycle(app, timer), after: delay)
            case .cancel(let timer):
                cancel(.lifecycle(app, timer))
            case .terminated(let reason):
                terminated(app, reason: reason)
            }
        }
    }

    /// What follows a state change: the Bluetooth service's background rules, the budget, the
    /// inbox.
    private func stateChanged(_ app: AppIdentifier, from old: AppState, to new: AppState) {
        let bluetooth = self.bluetooth
        Task(executorPreference: simulation.executor) { await bluetooth.appStateChanged(app, to: new) }
        scheduledTasksSawStateChange(of: app, from: old, to: new)
        audioSawStateChange(of: app, from: old, to: new)
        keepAliveSawStateChange(of: app, from: old, to: new)
        documentsSawStateChange(of: app, from: old, to: new)
        switch (old, new) {
        case (.inactive, .background), (.notRunning, .background), (.suspended, .background):
            // Background time starts when the app starts running in the background.
            performBudget(runtime.apps[app]!.budget.startBudget(at: simulation.now), for: app)
        case (_, .inactive) where old != .active:
            performBudget(runtime.apps[app]!.budget.enteredForeground(), for: app)
        case (_, .active):
            deliverQueuedEvents(of: app)
        default:
            break
        }
    }

    private func terminated(_ app: AppIdentifier, reason: TerminationReason) {
        guard let entry = runtime.apps[app] else { return }
        runtime.counters.kills += 1
        record(.killed(reason), app: app)
        logger.info("\(app) ended: \(reason)")
        entry.terminationReasons.append(reason)
        entry.causesSinceRun = causesInForce().union([reason.cause])
        entry.instance = nil
        entry.context = nil
        entry.clock = nil
        entry.expirationHandlers = [:]
        entry.budget = BackgroundTaskBudget(profile: profile)
        entry.restoring = nil
        let lost = entry.inbox.drain()
        cancel(.budget(app, .expiration))
        cancel(.budget(app, .deadline))
        for delivery in lost {
            dropEvent(delivery, of: app, why: "queued for an app that was terminated (\(reason))")
        }
        if runtime.front == app {
            runtime.front = nil
            restartIdleTimer()
        }
        scheduledTasksSawTermination(of: app, reason: reason)
        audioSawTermination(of: app, reason: reason)
        keepAliveSawTermination(of: app, reason: reason)
        documentsSawTermination(of: app, reason: reason)
        let bluetooth = self.bluetooth
        Task(executorPreference: simulation.executor) { await bluetooth.appTerminated(app, reason: reason) }
    }

    // MARK: Callbacks

    /// Runs `callback` on the app's executor; the lifecycle waits until it returns.
    private func run(_ callback: AppCallback, of app: AppIdentifier) {
        guard let entry = runtime.apps[app], let instance = entry.instance, let context = entry.context else { return }
        record(.callbackStarted(callback), app: app)
        let launch = context.launchNumber
        Task(executorPreference: context.executor) { [self] in
            await instance.perform(callback)
            await callbackReturned(callback, of: app, launch: launch)
        }
    }

    private func callbackReturned(_ callback: AppCallback, of app: AppIdentifier, launch: Int) {
        guard isCurrent(app, launch: launch) else { return }
        record(.callbackFinished(callback), app: app)
        feed(app) { $0.callbackFinished(callback) }
        keepAliveSawCallbackFinished(callback, of: app)
        if callback == .didFinishLaunching { scheduledTasksSawLaunchEnd(of: app) }
    }

    /// Runs an app closure (an expiration handler) on the app's executor, traced.
    func runOnApp(_ app: AppIdentifier, _ callback: AppCallback, _ body: @escaping @Sendable () async -> Void) {
        guard let context = runtime.apps[app]?.context else { return }
        record(.callbackStarted(callback), app: app)
        let launch = context.launchNumber
        Task(executorPreference: context.executor) { [self] in
            await body()
            await appClosureReturned(callback, of: app, launch: launch)
        }
    }

    private func appClosureReturned(_ callback: AppCallback, of app: AppIdentifier, launch: Int) {
        guard isCurrent(app, launch: launch) else { return }
        record(.callbackFinished(callback), app: app)
    }
}

extension LaunchReason {
    var launchOptions: LaunchOptions {
        switch self {
        case .bluetoothRestoration(let options), .processRestart(let options): options
        case .user, .scheduledTask, .urlSession, .voipPush: LaunchOptions()
        case .location: LaunchOptions(location: true)
        case .silentPush: LaunchOptions(remoteNotification: true)
        case .openDocument(let url): LaunchOptions(url: url)
        }
    }

    /// A launch that restores Bluetooth managers: their events are held until the app makes
    /// them again (`RestorationWait`).
    var restoresBluetooth: Bool {
        switch self {
        case .bluetoothRestoration, .processRestart: true
        case .user, .scheduledTask, .location, .urlSession, .voipPush, .silentPush, .openDocument: false
        }
    }
}

extension PhoneApp {
    /// Calls the delegate method `callback` names.
    fileprivate func perform(_ callback: AppCallback) async {
        switch callback {
        case .didFinishLaunching:
            await didFinishLaunching(options: context.launchOptions)
        case .willEnterForeground: await willEnterForeground()
        case .didBecomeActive: await didBecomeActive()
        case .willResignActive: await willResignActive()
        case .didEnterBackground: await didEnterBackground()
        case .willTerminate: await willTerminate()
        case .sceneWillConnect: await sceneWillConnect()
        case .sceneDidDisconnect: await sceneDidDisconnect()
        case .sceneWillEnterForeground: await sceneWillEnterForeground()
        case .sceneDidBecomeActive: await sceneDidBecomeActive()
        case .sceneWillResignActive: await sceneWillResignActive()
        case .sceneDidEnterBackground: await sceneDidEnterBackground()
        // Closures, run through `Phone.runOnApp`, not delegate methods.
        case .expirationHandler, .scheduledTaskLaunchHandler, .scheduledTaskExpirationHandler, .openURL,
            .handleEventsForBackgroundURLSession, .didReceiveRemoteNotification, .didReceiveIncomingPush,
            .locationUpdate, .audioSessionNotification, .urlSessionDelegate:
            break
        }
    }
}
