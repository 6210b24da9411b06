/// Runs an app's periodic work on a device's ticks — the heartbeat messages a wearable sends —
/// instead of on an app timer, which a suspended phone app would not run: while the device
/// talks, the app is woken for its messages, and the work rides along.
///
/// Jobs are registered with a cadence: every N ticks, or at least every duration (run on the
/// first tick at or after it is due). `run(_:)` reads the ticks and, on each, runs the jobs
/// due, one after another in registration order, before it reads the next. Time is read from
/// the injected clock when a tick arrives; nothing here sleeps.
public actor DeviceTickScheduler<C: Clock> where C.Duration == Duration {
    /// When a job runs.
    public enum Cadence: Sendable, Hashable {
        /// On every `n`th tick after it was scheduled (n ≥ 1).
        case everyTicks(Int)
        /// On the first tick at or after `interval` since it was scheduled, then since it last
        /// ran.
        case atLeastEvery(Duration)
    }

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

    /// Identifies a scheduled job, to cancel it.
    public struct JobID: Hashable, Sendable {
        let value: UInt64
    }

    private struct Job {
        let id: JobID
        let cadence: Cadence
        let work: @Sendable (Run) async -> Void
        var ticksSinceRun = 0
        var reference: C.Instant
        var runs = 0
    }

    private let clock: C
    private var jobs: [Job] = []
    private var nextID: UInt64 = 0
    private var ticks: UInt64 = 0

    public init(clock: C) {
        self.clock = clock
    }

    /// Ticks read so far.
    public var tickCount: UInt64 { ticks }

    /// Schedules `work` at `cadence`; a tick cadence below 1 counts as 1.
    @discardableResult
    public func schedule(_ cadence: Cadence, _ work: @escaping @Sendable (Run) async -> Void) -> JobID {
        let id = JobID(value: nextID)
        nextID += 1
        jobs.append(Job(id: id, cadence: cadence, work: work, reference: clock.now))
        return id
    }

    public func cancel(_ id: JobID) {
        jobs.removeAll { $0.id == id }
    }

    /// How many times a job ran; nil once cancelled.
    public func runCount(of id: JobID) -> Int? {
        jobs.first { $0.id == id }?.runs
    }

    /// Reads `ticks` until it ends or the task is cancelled, running the jobs due on each.
    /// Rethrows the sequence's error.
    public func run<S: AsyncSequence & Sendable>(_ ticks: S) async throws {
        for try await _ in ticks {
            try Task.checkCancellation()
            await tick()
        }
    }

    /// One tick: runs the jobs due now. (`run(_:)` calls it for each element.)
    public func tick() async {
        ticks += 1
        let now = clock.now
        let number = ticks
        for id in jobs.map(\.id) {
            // A job may cancel others (or itself) while it runs.
            guard let index = jobs.firstIndex(where: { $0.id == id }) else { continue }
            var job = jobs[index]
            job.ticksSinceRun += 1
            let lateness: Duration
            switch job.cadence {
            case .everyTicks(let n):
                guard job.ticksSinceRun >= max(1, n) else {
                    jobs[index] = job
                    continue
                }
                lateness = .zero
            case .atLeastEvery(let interval):
                let due = job.reference.advanced(by: interval)
                guard due <= now else {
                    jobs[index] = job
                    continue
                }
                lateness = due.duration(to: now)
            }
            let run = Run(tick: number, time: now, previousRuns: job.runs, lateness: lateness)
            job.ticksSinceRun = 0
            job.reference = now
            job.runs += 1
            jobs[index] = job
            await job.work(run)
        }
    }
}
