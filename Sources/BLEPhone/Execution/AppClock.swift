import BLELocking
import BLESimulation

/// A point on an app instance's own clock: the time it has spent running since its launch.
public struct AppInstant: Hashable, Comparable, Sendable, InstantProtocol, CustomStringConvertible {
    public typealias Duration = Swift.Duration
    /// Nanoseconds of running time since the launch.
    public let nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static func < (lhs: AppInstant, rhs: AppInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    public func advanced(by duration: Duration) -> AppInstant {
        AppInstant(nanoseconds: nanoseconds &+ duration.nanosecondsClamped)
    }
    public func duration(to other: AppInstant) -> Duration { .nanoseconds(other.nanoseconds &- nanoseconds) }
    public var description: String { "app t=\(Double(nanoseconds) / 1_000_000) ms" }
}

/// The clock of one app instance (`AppContext.clock`): it runs only while the app runs.
///
/// "Suspended means no app code runs": while the phone holds the app, its clock stands, so an
/// app timer on this clock does not fire during a suspension and fires once the app has run
/// for the timer's whole duration. At a kill the instance's sleepers end with
/// `CancellationError` (their tasks are discarded with the executor anyway).
public struct AppClock: Clock, Sendable {
    public typealias Instant = AppInstant
    public typealias Duration = Swift.Duration

    let core: AppClockCore

    public var now: AppInstant { core.now }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Waits in the caller's isolation (an app's timers run on its executor).
    public nonisolated(nonsending) func sleep(until deadline: AppInstant, tolerance: Duration? = nil) async throws {
        try await core.sleep(until: deadline)
    }

    /// `Clock.sleep(for:)` in the caller's isolation.
    public nonisolated(nonsending) func sleep(for duration: Duration, tolerance: Duration? = nil) async throws {
        try await core.sleep(until: now.advanced(by: duration))
    }
}

/// The state behind an `AppClock`: running time so far, and the sleepers, each with an event on
/// the virtual clock while the app runs (cancelled at a hold, scheduled again at the resume).
package final class AppClockCore: Sendable {
    private struct Sleeper {
        var deadline: AppInstant
        var continuation: CheckedContinuation<Void, Error>?
        var token: EventQueue.Token?
        /// Cancelled before its continuation was stored.
        var cancelled = false
    }

    private struct State {
        /// Running time before `runningSince`.
        var accumulated: Int64 = 0
        /// When the app last started running; nil while stopped.
        var runningSince: VirtualInstant?
        var sleepers: [Int: Sleeper] = [:]
        var nextSleeper = 0
        var ended = false
    }

    private let simulation: Simulation
    private let state = Locked(State())

    package init(simulation: Simulation) {
        self.simulation = simulation
    }

    package var clock: AppClock { AppClock(core: self) }

    var now: AppInstant {
        let virtualNow = simulation.now
        return state.withLock { Self.appNow($0, at: virtualNow) }
    }

    private static func appNow(_ state: State, at virtualNow: VirtualInstant) -> AppInstant {
        let running = state.runningSince.map { virtualNow.nanoseconds - $0.nanoseconds } ?? 0
        return AppInstant(nanoseconds: state.accumulated + running)
    }

    nonisolated(nonsending) func sleep(until deadline: AppInstant) async throws {
        try await sleep(until: deadline, isolation: #isolation)
    }

    /// The wait, in `isolation` (named by the continuation, so that the cancellation handler's
    /// operation runs there too rather than on the generic executor).
    private func sleep(until deadline: AppInstant, isolation: isolated (any Actor)?) async throws {
        let id = state.withLock { state -> Int in
            defer { state.nextSleeper += 1 }
            state.sleepers[state.nextSleeper] = Sleeper(deadline: deadline)
            return state.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation(isolation: isolation) {
                (continuation: CheckedContinuation<Void, Error>) in
                let early = state.withLock { state -> Result<Void, Error>? in
                    if state.ended { return .failure(CancellationError()) }
                    guard var sleeper = state.sleepers[id] else { return .failure(CancellationError()) }
                    if sleeper.cancelled {
                        state.sleepers[id] = nil
                        return .failure(CancellationError())
                    }
                    sleeper.continuation = continuation
                    state.sleepers[id] = sleeper
                    return nil
                }
                if let early {
                    continuation.resume(with: early)
                    return
                }
                simulation.perform { [self] queue in arm([id], queue) }
            }
        } onCancel: {
            finish(id, with: .failure(CancellationError()))
        }
    }

    /// Puts the sleepers' events on the virtual clock, if the app runs (ascending identifiers:
    /// equal deadlines fire in the order the sleeps began).
    private func arm(_ ids: [Int], _ queue: EventQueue) {
        state.withLock { state in
            guard let since = state.runningSince else { return }
            let appNow = state.accumulated + (queue.now.nanoseconds - since.nanoseconds)
            for id in ids {
                guard var sleeper = state.sleepers[id], sleeper.token == nil, sleeper.continuation != nil else {
                    continue
                }
                let remaining = max(0, sleeper.deadline.nanoseconds - appNow)
                sleeper.token = queue.schedule(at: queue.now.advanced(by: .nanoseconds(remaining))) { [self] in
                    finish(id, with: .success(()))
                }
                state.sleepers[id] = sleeper
            }
        }
    }

    private func finish(_ id: Int, with result: Result<Void, Error>) {
        let (continuation, token) = state.withLock { state -> (CheckedContinuation<Void, Error>?, EventQueue.Token?) in
            guard var sleeper = state.sleepers[id] else { return (nil, nil) }
            guard let continuation = sleeper.continuation else {
                sleeper.cancelled = true
                state.sleepers[id] = sleeper
                return (nil, nil)
            }
            state.sleepers[id] = nil
            return (continuation, sleeper.token)
        }
        if case .failure = result, let token { simulation.perform { $0.cancel(token) } }
        continuation?.resume(with: result)
    }

    /// The app runs from now on (launch, resume).
    package func start() {
        simulation.perform { [self] queue in
            let ids = state.withLock { state -> [Int] in
                guard !state.ended, state.runningSince == nil else { return [] }
                state.runningSince = queue.now
                return state.sleepers.keys.sorted()
            }
            arm(ids, queue)
        }
    }

    /// The app is suspended: the clock stands, and its sleepers' events leave the virtual clock.
    package func stop() {
        simulation.perform { [self] queue in
            state.withLock { state in
                guard let since = state.runningSince else { return }
                state.accumulated += queue.now.nanoseconds - since.nanoseconds
                state.runningSince = nil
                for id in state.sleepers.keys {
                    if let token = state.sleepers[id]?.token {
                        queue.cancel(token)
                        state.sleepers[id]?.token = nil
                    }
                }
            }
        }
    }

    /// The instance is gone: its sleepers end (their tasks never run again anyway).
    package func end() {
        simulation.perform { [self] queue in
            let ended = state.withLock { state -> [Sleeper] in
                state.ended = true
                if let since = state.runningSince {
                    state.accumulated += queue.now.nanoseconds - since.nanoseconds
                    state.runningSince = nil
                }
                defer { state.sleepers.removeAll() }
                return Array(state.sleepers.values)
            }
            for sleeper in ended {
                if let token = sleeper.token { queue.cancel(token) }
                sleeper.continuation?.resume(throwing: CancellationError())
            }
        }
    }
}
