/// The bookkeeping of device-driven work, as a value: jobs with a cadence, and on each tick the
/// jobs due. No I/O, no clock of its own (the tick's time is an input), nothing async — so an
/// app actor can keep one in its own state and run the due jobs itself, on its own executor,
/// and `DeviceTickScheduler` wraps one for code that wants an actor.
///
/// `Job` is whatever the owner attaches to each registration (a closure, an enum of its jobs).
public struct DeviceTickSchedule<Instant: InstantProtocol, Job> where Instant.Duration == Duration {
    /// When a job runs.
    public enum Cadence: Sendable, Hashable {
        /// On every `n`th tick after it was scheduled (n ≥ 1).
        case everyTicks(Int)
        /// On the first tick at or after `interval` since it was scheduled, then since it last
        /// ran.
        case atLeastEvery(Duration)
    }

    /// Identifies a scheduled job, to cancel it.
    public struct JobID: Hashable, Sendable {
        let value: UInt64
    }

    /// One job due on a tick.
    public struct Due {
        public let id: JobID
        public let job: Job
        /// The tick's number, from 1 for the first tick.
        public let tick: UInt64
        /// When the tick arrived.
        public let time: Instant
        /// How many times the job ran before.
        public let previousRuns: Int
        /// How late the run is against when it was due: zero for a tick cadence; for a duration
        /// cadence, the time from when it became due to this tick (ticks that stop — the device
        /// out of range — show here).
        public let lateness: Duration

        @usableFromInline
        init(id: JobID, job: Job, tick: UInt64, time: Instant, previousRuns: Int, lateness: Duration) {
            self.id = id
            self.job = job
            self.tick = tick
            self.time = time
            self.previousRuns = previousRuns
            self.lateness = lateness
        }
    }

    // `tick` is inlinable, so that an app's module specializes it for its own job and instant
    // types: it runs on every device tick, and unspecialized it looked up generic metadata at
    // run time on each call. What it touches is therefore usable from inlinable code.
    @usableFromInline
    struct Entry {
        @usableFromInline let id: JobID
        @usableFromInline let cadence: Cadence
        @usableFromInline let job: Job
        @usableFromInline var ticksSinceRun = 0
        @usableFromInline var reference: Instant
        @usableFromInline var runs = 0
    }

    @usableFromInline var entries: [Entry] = []
    private var nextID: UInt64 = 0
    @usableFromInline var ticksTaken: UInt64 = 0
    /// Ticks taken so far.
    public var tickCount: UInt64 { ticksTaken }

    public init() {}

    /// Schedules `job` at `cadence` from `now`; a tick cadence below 1 counts as 1.
    @discardableResult
    public mutating func schedule(_ cadence: Cadence, now: Instant, _ job: Job) -> JobID {
        let id = JobID(value: nextID)
        nextID += 1
        entries.append(Entry(id: id, cadence: cadence, job: job, reference: now))
        return id
    }

    public mutating func cancel(_ id: JobID) {
        entries.removeAll { $0.id == id }
    }

    /// How many times a job ran; nil once cancelled.
    public func runCount(of id: JobID) -> Int? {
        entries.first { $0.id == id }?.runs
    }

    /// One tick at `now`: the jobs due, in registration order, each counted as run.
    @inlinable
    public mutating func tick(at now: Instant) -> [Due] {
        ticksTaken += 1
        var due: [Due] = []
        for index in entries.indices {
            entries[index].ticksSinceRun += 1
            let entry = entries[index]
            let lateness: Duration
            switch entry.cadence {
            case .everyTicks(let n):
                guard entry.ticksSinceRun >= max(1, n) else { continue }
                lateness = .zero
            case .atLeastEvery(let interval):
                let dueAt = entry.reference.advanced(by: interval)
                guard dueAt <= now else { continue }
                lateness = dueAt.duration(to: now)
            }
            due.append(
                Due(
                    id: entry.id, job: entry.job, tick: ticksTaken, time: now, previousRuns: entry.runs,
                    lateness: lateness))
            entries[index].ticksSinceRun = 0
            entries[index].reference = now
            entries[index].runs += 1
        }
        return due
    }
}

extension DeviceTickSchedule: Sendable where Job: Sendable, Instant: Sendable {}
extension DeviceTickSchedule.Due: Sendable where Job: Sendable, Instant: Sendable {}
extension DeviceTickSchedule.Entry: Sendable where Job: Sendable, Instant: Sendable {}
