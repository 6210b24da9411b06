/// One app's execution state as a value-type state machine: it takes one input at a time (a user
/// or system action, a callback that returned, a timer) and returns what the phone must do —
/// change a state, run a callback on the app's executor, open, hold or discard the executor,
/// set or cancel a timer — doing nothing itself.
///
/// Callbacks run one at a time, in order, as on the app's main thread: the steps of a
/// transition wait in `steps` while a callback runs, and the next one starts when it returns.
///
/// The rules ("Managing your app's life cycle", UIApplicationDelegate and UISceneDelegate
/// references; phone-rules.md):
/// - on profiles with scenes (iOS 13+) foreground and background transitions call the scene's
///   callbacks, and only launch and termination call the app's; without scenes the app's own;
/// - `didFinishLaunching` has `launchAllowance` and `didEnterBackground` has
///   `didEnterBackgroundAllowance` before the watchdog kills the app (0x8badf00d);
/// - after `didEnterBackground` returns the app is suspended `suspensionDelay` later unless a
///   background task or a Bluetooth wake window holds it; at the end of a wake window with
///   nothing holding it, it is suspended at once;
/// - `willTerminate` runs only for an app running in the background, never a suspended one.
package struct AppLifecycle: Sendable {
    package let hasScenes: Bool
    private let launchAllowance: Duration
    private let didEnterBackgroundAllowance: Duration
    private let suspensionDelay: Duration

    package private(set) var state: AppState = .notRunning
    package private(set) var scene: SceneState = .unattached
    /// Whether the app is (or is on its way to being) the one in front.
    package private(set) var inFront = false
    /// A Bluetooth wake window is open.
    package private(set) var wakeActive = false
    /// What keeps the app running in the background besides a wake window: open background
    /// tasks, an audio session that plays, location updates, a call, a scheduled task that
    /// runs (`ExecutionHold`).
    package private(set) var holds: Set<ExecutionHold> = []
    /// At least one background task is open.
    package var taskHold: Bool { holds.contains(.backgroundTask) }

    private var steps: [Step] = []
    private var startAt = 0
    private var running: AppCallback?
    private var suspensionScheduled = false
    /// The termination that waits for `willTerminate` to return.
    private var pendingTermination: TerminationReason?

    private enum Step: Sendable {
        case callback(AppCallback)
        case state(AppState)
        case scene(SceneState)
        case terminate(TerminationReason)
    }

    package init(profile: PhoneProfile) {
        hasScenes = profile.hasScenes
        launchAllowance = profile.launchAllowance
        didEnterBackgroundAllowance = profile.didEnterBackgroundAllowance
        suspensionDelay = profile.suspensionDelay
    }

    /// The callback running now, if any.
    package var runningCallback: AppCallback? { running }

    /// Whether a launch, transition or termination is still under way.
    package var isBusy: Bool { running != nil || startAt < steps.count }

    // MARK: Inputs

    /// Launches the app: in front (the user tapped it) or in the background (a relaunch by
    /// state restoration). "About the app launch sequence".
    package mutating func launch(inFront: Bool) -> [LifecycleAction] {
        guard state == .notRunning else { return [] }
        self.inFront = inFront
        var actions: [LifecycleAction] = [.openExecutor]
        actions.append(contentsOf: apply(.state(inFront ? .inactive : .background)))
        enqueue([.callback(.didFinishLaunching)])
        if inFront { enqueue(foregroundSteps(sceneAttached: false, fromBackground: false)) }
        return actions + advance()
    }

    /// Brings a running or suspended app to the front.
    package mutating func enterForeground() -> [LifecycleAction] {
        guard state != .notRunning, !inFront, pendingTermination == nil else { return [] }
        inFront = true
        var actions = resumeIfSuspended()
        enqueue(foregroundSteps(sceneAttached: scene != .unattached, fromBackground: true))
        actions += advance()
        return actions
    }

    /// Sends the app in front to the background (home, lock, another app opened).
    package mutating func enterBackground() -> [LifecycleAction] {
        guard state != .notRunning, inFront, pendingTermination == nil else { return [] }
        inFront = false
        if hasScenes {
            enqueue([
                .callback(.sceneWillResignActive), .scene(.foregroundInactive), .state(.inactive),
                .scene(.background), .state(.background), .callback(.sceneDidEnterBackground),
            ])
        } else {
            enqueue([
                .callback(.willResignActive), .state(.inactive), .state(.background), .callback(.didEnterBackground),
            ])
        }
        return advance()
    }

    /// The callback the phone ran returned.
    package mutating func callbackFinished(_ callback: AppCallback) -> [LifecycleAction] {
        guard running == callback else { return [] }
        running = nil
        var actions: [LifecycleAction] = []
        if Self.watchdogged(callback) { actions.append(.cancel(.watchdog)) }
        return actions + advance()
    }

    /// A Bluetooth event opens (or restarts) a wake window of `window` for an app in the
    /// background with a `bluetooth-*` mode: a suspended app resumes in the background.
    package mutating func wake(for window: Duration) -> [LifecycleAction] {
        guard state == .background || state == .suspended, !inFront else { return [] }
        var actions = resumeIfSuspended()
        wakeActive = true
        actions.append(.schedule(.wakeEnd, after: window))
        // Appended, not `+`: a wake comes with every event of a background app, and `+` makes
        // a third array.
        actions.append(contentsOf: reconcileSuspension())
        return actions
    }

    /// Whether background tasks are open (they keep the app running).
    package mutating func setTaskHold(_ held: Bool) -> [LifecycleAction] {
        setHold(.backgroundTask, held)
    }

    /// Takes or lets go of one reason to keep running in the background. Taking one resumes a
    /// suspended app (a scheduled task that starts, a call that comes in); letting go of the
    /// last one suspends it `suspensionDelay` later.
    package mutating func setHold(_ hold: ExecutionHold, _ held: Bool) -> [LifecycleAction] {
        guard holds.contains(hold) != held else { return [] }
        var actions: [LifecycleAction] = []
        if held {
            holds.insert(hold)
            if !inFront { actions = resumeIfSuspended() }
        } else {
            holds.remove(hold)
        }
        return actions + reconcileSuspension()
    }

    /// One of the timers this machine asked for fired.
    package mutating func timerFired(_ timer: LifecycleTimer) -> [LifecycleAction] {
        switch timer {
        case .watchdog:
            guard let running, Self.watchdogged(running) else { return [] }
            // A hung willTerminate ends as the termination it announced; a hung launch or
            // didEnterBackground is the watchdog's (0x8badf00d).
            return kill(pendingTermination ?? .watchdog)
        case .suspension:
            suspensionScheduled = false
            guard canSuspend else { return [] }
            return suspend()
        case .wakeEnd:
            guard wakeActive else { return [] }
            wakeActive = false
            // The window's end is the suspension point (Core Bluetooth Programming Guide:
            // the app is woken "to handle" the event, then suspended again).
            if canSuspend {
                var actions = suspend()
                if suspensionScheduled {
                    suspensionScheduled = false
                    actions.insert(.cancel(.suspension), at: 0)
                }
                return actions
            }
            return reconcileSuspension()
        }
    }

    /// Ends the app the way the user or system asks: `willTerminate` first for an app running
    /// in the background (UIApplicationDelegate: "not called if the app is suspended"), at once
    /// otherwise.
    package mutating func terminate(_ reason: TerminationReason) -> [LifecycleAction] {
        switch state {
        case .notRunning: return []
        case .suspended: return kill(reason)
        case .active, .inactive, .background:
            guard pendingTermination == nil else { return [] }
            pendingTermination = reason
            // After what is under way (an app force-quit from the front first resigns and
            // enters the background, as in the app switcher).
            enqueue([.callback(.willTerminate), .terminate(reason)])
            return advance()
        }
    }

    /// Ends the process now: no callback, the executor's jobs discarded.
    package mutating func kill(_ reason: TerminationReason) -> [LifecycleAction] {
        guard state != .notRunning else { return [] }
        var actions: [LifecycleAction] = [
            .cancel(.watchdog), .cancel(.suspension), .cancel(.wakeEnd), .discardExecutor,
        ]
        if scene != .unattached {
            actions.append(.setScene(from: scene, to: .unattached))
        }
        actions.append(.setState(from: state, to: .notRunning))
        actions.append(.terminated(reason))
        let hasScenes = self.hasScenes
        self = AppLifecycle(
            hasScenes: hasScenes, suspensionDelay: suspensionDelay,
            launchAllowance: launchAllowance, didEnterBackgroundAllowance: didEnterBackgroundAllowance)
        return actions
    }

    private init(
        hasScenes: Bool, suspensionDelay: Duration, launchAllowance: Duration, didEnterBackgroundAllowance: Duration
    ) {
        self.hasScenes = hasScenes
        self.suspensionDelay = suspensionDelay
        self.launchAllowance = launchAllowance
        self.didEnterBackgroundAllowance = didEnterBackgroundAllowance
    }

    // MARK: Steps

    private func foregroundSteps(sceneAttached: Bool, fromBackground: Bool) -> [Step] {
        if hasScenes {
            var steps: [Step] = sceneAttached ? [] : [.callback(.sceneWillConnect)]
            steps += [
                .callback(.sceneWillEnterForeground), .scene(.foregroundInactive), .state(.inactive),
                .state(.active), .scene(.foregroundActive), .callback(.sceneDidBecomeActive),
            ]
            return steps
        }
        var steps: [Step] = fromBackground ? [.callback(.willEnterForeground), .state(.inactive)] : []
        steps += [.state(.active), .callback(.didBecomeActive)]
        return steps
    }

    private mutating func enqueue(_ new: [Step]) {
        if startAt > 0, startAt == steps.count {
            steps.removeAll(keepingCapacity: true)
            startAt = 0
        }
        steps.append(contentsOf: new)
    }

    /// Runs steps until one is a callback (which must return before the next step).
    private mutating func advance() -> [LifecycleAction] {
        var actions: [LifecycleAction] = []
        while running == nil, startAt < steps.count {
            let step = steps[startAt]
            startAt += 1
            if case .terminate(let reason) = step { return actions + kill(reason) }
            actions += apply(step)
        }
        if startAt == steps.count {
            steps.removeAll(keepingCapacity: true)
            startAt = 0
        }
        return actions + reconcileSuspension()
    }

    private mutating func apply(_ step: Step) -> [LifecycleAction] {
        switch step {
        case .callback(let callback):
            running = callback
            var actions: [LifecycleAction] = [.run(callback)]
            switch callback {
            case .didFinishLaunching: actions.append(.schedule(.watchdog, after: launchAllowance))
            case .didEnterBackground, .sceneDidEnterBackground, .willTerminate:
                actions.append(.schedule(.watchdog, after: didEnterBackgroundAllowance))
            default: break
            }
            return actions
        case .state(let new):
            guard new != state else { return [] }
            let old = state
            state = new
            return [.setState(from: old, to: new)]
        case .scene(let new):
            guard hasScenes, new != scene else { return [] }
            let old = scene
            scene = new
            return [.setScene(from: old, to: new)]
        case .terminate:
            return []
        }
    }

    private static func watchdogged(_ callback: AppCallback) -> Bool {
        switch callback {
        case .didFinishLaunching, .didEnterBackground, .sceneDidEnterBackground, .willTerminate: true
        default: false
        }
    }

    // MARK: Suspension

    /// In the background, idle, and held by neither a task nor a wake window.
    private var canSuspend: Bool {
        state == .background && !inFront && !isBusy && holds.isEmpty && !wakeActive && pendingTermination == nil
    }

    private mutating func reconcileSuspension() -> [LifecycleAction] {
        if canSuspend, !suspensionScheduled {
            suspensionScheduled = true
            return [.schedule(.suspension, after: suspensionDelay)]
        }
        if !canSuspend, suspensionScheduled {
            suspensionScheduled = false
            return [.cancel(.suspension)]
        }
        return []
    }

    private mutating func suspend() -> [LifecycleAction] {
        state = .suspended
        return [.holdExecutor, .setState(from: .background, to: .suspended)]
    }

    private mutating func resumeIfSuspended() -> [LifecycleAction] {
        guard state == .suspended else { return [] }
        state = .background
        return [.openExecutor, .setState(from: .suspended, to: .background)]
    }
}

/// What the lifecycle asks the phone to do.
package enum LifecycleAction: Sendable, Equatable {
    case setState(from: AppState, to: AppState)
    case setScene(from: SceneState, to: SceneState)
    /// Run the callback on the app's executor and report when it returns.
    case run(AppCallback)
    case openExecutor
    case holdExecutor
    case discardExecutor
    /// (Re)start the timer, `after` from now (a restarted timer's earlier deadline is gone).
    case schedule(LifecycleTimer, after: Duration)
    case cancel(LifecycleTimer)
    /// The process ended for `reason` (the executor is already discarded).
    case terminated(TerminationReason)
}

/// A reason the system keeps a background app running (phone-rules.md, "Keep-alive").
package enum ExecutionHold: Sendable, Hashable {
    /// UIApplication background tasks are open (`BackgroundTaskBudget`).
    case backgroundTask
    /// A BGTaskScheduler task runs until it is completed or expires.
    case scheduledTask
    /// The audio mode: an active session that is actually playing.
    case audio
    /// The location mode: location updates are on.
    case location
    /// A VoIP call reported to CallKit is under way.
    case call
    /// A background push or URLSession event is being handled within its allowance.
    case eventHandling
}

/// The lifecycle's timers (one of each at a time).
package enum LifecycleTimer: Sendable, Hashable {
    /// The allowance of the callback running now.
    case watchdog
    case suspension
    case wakeEnd
}
