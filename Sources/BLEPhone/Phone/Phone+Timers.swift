import BLESimulation

extension Phone {
    /// Sets `timer` to fire at `time` on the virtual clock, replacing the one set before.
    ///
    /// A cancelled or replaced timer never fires: its event leaves the queue, and should it
    /// already be on its way the generation check drops it. A timer moved LATER keeps its
    /// armed event and only records the new deadline: when the event comes it re-arms for the
    /// rest (a wake window restarted by each of a stream of events — one a second for a day in
    /// the phone benchmark — costs one queue event per window, not two per event).
    func schedule(_ timer: PhoneTimer, at time: VirtualInstant) {
        if let armed = runtime.timers[timer], armed.armedFor <= time {
            runtime.timers[timer]!.deadline = time
            return
        }
        cancel(timer)
        arm(timer, at: time)
    }

    /// Puts `timer`'s event on the queue for `time`.
    private func arm(_ timer: PhoneTimer, at time: VirtualInstant) {
        runtime.timerGeneration &+= 1
        let generation = runtime.timerGeneration
        runtime.timers[timer] = ScheduledTimer(generation: generation, token: nil, armedFor: time, deadline: time)
        let executor = simulation.executor
        simulation.perform { [self] queue in
            let token = queue.schedule(at: time) { [self] in
                // Handled in a job of its own, after the jobs already queued for this instant,
                // as the phone's other work is.
                Task(executorPreference: executor) { await self.timerFired(timer, generation: generation) }
            }
            // The action runs on the simulation thread, the phone's executor.
            let current = assumeIsolated { phone -> Bool in
                guard phone.runtime.timers[timer]?.generation == generation else { return false }
                phone.runtime.timers[timer]?.token = token
                return true
            }
            if !current { queue.cancel(token) }
        }
    }

    func schedule(_ timer: PhoneTimer, after delay: Duration) {
        schedule(timer, at: simulation.now.advanced(by: delay))
    }

    func cancel(_ timer: PhoneTimer) {
        guard let scheduled = runtime.timers.removeValue(forKey: timer) else { return }
        if let token = scheduled.token { simulation.perform { $0.cancel(token) } }
    }

    private func timerFired(_ timer: PhoneTimer, generation: UInt64) {
        guard let scheduled = runtime.timers[timer], scheduled.generation == generation else { return }
        if scheduled.deadline > simulation.now {
            // Moved later while armed (`schedule`): wait for the rest.
            arm(timer, at: scheduled.deadline)
            return
        }
        runtime.timers[timer] = nil
        switch timer {
        case .lifecycle(let app, let lifecycleTimer):
            feed(app) { $0.timerFired(lifecycleTimer) }
        case .budget(let app, let budgetTimer):
            budgetTimerFired(budgetTimer, of: app)
        case .autoLock:
            autoLockFired()
        case .keepAlive(let app, let keepAliveTimer):
            keepAliveTimerFired(keepAliveTimer, of: app)
        case .scheduledTask(let taskTimer):
            scheduledTaskTimerFired(taskTimer)
        case .audio(let audioTimer):
            audioTimerFired(audioTimer)
        }
    }
}
