import BLE
import BLECompanion
import BLELocking
import BLESimulation

/// Collects a reconnector's events with the virtual time each arrived.
final class ReconnectLog: Sendable {
    private final class Entries: Sendable {
        let list = Locked<[(time: VirtualInstant, event: ReconnectEvent)]>([])
    }

    private let store = Entries()
    private let collector: Task<Void, Never>

    init(_ reconnector: Reconnector, simulation: Simulation) {
        let store = self.store
        collector = Task(executorPreference: simulation.executor) {
            for await event in reconnector.events {
                let now = simulation.now
                store.list.withLock { $0.append((now, event)) }
            }
        }
    }

    var all: [(time: VirtualInstant, event: ReconnectEvent)] { store.list.withLock { $0 } }

    /// Waits (in virtual time, checking every 50 ms) until an event matches, at most `limit`.
    @discardableResult
    func wait(
        for limit: Duration = .seconds(120), clock: VirtualClock,
        until predicate: @Sendable (ReconnectEvent) -> Bool
    ) async throws -> (time: VirtualInstant, event: ReconnectEvent) {
        let deadline = clock.now.advanced(by: limit)
        while clock.now < deadline {
            if let found = store.list.withLock({ $0.first { predicate($0.event) } }) { return found }
            try await clock.sleep(for: .milliseconds(50))
        }
        throw TestFailure("no such event within \(limit); saw \(all.map(\.event))")
    }

    func stop() { collector.cancel() }
}

extension ReconnectEvent {
    var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }

    var attempting: Int? {
        if case .attempting(let n) = self { return n }
        return nil
    }

    var waiting: (attempt: Int, delay: Duration)? {
        if case .waiting(let attempt, let delay) = self { return (attempt, delay) }
        return nil
    }

    var failedAttempt: Int? {
        if case .attemptFailed(let n, _) = self { return n }
        return nil
    }
}
