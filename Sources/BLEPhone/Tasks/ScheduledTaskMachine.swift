import BLESimulation

/// BGTaskScheduler's rules for the whole phone as a value-type state machine: it takes one input
/// (a registration, a submit, an evaluation, a timer, a completion, an app's launch or end) and
/// returns what the phone must do — record, start a task (launching the app if needed), run a
/// launch or expiration handler, let go of the app, kill it, set or cancel a timer — doing no
/// I/O itself (as `BackgroundTaskBudget`).
///
/// The documented rules ("BGTaskScheduler", "BGTaskRequest", "BGTask" references; phone-rules.md):
/// - launch handlers are registered per launch, only for `BGTaskSchedulerPermittedIdentifiers`,
///   and only before the launch ends;
/// - a refresh request needs the `fetch` mode, a processing request the `processing` mode; at
///   most one refresh and ten processing requests pending per app; a resubmitted identifier
///   replaces its request; no BGTaskScheduler before iOS 13, and none with Background App
///   Refresh off (`unavailable`);
/// - a task whose app's launch ends without registering its identifier cannot run;
/// - at the time limit the expiration handler is called; with none the task is completed
///   unsuccessfully; a task not completed `overrunGrace` later gets its app killed.
/// When a pending request runs is the policy's decision (`BackgroundTaskSchedulingPolicy`).
package struct ScheduledTaskMachine: Sendable {
    package struct Pending: Sendable, Equatable {
        package var app: AppIdentifier
        package var request: ScheduledTaskRequest
        /// The last reason recorded for waiting (a change is recorded, a repeat is not).
        package var lastWhy: String?
    }

    package enum Phase: Sendable, Equatable {
        /// Waiting for the app's launch to end (and its handler to be registered).
        case launching
        case running
        case expiring
    }

    package struct Running: Sendable, Equatable {
        package var app: AppIdentifier
        package var request: ScheduledTaskRequest
        package var phase: Phase
        package var simulated: Bool
    }

    /// What the machine keeps per app across its launches.
    package struct AppRecord: Sendable, Equatable {
        /// The identifiers registered in the current launch.
        package var registered: Set<String> = []
        /// No launch under way (true also while not running).
        package var launchEnded = true
        package var lastUsedByUser: VirtualInstant?
        package var forceQuitSinceLastUse = false
        /// Starts of refresh (false) and processing (true) tasks, pruned to the last 24 h.
        package var starts: [Bool: [VirtualInstant]] = [:]
    }

    /// What the phone knows that the policy needs.
    package struct PhoneFacts: Sendable {
        package var conditions: PhoneConditions
        package var locked: Bool
        package var majorVersion: Int
        package var states: [AppIdentifier: AppState]
        package var front: AppIdentifier?
    }

    /// BGTaskScheduler exists on the profile (iOS 13+).
    package let available: Bool
    package private(set) var pending: [Pending] = []
    package private(set) var running: [Int: Running] = [:]
    package private(set) var apps: [AppIdentifier: AppRecord] = [:]
    private var nextRun = 1
    private var evaluationAt: VirtualInstant?

    package init(majorVersion: Int) {
        available = majorVersion >= 13
    }

    /// Nothing pending and nothing running: evaluations can be skipped.
    package var isIdle: Bool { pending.isEmpty && running.isEmpty }

    // MARK: Registration

    package mutating func launched(_ app: AppIdentifier) {
        apps[app, default: AppRecord()].registered = []
        apps[app, default: AppRecord()].launchEnded = false
    }

    /// `register(forTaskWithIdentifier:using:launchHandler:)`.
    package mutating func register(
        _ app: AppIdentifier, _ identifier: String, declaration: AppDeclaration, currentLaunch: Bool
    )
        -> (BGTaskRegistrationError?, [ScheduledTaskAction])
    {
        let record = apps[app, default: AppRecord()]
        let error: BGTaskRegistrationError?
        if !available {
            error = .unavailable
        } else if !declaration.permittedTaskIdentifiers.contains(identifier) {
            error = .identifierNotPermitted(identifier)
        } else if !currentLaunch || record.launchEnded {
            error = .afterLaunch(identifier)
        } else if record.registered.contains(identifier) {
            error = .alreadyRegistered(identifier)
        } else {
            error = nil
        }
        if let error { return (error, [.record(.registrationRejected(identifier, error), app)]) }
        apps[app, default: AppRecord()].registered.insert(identifier)
        return (nil, [.record(.registered(identifier), app)])
    }

    /// The app's `didFinishLaunching` returned: the tasks that waited for it run, or cannot.
    package mutating func launchEnded(
        _ app: AppIdentifier, now: VirtualInstant, policy: any BackgroundTaskSchedulingPolicy
    )
        -> [ScheduledTaskAction]
    {
        apps[app, default: AppRecord()].launchEnded = true
        let registered = apps[app]!.registered
        var actions: [ScheduledTaskAction] = []
        for run in running.keys.sorted() where running[run]!.app == app && running[run]!.phase == .launching {
            let task = running[run]!
            if registered.contains(task.request.identifier) {
                actions += runHandler(run, now: now, policy: policy)
            } else {
                running[run] = nil
                actions.append(.record(.notRegistered(task.request.identifier, run: run), app))
                actions += releaseIfIdle(app)
            }
        }
        return actions
    }

    // MARK: Requests

    /// `submit(_:)`: nil, or the error iOS throws, with what to record.
    package mutating func submit(
        _ request: ScheduledTaskRequest, for app: AppIdentifier, declaration: AppDeclaration,
        conditions: PhoneConditions, now: VirtualInstant
    ) -> (BGTaskSchedulerError?, [ScheduledTaskAction]) {
        let id = request.identifier
        func reject(_ error: BGTaskSchedulerError, _ why: String) -> (BGTaskSchedulerError?, [ScheduledTaskAction]) {
            (error, [.record(.submitRejected(id, error, why: why), app)])
        }
        guard available else { return reject(.unavailable, "no BGTaskScheduler before iOS 13") }
        guard conditions.backgroundAppRefresh else { return reject(.unavailable, "Background App Refresh is off") }
        guard declaration.permittedTaskIdentifiers.contains(id) else {
            return reject(.notPermitted, "not in BGTaskSchedulerPermittedIdentifiers")
        }
        let mode = request.kind.requiredMode
        guard declaration.backgroundModes.contains(mode) else {
            return reject(.notPermitted, "the '\(mode.rawValue)' background mode is not declared")
        }
        let existing = pending.firstIndex { $0.app == app && $0.request.identifier == id }
        let others = pending.enumerated().filter {
            $0.offset != existing && $0.element.app == app
                && $0.element.request.kind.isProcessing == request.kind.isProcessing
        }.count
        let limit = request.kind.isProcessing ? 10 : 1
        if others >= limit {
            return reject(
                .tooManyPendingTaskRequests,
                "\(limit) \(request.kind.isProcessing ? "processing" : "refresh") request\(limit == 1 ? "" : "s") already pending"
            )
        }
        var actions: [ScheduledTaskAction] = []
        let entry = Pending(app: app, request: request)
        if let existing {
            pending[existing] = entry
            actions.append(.record(.replaced(id), app))
        } else {
            pending.append(entry)
        }
        actions.append(.record(.submitted(id, kind: request.kind, earliestBeginDate: request.earliestBeginDate), app))
        return (nil, actions)
    }

    /// `cancel(taskRequestWithIdentifier:)` (nil: `cancelAllTaskRequests()`).
    package mutating func cancel(_ identifier: String?, for app: AppIdentifier) -> [ScheduledTaskAction] {
        var actions: [ScheduledTaskAction] = []
        pending.removeAll { entry in
            guard entry.app == app, identifier == nil || entry.request.identifier == identifier else { return false }
            actions.append(.record(.cancelled(entry.request.identifier), app))
            return true
        }
        return actions
    }

    package func pendingRequests(of app: AppIdentifier) -> [ScheduledTaskRequest] {
        pending.filter { $0.app == app }.map(\.request)
    }

    // MARK: The user and the process

    /// The user had the app in front: usage counts, a force-quit is forgiven.
    package mutating func usedByUser(_ app: AppIdentifier, now: VirtualInstant) {
        apps[app, default: AppRecord()].lastUsedByUser = now
        apps[app, default: AppRecord()].forceQuitSinceLastUse = false
    }

    /// The app's process ended: its registrations go, its running tasks end with it.
    package mutating func terminated(_ app: AppIdentifier, reason: TerminationReason) -> [ScheduledTaskAction] {
        apps[app, default: AppRecord()].registered = []
        apps[app, default: AppRecord()].launchEnded = true
        if reason == .forceQuit { apps[app, default: AppRecord()].forceQuitSinceLastUse = true }
        var actions: [ScheduledTaskAction] = []
        for run in running.keys.sorted() where running[run]!.app == app {
            let task = running.removeValue(forKey: run)!
            actions += [.cancel(.expiration(run)), .cancel(.overrun(run))]
            if task.phase != .launching {
                actions.append(.record(.interrupted(task.request.identifier, run: run, reason: reason), app))
            } else {
                actions.append(.record(.notRegistered(task.request.identifier, run: run), app))
            }
        }
        return actions
    }

    // MARK: Evaluation

    /// Asks the policy about every pending request (in submission order) and every running
    /// processing task; starts what may run, records new reasons to wait, and sets the next
    /// evaluation.
    package mutating func evaluate(
        now: VirtualInstant, facts: PhoneFacts, policy: any BackgroundTaskSchedulingPolicy
    ) -> [ScheduledTaskAction] {
        var actions: [ScheduledTaskAction] = []
        var next = now.advanced(by: policy.reevaluationInterval)
        for run in running.keys.sorted() {
            guard let task = running[run], task.phase == .running, !task.simulated else { continue }
            let situation = self.situation(for: task.app, kind: task.request.kind, now: now, facts: facts)
            if !policy.mayContinue(task.request, in: situation) {
                actions += expire(run, now: now, why: "conditions no longer met", policy: policy)
            }
        }
        var index = 0
        while index < pending.count {
            let entry = pending[index]
            guard facts.states[entry.app] != nil else {
                index += 1
                continue
            }
            if running.values.contains(where: {
                $0.app == entry.app && $0.request.identifier == entry.request.identifier
            }) {
                index += 1
                continue
            }
            let situation = self.situation(for: entry.app, kind: entry.request.kind, now: now, facts: facts)
            let decision = policy.decide(entry.request, in: situation)
            let why: String
            switch decision {
            case .run:
                pending.remove(at: index)
                actions += start(entry.app, entry.request, simulated: false, now: now, facts: facts, policy: policy)
                continue
            case .wait(let reason):
                why = reason
            case .waitUntil(let instant, let reason):
                why = reason
                if instant > now { next = min(next, instant) }
            }
            if pending[index].lastWhy != why {
                pending[index].lastWhy = why
                actions.append(.record(.deferred(entry.request.identifier, why: why), entry.app))
            }
            index += 1
        }
        let wanted = !pending.isEmpty || running.values.contains { $0.request.kind.isProcessing }
        if wanted {
            if evaluationAt != next {
                evaluationAt = next
                actions.append(.schedule(.evaluation, at: next))
            }
        } else if evaluationAt != nil {
            evaluationAt = nil
            actions.append(.cancel(.evaluation))
        }
        return actions
    }

    /// The debugger's `_simulateLaunchForTaskWithIdentifier`: the pending request starts now,
    /// whatever the policy says (registration still applies). False when none is pending.
    package mutating func simulateLaunch(
        _ identifier: String, of app: AppIdentifier, now: VirtualInstant, facts: PhoneFacts,
        policy: any BackgroundTaskSchedulingPolicy
    ) -> (Bool, [ScheduledTaskAction]) {
        guard let index = pending.firstIndex(where: { $0.app == app && $0.request.identifier == identifier }) else {
            return (false, [])
        }
        let entry = pending.remove(at: index)
        return (true, start(app, entry.request, simulated: true, now: now, facts: facts, policy: policy))
    }

    /// The debugger's `_simulateExpirationForTaskWithIdentifier`: the running task expires now.
    package mutating func simulateExpiration(
        _ identifier: String, of app: AppIdentifier, now: VirtualInstant, policy: any BackgroundTaskSchedulingPolicy
    ) -> (Bool, [ScheduledTaskAction]) {
        guard
            let run = running.keys.sorted().first(where: {
                running[$0]!.app == app && running[$0]!.request.identifier == identifier
                    && running[$0]!.phase == .running
            })
        else { return (false, []) }
        return (true, expire(run, now: now, why: "simulated", policy: policy))
    }

    // MARK: Runs

    /// `setTaskCompleted(success:)`, or the system completing a task that has no expiration
    /// handler. A second completion does nothing.
    package mutating func completed(_ run: Int, success: Bool, bySystem: Bool) -> [ScheduledTaskAction] {
        guard let task = running[run], task.phase != .launching else { return [] }
        running[run] = nil
        var actions: [ScheduledTaskAction] = [
            .cancel(.expiration(run)), .cancel(.overrun(run)),
            .record(.completed(task.request.identifier, run: run, success: success, bySystem: bySystem), task.app),
        ]
        actions += releaseIfIdle(task.app)
        return actions
    }

    package mutating func timerFired(
        _ timer: ScheduledTaskTimer, now: VirtualInstant, policy: any BackgroundTaskSchedulingPolicy
    ) -> [ScheduledTaskAction] {
        switch timer {
        case .evaluation:
            evaluationAt = nil
            return []
        case .expiration(let run):
            return expire(run, now: now, why: "time limit", policy: policy)
        case .overrun(let run):
            guard let task = running[run], task.phase == .expiring else { return [] }
            return [.record(.overrun(task.request.identifier, run: run), task.app), .kill(task.app)]
        }
    }

    private mutating func start(
        _ app: AppIdentifier, _ request: ScheduledTaskRequest, simulated: Bool, now: VirtualInstant, facts: PhoneFacts,
        policy: any BackgroundTaskSchedulingPolicy
    ) -> [ScheduledTaskAction] {
        let run = nextRun
        nextRun += 1
        var starts = apps[app, default: AppRecord()].starts[request.kind.isProcessing, default: []]
        starts.removeAll { $0.advanced(by: .seconds(86_400)) <= now }
        starts.append(now)
        apps[app, default: AppRecord()].starts[request.kind.isProcessing] = starts
        let notRunning = (facts.states[app] ?? .notRunning) == .notRunning
        let ready = !notRunning && apps[app]!.launchEnded
        running[run] = Running(app: app, request: request, phase: .launching, simulated: simulated)
        var actions: [ScheduledTaskAction] = [
            .begin(
                app, request, run: run, launch: notRunning, until: now.advanced(by: policy.timeLimit(for: request.kind))
            )
        ]
        if ready {
            if apps[app]!.registered.contains(request.identifier) {
                actions += runHandler(run, now: now, policy: policy)
            } else {
                running[run] = nil
                actions.append(.record(.notRegistered(request.identifier, run: run), app))
                actions += releaseIfIdle(app)
            }
        }
        return actions
    }

    private mutating func runHandler(_ run: Int, now: VirtualInstant, policy: any BackgroundTaskSchedulingPolicy)
        -> [ScheduledTaskAction]
    {
        guard var task = running[run] else { return [] }
        task.phase = .running
        running[run] = task
        let until = now.advanced(by: policy.timeLimit(for: task.request.kind))
        return [
            .record(.started(task.request.identifier, run: run, until: until, simulated: task.simulated), task.app),
            .runHandler(task.app, task.request.identifier, run: run),
            .schedule(.expiration(run), at: until),
        ]
    }

    private mutating func expire(
        _ run: Int, now: VirtualInstant, why: String, policy: any BackgroundTaskSchedulingPolicy
    ) -> [ScheduledTaskAction] {
        guard var task = running[run], task.phase == .running else { return [] }
        task.phase = .expiring
        running[run] = task
        return [
            .cancel(.expiration(run)),
            .record(.expiring(task.request.identifier, run: run, why: why), task.app),
            .expire(task.app, run: run),
            .schedule(.overrun(run), at: now.advanced(by: policy.overrunGrace)),
        ]
    }

    private func releaseIfIdle(_ app: AppIdentifier) -> [ScheduledTaskAction] {
        running.values.contains { $0.app == app } ? [] : [.releaseHold(app)]
    }

    private func situation(
        for app: AppIdentifier, kind: BGTaskKind, now: VirtualInstant, facts: PhoneFacts
    ) -> TaskSchedulingSituation {
        let record = apps[app] ?? AppRecord()
        let starts = (record.starts[kind.isProcessing] ?? []).filter { $0.advanced(by: .seconds(86_400)) > now }
        return TaskSchedulingSituation(
            now: now, conditions: facts.conditions, locked: facts.locked, appInFront: facts.front == app,
            appState: facts.states[app] ?? .notRunning, forceQuitSinceLastUse: record.forceQuitSinceLastUse,
            lastUsedByUser: record.lastUsedByUser, lastRunOfKind: starts.last, runsOfKindInLastDay: starts.count,
            profileMajorVersion: facts.majorVersion)
    }
}
