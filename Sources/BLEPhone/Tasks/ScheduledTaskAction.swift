import BLESimulation

/// The timers `ScheduledTaskMachine` asks for.
package enum ScheduledTaskTimer: Sendable, Hashable {
    /// The next evaluation of the pending requests (one for the phone).
    case evaluation
    /// A run's time limit.
    case expiration(Int)
    /// A run's grace after expiring.
    case overrun(Int)
}

/// What the machine asks the phone to do.
package enum ScheduledTaskAction: Sendable {
    case record(ScheduledTaskEvent, AppIdentifier)
    /// A task starts: launch the app in the background (`launch`) or wake it, and hold it.
    case begin(AppIdentifier, ScheduledTaskRequest, run: Int, launch: Bool, until: VirtualInstant)
    /// Call the registered launch handler with a new `BGTask`.
    case runHandler(AppIdentifier, String, run: Int)
    /// Call the task's expiration handler, or (none set) complete it unsuccessfully.
    case expire(AppIdentifier, run: Int)
    /// No task of the app runs any more: let go of its `.scheduledTask` hold.
    case releaseHold(AppIdentifier)
    /// `TerminationReason.scheduledTaskOverrun`.
    case kill(AppIdentifier)
    case schedule(ScheduledTaskTimer, at: VirtualInstant)
    case cancel(ScheduledTaskTimer)
}
