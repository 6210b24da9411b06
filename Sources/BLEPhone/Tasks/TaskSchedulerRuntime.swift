/// The phone's bookkeeping of BGTaskScheduler: the rule machine, the policy, the launch
/// handlers of the running instances and the `BGTask` objects of the runs, one stored property
/// of `PhoneRuntime`.
struct TaskSchedulerRuntime {
    /// Made on first use with the phone's profile (`Phone.taskMachine`).
    var machine: ScheduledTaskMachine?
    var policy: any BackgroundTaskSchedulingPolicy = DefaultTaskSchedulingPolicy()
    /// Launch handlers by app and identifier, for the current launch only.
    var handlers: [AppIdentifier: [String: @Sendable (BGTask) async -> Void]] = [:]
    /// The task objects handed to launch handlers, by run.
    var tasks: [Int: BGTask] = [:]
}
