/// The phone's bookkeeping of BGTaskScheduler: registrations, requests, runs, expirations, one stored property of `PhoneRuntime`.
struct TaskSchedulerRuntime {
}
