import BLELocking
import Foundation
import Synchronization

/// The virtual radio's world of time: one thread that runs every participant's async work (as
/// a serial and task executor) and the discrete-event queue of the air, and a `Clock` on
/// virtual time.
///
/// In `.virtual` mode time jumps: whenever no job is runnable, the clock advances to the next
/// scheduled event — an hour of an idle connection takes milliseconds, and runs are
/// deterministic. In `.paced` mode the same events run when the wall clock reaches them (scaled
/// by `rate`), for foreign hosts over TCP and for demos.
///
/// The contract that makes "nothing is runnable" meaningful: everything that takes part (hosts,
/// controllers, the test or app driving them) runs on this executor — actors return
/// `simulation.executor.asUnownedSerialExecutor()` as their `unownedExecutor`, tasks are started
/// with `run(_:)` or `Task(executorPreference: simulation.executor)`. Work parked on other
/// executors is invisible to the simulation, which would advance time past it.
public final class Simulation: Sendable {
    public enum Pacing: Sendable, Equatable {
        /// Jump to the next event whenever nothing is runnable.
        case virtual
        /// Follow wall time; `rate` virtual seconds per wall second (1 = real time).
        case paced(rate: Double)
    }

    public let pacing: Pacing
    public let executor: SimulationExecutor
    public let clock: VirtualClock

    public init(pacing: Pacing = .virtual) {
        self.pacing = pacing
        let executor = SimulationExecutor(pacing: pacing)
        self.executor = executor
        self.clock = VirtualClock(executor: executor)
    }

    /// The current virtual time.
    public var now: VirtualInstant { clock.now }

    /// Runs `body` as a task on the simulation executor and returns its result. Virtual time
    /// advances while `body` awaits.
    ///
    /// Virtual time moves only while some `run` is under way: work set up before (controllers
    /// added, events scheduled) waits at time zero instead of racing ahead of the body.
    public func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        executor.start()
        let executor = self.executor
        let task = Task(executorPreference: executor) {
            // Time stops the moment the body ends, not when the caller hears of it.
            defer { executor.endRun() }
            return try await body()
        }
        // Counted after the body's first job is queued, so time cannot jump before it runs.
        executor.beginRun()
        return try await task.value
    }

    deinit {
        executor.stop()
    }

    /// Runs `action` on the simulation thread with the event queue (for code that drives the air
    /// synchronously: controllers, the virtual air). Safe to call from any thread.
    public func perform(_ action: @escaping @Sendable (EventQueue) -> Void) {
        executor.start()
        executor.submit(action)
    }
}

/// The single thread of a simulation: a serial executor (actors), a task executor (tasks) and
/// the owner of the event queue.
public final class SimulationExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `queue` is only touched on the simulation thread (inside `loop`, by
    // jobs and actions it runs); everything shared across threads is inside `state`'s lock.
    private struct State {
        var jobs: [UnownedJob] = []
        var actions: [SubmittedAction] = []
        var started = false
        var stopped = false
    }

    private let state = Locked(State())
    private let wakeUp = NSCondition()
    /// Set whenever `state` may hold news for the loop (work queued from another thread, a stop,
    /// a run begun), so the loop takes the lock only then rather than once per event.
    private let stateChanged = Atomic<Bool>(false)
    /// `Simulation.run` calls under way; time advances only while this is positive.
    private let activeRuns = Atomic<Int>(0)
    /// Set once the thread was started (`start`'s fast path).
    private let isStarted = Atomic<Bool>(false)
    /// The simulation thread, once started: work queued from it needs neither the lock nor a
    /// wake-up (the thread is running, and picks it up before it next looks at the queue).
    private let simulationThread = Atomic<UInt>(0)
    /// Jobs and actions queued from the simulation thread itself; touched only there.
    private var localJobs: [UnownedJob] = []
    private var localActions: [SubmittedAction] = []
    private let pacing: Simulation.Pacing
    private let isPaced: Bool
    /// The event queue; owned by the simulation thread.
    let queue = EventQueue()
    /// Virtual time published for readers on other threads (nanoseconds).
    private let publishedNow = Atomic<Int64>(0)
    /// What the thread has run, published for `statistics`.
    private let jobsRun = Atomic<Int>(0)
    private let actionsRun = Atomic<Int>(0)
    private let eventsRun = Atomic<Int>(0)

    init(pacing: Simulation.Pacing) {
        self.pacing = pacing
        if case .paced = pacing { isPaced = true } else { isPaced = false }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        if isOnSimulationThread {
            localJobs.append(unowned)
            return
        }
        state.withLock { $0.jobs.append(unowned) }
        signal()
    }

    /// Code outside any job — the event queue's actions — runs on the simulation thread
    /// between jobs, so it holds the isolation of every actor on this executor.
    public func checkIsolated() {
        precondition(isOnSimulationThread, "not on the simulation thread")
    }

    /// True on the simulation thread (a comparison of thread identities, no lock).
    private var isOnSimulationThread: Bool {
        simulationThread.load(ordering: .relaxed) == Self.currentThreadID
    }

    private static var currentThreadID: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Counts of what the simulation thread ran: task jobs (each resumption of a task), actions
    /// submitted to it, and events of the event queue. Deterministic for a given run, so
    /// benchmarks report them beside wall time as the cost of a procedure in scheduling work.
    public struct Statistics: Sendable, Equatable {
        public var jobs: Int
        public var actions: Int
        public var events: Int

        public static func - (lhs: Statistics, rhs: Statistics) -> Statistics {
            Statistics(jobs: lhs.jobs - rhs.jobs, actions: lhs.actions - rhs.actions, events: lhs.events - rhs.events)
        }
    }

    /// What the simulation thread has run so far (readable from any thread).
    public var statistics: Statistics {
        Statistics(
            jobs: jobsRun.load(ordering: .relaxed), actions: actionsRun.load(ordering: .relaxed),
            events: eventsRun.load(ordering: .relaxed))
    }

    /// Virtual time, readable from any thread.
    var now: VirtualInstant { VirtualInstant(nanoseconds: publishedNow.load(ordering: .acquiring)) }

    func submit(_ action: @escaping @Sendable (EventQueue) -> Void) {
        if isOnSimulationThread {
            localActions.append(.closure(action))
            return
        }
        state.withLock { $0.actions.append(.closure(action)) }
        signal()
    }

    /// Queues `job` to be run by `runner` on the simulation thread, in order with submitted
    /// actions (what `submit { _ in runner.runForwarded(job) }` does, without a closure).
    package func forward(_ job: UnownedJob, to runner: any ForwardedJobRunner) {
        start()
        if isOnSimulationThread {
            localActions.append(.forwarded(job, runner))
            return
        }
        state.withLock { $0.actions.append(.forwarded(job, runner)) }
        signal()
    }

    private func signal() {
        stateChanged.store(true, ordering: .releasing)
        wakeUp.lock()
        wakeUp.signal()
        wakeUp.unlock()
    }

    func beginRun() {
        activeRuns.wrappingAdd(1, ordering: .relaxed)
        signal()
    }

    func endRun() {
        activeRuns.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Ends the simulation thread; work still queued is dropped.
    func stop() {
        state.withLock { $0.stopped = true }
        signal()
    }

    /// Starts the simulation thread once.
    func start() {
        // Called before most submissions: after the first, an atomic load and no lock.
        guard !isStarted.load(ordering: .acquiring) else { return }
        let first = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        isStarted.store(true, ordering: .releasing)
        guard first else { return }
        let thread = Thread { [self] in loop() }
        thread.name = "swift-ble simulation"
        thread.start()
    }

    /// Runs jobs and submitted actions; when none is left, advances virtual time to the next
    /// event (at once, or when the wall clock reaches it in paced mode); when nothing is
    /// scheduled either, sleeps until new work arrives.
    private func loop() {
        simulationThread.store(Self.currentThreadID, ordering: .releasing)
        let wallStart = ContinuousClock.now
        var jobs: [UnownedJob] = []
        var actions: [SubmittedAction] = []
        while true {
            // This round's work: what other threads queued, then what this thread queued, each
            // in order. The buffers are swapped, not copied, so a busy loop allocates nothing.
            swap(&jobs, &localJobs)
            swap(&actions, &localActions)
            // Work from other threads is taken (and a stop seen) once `signal` flagged it: work
            // queued just after the flag was cleared sets it again, and is taken next round.
            if stateChanged.exchange(false, ordering: .acquiring) {
                let stopped = state.withLock { state in
                    if !state.jobs.isEmpty {
                        jobs.insert(contentsOf: state.jobs, at: 0)
                        state.jobs.removeAll(keepingCapacity: true)
                    }
                    if !state.actions.isEmpty {
                        actions.insert(contentsOf: state.actions, at: 0)
                        state.actions.removeAll(keepingCapacity: true)
                    }
                    return state.stopped
                }
                if stopped { return }
            }
            if !jobs.isEmpty || !actions.isEmpty {
                // One relaxed add per batch: the counters cost nothing per job.
                jobsRun.wrappingAdd(jobs.count, ordering: .relaxed)
                actionsRun.wrappingAdd(actions.count, ordering: .relaxed)
                for action in actions { action.run(queue) }
                for job in jobs {
                    job.runSynchronously(
                        isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
                }
                jobs.removeAll(keepingCapacity: true)
                actions.removeAll(keepingCapacity: true)
                continue
            }
            // Paced time follows the wall clock whether or not a run is under way; virtual time
            // jumps only inside a run.
            let running = isPaced || activeRuns.load(ordering: .relaxed) > 0
            guard running, let next = queue.nextTime else {
                waitForWork(until: nil)
                continue
            }
            if case .paced(let rate) = pacing, rate > 0 {
                let due = wallStart + .nanoseconds(Int64(Double(next.nanoseconds) / rate))
                if ContinuousClock.now < due {
                    waitForWork(until: due)
                    continue
                }
            }
            // Published before the event's action runs: code the action calls in place (a
            // notification handed on to the phone and its app) reads the event's own time.
            publishedNow.store(next.nanoseconds, ordering: .releasing)
            queue.runNext()
            eventsRun.wrappingAdd(1, ordering: .relaxed)
        }
    }

    private func waitForWork(until deadline: ContinuousClock.Instant?) {
        wakeUp.lock()
        defer { wakeUp.unlock() }
        let hasWork = state.withLock {
            !$0.jobs.isEmpty || !$0.actions.isEmpty || $0.stopped
                || (activeRuns.load(ordering: .relaxed) > 0 && deadline == nil && queue.nextTime != nil)
        }
        guard !hasWork else { return }
        if let deadline {
            let remaining = ContinuousClock.now.duration(to: deadline)
            let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
            _ = wakeUp.wait(until: Date(timeIntervalSinceNow: max(0, seconds)))
        } else {
            wakeUp.wait()
        }
    }
}

/// An action submitted to the simulation thread: a closure, or a job another executor forwards
/// to run in its own isolation (an app's gate), which needs no closure of its own. Not bare
/// closures, because an array of them stores each in the most general form, which costs a
/// thunk — an allocation — for every one appended.
private enum SubmittedAction {
    case closure(@Sendable (EventQueue) -> Void)
    case forwarded(UnownedJob, any ForwardedJobRunner)

    func run(_ queue: EventQueue) {
        switch self {
        case .closure(let action): action(queue)
        case .forwarded(let job, let runner): runner.runForwarded(job)
        }
    }
}

/// An executor in front of the simulation thread (an app's gate) that hands its jobs over to run
/// there, in order with the submitted actions, and runs each itself when its turn comes.
package protocol ForwardedJobRunner: AnyObject, Sendable {
    /// Runs `job` on the simulation thread (or holds or drops it, as the runner decides).
    func runForwarded(_ job: UnownedJob)
}

/// A `Clock` on a simulation's virtual time (Core timers — ATT 30 s, supervision, backoff — read
/// whatever clock they are given; on the virtual radio it is this one).
public struct VirtualClock: Clock, Sendable {
    public typealias Instant = VirtualInstant
    public typealias Duration = Swift.Duration

    let executor: SimulationExecutor

    public var now: VirtualInstant { executor.now }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Suspends until virtual time reaches `deadline`. Cancellation resumes at once with
    /// `CancellationError`.
    ///
    /// It waits in the caller's isolation (`nonisolated(nonsending)`): a sleeper on an actor of
    /// the simulation costs one resumption of its task, not a switch to the generic executor
    /// and back on each side of the wait.
    public nonisolated(nonsending) func sleep(until deadline: VirtualInstant, tolerance: Duration? = nil) async throws {
        try await sleep(until: deadline, isolation: #isolation)
    }

    /// The wait itself. The continuation names the isolation, which makes the cancellation
    /// handler's operation closure isolated too; without it the closure would run on the
    /// generic executor (a switch there and back).
    private func sleep(until deadline: VirtualInstant, isolation: isolated (any Actor)?) async throws {
        let sleeper = Sleeper(State(deadline: deadline))
        let executor = self.executor
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation(isolation: isolation) { (continuation: UnsafeContinuation<Void, Error>) in
                guard sleeper.arm(continuation) else { return }
                executor.start()
                // The closure's one capture is the sleeper: no context of its own to allocate.
                executor.submit { queue in sleeper.schedule(on: queue) }
            }
        } onCancel: {
            // Cancelling touches the queue, so it goes back through the simulation thread.
            if let token = sleeper.fire(.failure(CancellationError())) {
                executor.submit { $0.cancel(token) }
            }
        }
    }
}

/// One pending sleep (`VirtualClock.sleep`), resumed exactly once: by its event or by
/// cancellation. The lock is the sleeper, so a sleep allocates it and nothing else of its own
/// (the closures that reach it capture it alone).
private typealias Sleeper = Locked<VirtualClock.State>

extension VirtualClock {
    fileprivate struct State {
        let deadline: VirtualInstant
        var continuation: UnsafeContinuation<Void, Error>?
        var token: EventQueue.Token?
        var result: Result<Void, Error>?

        init(deadline: VirtualInstant) { self.deadline = deadline }
    }
}

extension Locked where Value == VirtualClock.State {
    /// Stores the continuation; false (and resumed already) when cancelled before it came.
    fileprivate func arm(_ continuation: UnsafeContinuation<Void, Error>) -> Bool {
        let early = withLock { state -> Result<Void, Error>? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        guard let early else { return true }
        continuation.resume(with: early)
        return false
    }

    /// Puts the wake-up on the queue, unless the sleep was cancelled meanwhile.
    fileprivate func schedule(on queue: EventQueue) {
        let deadline = withLock { $0.result == nil ? $0.deadline : nil }
        guard let deadline else { return }
        let token = queue.schedule(at: deadline) { [self] in _ = fire(.success(())) }
        // Cancelled between the two locks: the event goes at once (it must not hold time up).
        let cancelled = withLock { state -> Bool in
            guard state.result == nil else { return true }
            state.token = token
            return false
        }
        if cancelled { queue.cancel(token) }
    }

    /// Ends the sleep with `result` the first time; returns the queue event to cancel, if any.
    fileprivate func fire(_ result: Result<Void, Error>) -> EventQueue.Token? {
        let (continuation, token) = withLock { state -> (UnsafeContinuation<Void, Error>?, EventQueue.Token?) in
            guard state.result == nil else { return (nil, nil) }
            state.result = result
            defer {
                state.continuation = nil
                state.token = nil
            }
            return (state.continuation, state.token)
        }
        continuation?.resume(with: result)
        return token
    }
}

extension VirtualClock {
    /// `Clock.sleep(for:)` in the caller's isolation (the standard library's runs on the generic
    /// executor, two extra switches per sleep).
    public nonisolated(nonsending) func sleep(for duration: Duration, tolerance: Duration? = nil) async throws {
        try await sleep(until: now.advanced(by: duration), tolerance: tolerance)
    }
}

extension Clock where Duration == Swift.Duration {
    /// Sleeps for `duration` in the caller's isolation when this is the virtual clock; any other
    /// clock sleeps as it does (`sleep(for:)`). For code that holds `any Clock<Duration>` and
    /// sleeps on every period.
    package nonisolated(nonsending) func sleepInCallerIsolation(for duration: Duration) async throws {
        if let virtual = self as? VirtualClock { return try await virtual.sleep(for: duration) }
        try await sleep(for: duration)
    }
}

