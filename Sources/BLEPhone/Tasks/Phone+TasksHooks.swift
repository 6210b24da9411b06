extension Phone {
    /// An app changed state: its scheduled tasks react here.
    func scheduledTasksSawStateChange(of app: AppIdentifier, from old: AppState, to new: AppState) {
        if old == .notRunning {
            // Registration is per launch: the new process registers again.
            runtime.scheduledTasks.handlers[app] = nil
            withTaskMachine { $0.launched(app) }
        }
        if new == .active { withTaskMachine { $0.usedByUser(app, now: simulation.now) } }
        requestTaskEvaluation()
    }

    /// An app's process ended: its running scheduled task ends with it.
    func scheduledTasksSawTermination(of app: AppIdentifier, reason: TerminationReason) {
        runtime.scheduledTasks.handlers[app] = nil
        performTasks(withTaskMachine { $0.terminated(app, reason: reason) })
        requestTaskEvaluation()
    }

    /// The handset's conditions changed (`Phone.setConditions`).
    func scheduledTasksSawConditionsChange(from old: PhoneConditions, to new: PhoneConditions) {
        requestTaskEvaluation()
    }

    /// The app's `didFinishLaunching` returned: its launch has ended (no more registrations), and
    /// the tasks waiting for the launch run or cannot.
    func scheduledTasksSawLaunchEnd(of app: AppIdentifier) {
        let policy = runtime.scheduledTasks.policy
        let now = simulation.now
        performTasks(withTaskMachine { $0.launchEnded(app, now: now, policy: policy) })
    }

    /// The phone was locked or unlocked (processing tasks wait for the lock).
    func scheduledTasksSawLockChange() {
        requestTaskEvaluation()
    }
}
