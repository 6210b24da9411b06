import BLESimulation

extension Phone {
    /// Replaces the policy that decides when pending BGTaskScheduler requests run (the default
    /// is `DefaultTaskSchedulingPolicy`); the pending requests are evaluated again at once.
    public func setTaskSchedulingPolicy(_ policy: any BackgroundTaskSchedulingPolicy) {
        runtime.scheduledTasks.policy = policy
        requestTaskEvaluation()
    }

    /// The pending requests of `app`, in submission order.
    public func pendingScheduledTasks(of app: AppIdentifier) -> [ScheduledTaskRequest] {
        taskMachine.pendingRequests(of: app)
    }

    /// The debugger's `_simulateLaunchForTaskWithIdentifier`: the app's pending request with this
    /// identifier starts now, whatever the policy says; the app must still have registered its
    /// launch handler (in this launch, or in the launch this starts). False, and a note in the
    /// trace, when no such request is pending.
    @discardableResult
    public func simulateLaunchForTask(withIdentifier identifier: String, of app: AppIdentifier) -> Bool {
        let facts = taskFacts()
        let policy = runtime.scheduledTasks.policy
        let (found, actions) = withTaskMachine {
            $0.simulateLaunch(identifier, of: app, now: simulation.now, facts: facts, policy: policy)
        }
        if !found { record(.note("simulate launch: no pending request '\(identifier)'"), app: app) }
        performTasks(actions)
        return found
    }

    /// The debugger's `_simulateExpirationForTaskWithIdentifier`: the app's running task with
    /// this identifier expires now. False, and a note in the trace, when none runs.
    @discardableResult
    public func simulateExpirationForTask(withIdentifier identifier: String, of app: AppIdentifier) -> Bool {
        let policy = runtime.scheduledTasks.policy
        let (found, actions) = withTaskMachine {
            $0.simulateExpiration(identifier, of: app, now: simulation.now, policy: policy)
        }
        if !found { record(.note("simulate expiration: no running task '\(identifier)'"), app: app) }
        performTasks(actions)
        return found
    }

    // MARK: The app's calls

    func registerScheduledTask(
        _ identifier: String, for app: AppIdentifier, launch: Int, handler: @escaping @Sendable (BGTask) async -> Void
    ) -> BGTaskRegistrationError? {
        guard let entry = runtime.apps[app] else { return .afterLaunch(identifier) }
        let current = entry.context?.launchNumber == launch
        let (error, actions) = withTaskMachine {
            $0.register(app, identifier, declaration: entry.declaration, currentLaunch: current)
        }
        if error == nil { runtime.scheduledTasks.handlers[app, default: [:]][identifier] = handler }
        performTasks(actions)
        return error
    }

    func submitScheduledTask(_ request: ScheduledTaskRequest, for app: AppIdentifier) -> BGTaskSchedulerError? {
        guard let entry = runtime.apps[app] else { return .notPermitted }
        let conditions = runtime.conditions
        let now = simulation.now
        let (error, actions) = withTaskMachine {
            $0.submit(request, for: app, declaration: entry.declaration, conditions: conditions, now: now)
        }
        performTasks(actions)
        if error == nil { requestTaskEvaluation() }
        return error
    }

    func cancelScheduledTasks(_ identifier: String?, for app: AppIdentifier) {
        performTasks(withTaskMachine { $0.cancel(identifier, for: app) })
    }

    func completeScheduledTask(run: Int, of app: AppIdentifier, launch: Int, success: Bool) {
        guard isCurrent(app, launch: launch) else { return }
        performTasks(withTaskMachine { $0.completed(run, success: success, bySystem: false) })
        requestTaskEvaluation()
    }

    // MARK: Driving the machine

    /// The machine, made with the profile on first use.
    var taskMachine: ScheduledTaskMachine {
        runtime.scheduledTasks.machine ?? ScheduledTaskMachine(majorVersion: profile.majorVersion)
    }

    func withTaskMachine<Result>(_ body: (inout ScheduledTaskMachine) -> Result) -> Result {
        var machine = taskMachine
        runtime.scheduledTasks.machine = nil
        defer { runtime.scheduledTasks.machine = machine }
        return body(&machine)
    }

    func taskFacts() -> ScheduledTaskMachine.PhoneFacts {
        ScheduledTaskMachine.PhoneFacts(
            conditions: runtime.conditions, locked: runtime.locked, majorVersion: profile.majorVersion,
            states: runtime.apps.mapValues(\.lifecycle.state), front: runtime.front)
    }

    /// Evaluates the pending requests at the current instant, in a job of its own (several
    /// changes at one instant make one evaluation); nothing when nothing is pending or running.
    func requestTaskEvaluation() {
        guard !taskMachine.isIdle else { return }
        schedule(.scheduledTask(.evaluation), at: simulation.now)
    }

    func scheduledTaskTimerFired(_ timer: ScheduledTaskTimer) {
        let policy = runtime.scheduledTasks.policy
        let now = simulation.now
        performTasks(withTaskMachine { $0.timerFired(timer, now: now, policy: policy) })
        if case .evaluation = timer {
            let facts = taskFacts()
            performTasks(withTaskMachine { $0.evaluate(now: now, facts: facts, policy: policy) })
        }
    }

    func performTasks(_ actions: [ScheduledTaskAction]) {
        for action in actions {
            switch action {
            case .record(let event, let app):
                record(.scheduledTask(event), app: app)
            case .begin(let app, let request, _, let launch, let until):
                if launch {
                    self.launch(app, inFront: false, reason: .scheduledTask(request.identifier))
                } else if runtime.apps[app]?.lifecycle.state == .suspended {
                    runtime.counters.wakes += 1
                    record(.woken(.scheduledTask(request.identifier), until: until), app: app)
                }
                feed(app) { $0.setHold(.scheduledTask, true) }
            case .runHandler(let app, let identifier, let run):
                runLaunchHandler(identifier, run: run, of: app)
            case .expire(let app, let run):
                if let handler = runtime.scheduledTasks.tasks[run]?.expirationHandler {
                    runOnApp(app, .scheduledTaskExpirationHandler, handler)
                } else {
                    // "If you don't set an expiration handler, the system marks your task as
                    // complete and unsuccessful" (BGTask expirationHandler).
                    performTasks(withTaskMachine { $0.completed(run, success: false, bySystem: true) })
                }
            case .releaseHold(let app):
                feed(app) { $0.setHold(.scheduledTask, false) }
            case .kill(let app):
                logger.notice("\(app): scheduled task not completed after expiring")
                kill(app, .scheduledTaskOverrun)
            case .schedule(let timer, let time):
                schedule(.scheduledTask(timer), at: time)
            case .cancel(let timer):
                cancel(.scheduledTask(timer))
            }
        }
        pruneTaskObjects()
    }

    private func runLaunchHandler(_ identifier: String, run: Int, of app: AppIdentifier) {
        guard let context = runtime.apps[app]?.context,
            let handler = runtime.scheduledTasks.handlers[app]?[identifier],
            let running = taskMachine.running[run]
        else { return }
        let task = BGTask(
            identifier: identifier, kind: running.request.kind, run: run, app: app, launch: context.launchNumber,
            phone: self)
        runtime.scheduledTasks.tasks[run] = task
        runOnApp(app, .scheduledTaskLaunchHandler) { await handler(task) }
    }

    /// Task objects of runs that ended are dropped (the app may keep its own reference).
    private func pruneTaskObjects() {
        let running = taskMachine.running
        for run in runtime.scheduledTasks.tasks.keys where running[run] == nil {
            runtime.scheduledTasks.tasks[run] = nil
        }
    }
}
