/// Runs an app's periodic work on a device's ticks — the heartbeat messages a wearable sends —
/// instead of on an app timer, which a suspended phone app would not run: while the device
/// talks, the app is woken for its messages, and the work rides along.
///
/// Jobs are registered with a cadence: every N ticks, or at least every duration (run on the
/// first tick at or after it is due). `run(_:)` reads the ticks and, on each, runs the jobs
/// due, one after another in registration order, before it reads the next. Time is read from
/// the injected clock when a tick arrives; nothing here sleeps.
public actor DeviceTickScheduler<C: Clock> where C.Duration == Duration {
    public typealias Schedule = DeviceTickSchedule<C.Instant, @Sendable (Run) async -> Void>
    /// When a job runs.
    public typealias Cadence = Schedule.Cadence
    /// Identifies a scheduled job, to cancel it.
    public typealias JobID = Schedule.JobID

    /// What a job is told when it runs.
    public struct Run: Sendable {
        /// The tick's number, from 1 for the first tick `run` read.
        public let tick: UInt64
        /// When the tick arrived.
        public let time: C.Instant
        /// How many times the job ran before.
        public let previousRuns: Int
        /// How late the run is against when it was due: zero for a tick cadence; for a duration
        /// cadence, the time from when it became due to this tick (ticks that stop — the device
        /// out of range — show here).
        public let lateness: Duration
    }

    private let clock: C
    private var schedule = Schedule()

    public init(clock: C) {
        self.clock = clock
    }

    /// Ticks read so far.
    public var tickCount: UInt64 { schedule.tickCount }

    /// Schedules `work` at `cadence`; a tick cadence below 1 counts as 1.
    @discardableResult
    public func schedule(_ cadence: Cadence, _ work: @escaping @Sendable (Run) async -> Void) -> JobID {
        schedule.schedule(cadence, now: clock.now, work)
    }

    public func cancel(_ id: JobID) {
        schedule.cancel(id)
    }

    /// How many times a job ran; nil once cancelled.
    public func runCount(of id: JobID) -> Int? {
        schedule.runCount(of: id)
    }

    /// Reads `ticks` until it ends or the task is cancelled, running the jobs due on each.
    /// Rethrows the sequence's error.
    public func run<S: AsyncSequence & Sendable>(_ ticks: S) async throws {
        for try await _ in ticks {
            try Task.checkCancellation()
            await tick()
        }
    }

    /// One tick: runs the jobs due now, in registration order. (`run(_:)` calls it for each
    /// element.) A job cancelled by an earlier one on the same tick does not run.
    public func tick() async {
        for due in schedule.tick(at: clock.now) {
            guard schedule.runCount(of: due.id) != nil else { continue }
            await due.job(
                Run(tick: due.tick, time: due.time, previousRuns: due.previousRuns, lateness: due.lateness))
        }
    }
}
