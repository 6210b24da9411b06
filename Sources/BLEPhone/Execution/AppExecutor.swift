import BLELocking
import BLESimulation
import Logging

/// The executor of one app instance: a gate in front of the simulation's thread.
///
/// While the app runs, each job goes to the simulation thread and runs there isolated to this
/// executor. While it is suspended, jobs are held in order — timers that fire, answers that
/// arrive, events delivered: the app sees them when it runs again, as an iOS app does when it
/// resumes. When the app is killed, held jobs and every later one are discarded without running:
/// the instance's memory is gone (iOS gives a suspended app no chance to run before a purge).
///
/// Everything the app does is therefore visible to the simulation: while the gate is closed,
/// nothing of the app is runnable and virtual time moves on.
public final class AppExecutor: SerialExecutor, TaskExecutor, ForwardedJobRunner, @unchecked Sendable {
    // @unchecked Sendable: the mutable state is inside `state`'s lock.
    package enum Gate: Sendable, Equatable {
        case open
        case held
        case discarded
    }

    private struct State {
        var gate: Gate = .held
        var held: [UnownedJob] = []
        var discarded = 0
    }

    private let simulation: Simulation
    private let state = Locked(State())

    /// A closed gate: nothing runs until the phone opens it.
    package init(simulation: Simulation) {
        self.simulation = simulation
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let forward = state.withLock { state -> Bool in
            switch state.gate {
            case .open: return true
            case .held:
                state.held.append(unowned)
                return false
            case .discarded:
                state.discarded += 1
                return false
            }
        }
        if forward { simulation.executor.forward(unowned, to: self) }
    }

    package func runForwarded(_ job: UnownedJob) { run(job) }

    /// Runs `job` unless the gate closed since it was forwarded (then it is held or dropped).
    private func run(_ job: UnownedJob) {
        let runNow = state.withLock { state -> Bool in
            switch state.gate {
            case .open: return true
            case .held:
                state.held.append(job)
                return false
            case .discarded:
                state.discarded += 1
                return false
            }
        }
        guard runNow else { return }
        job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
    }

    /// Lets the app run: held jobs first, in the order they came (submitted under the lock, so
    /// no job forwarded after the gate opened can overtake them).
    package func open() {
        state.withLock { state in
            guard state.gate == .held else { return }
            state.gate = .open
            let released = state.held
            state.held.removeAll()
            guard !released.isEmpty else { return }
            simulation.perform { [self] _ in
                for job in released { run(job) }
            }
        }
    }

    /// Suspends the app: from now on jobs wait.
    package func hold() {
        state.withLock { state in
            if state.gate == .open { state.gate = .held }
        }
    }

    /// Kills the instance: what is held and what comes later never runs. Returns how many jobs
    /// were dropped so far (for the trace and the log).
    @discardableResult
    package func discard() -> Int {
        state.withLock { state in
            state.gate = .discarded
            state.discarded += state.held.count
            state.held.removeAll()
            return state.discarded
        }
    }

    package var gate: Gate { state.withLock { $0.gate } }

    /// Jobs waiting behind the closed gate.
    package var heldJobs: Int { state.withLock { $0.held.count } }

    public func checkIsolated() {
        simulation.executor.checkIsolated()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
