import Synchronization
import Testing

@testable import BLESimulation

/// An actor isolated to the simulation thread, as hosts will be.
actor SimulatedParticipant {
    let simulation: Simulation
    var log: [String] = []

    init(simulation: Simulation) { self.simulation = simulation }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        simulation.executor.asUnownedSerialExecutor()
    }

    func note(_ entry: String) { log.append("\(entry)@\(simulation.now.nanoseconds / 1_000_000)ms") }
}

@Suite("Virtual clock and simulation executor")
struct VirtualClockTests {
    @Test("An hour of sleeping passes in virtual time: the clock jumps when nothing is runnable")
    func hourJumps() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let end = try await simulation.run {
            try await clock.sleep(for: .seconds(3600))
            return clock.now
        }
        #expect(end == VirtualInstant.zero.advanced(by: .seconds(3600)))
    }

    @Test("Sleepers wake in deadline order, each at its own virtual time")
    func sleepersInOrder() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let participant = SimulatedParticipant(simulation: simulation)
        let log = try await simulation.run {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (name, ms) in [("c", 30), ("a", 10), ("b", 20)] {
                    group.addTask(executorPreference: simulation.executor) {
                        try await clock.sleep(for: .milliseconds(ms))
                        await participant.note(name)
                    }
                }
                try await group.waitForAll()
            }
            return await participant.log
        }
        #expect(log == ["a@10ms", "b@20ms", "c@30ms"])
    }

    @Test("Events on the air and sleeping tasks share one timeline")
    func eventsAndTasks() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let participant = SimulatedParticipant(simulation: simulation)
        simulation.perform { queue in
            queue.schedule(at: VirtualInstant.zero.advanced(by: .milliseconds(15))) {
                Task(executorPreference: simulation.executor) { await participant.note("event") }
            }
        }
        let log = try await simulation.run {
            try await clock.sleep(for: .milliseconds(10))
            await participant.note("task")
            try await clock.sleep(for: .milliseconds(10))
            await participant.note("task")
            return await participant.log
        }
        #expect(log == ["task@10ms", "event@15ms", "task@20ms"])
    }

    @Test("Cancelling a sleeping task wakes it at once with CancellationError")
    func cancellation() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let result = try await simulation.run {
            let sleeper = Task(executorPreference: simulation.executor) { () -> String in
                do {
                    try await clock.sleep(for: .seconds(10))
                    return "woke normally"
                } catch is CancellationError {
                    return "cancelled at \(clock.now.nanoseconds / 1_000_000) ms"
                }
            }
            try await clock.sleep(for: .seconds(1))
            sleeper.cancel()
            return try await sleeper.value
        }
        #expect(result == "cancelled at 1000 ms")
    }

    @Test("Paced mode follows the wall clock and still reports virtual time")
    func paced() async throws {
        let simulation = Simulation(pacing: .paced(rate: 1))
        let clock = simulation.clock
        let end = try await simulation.run {
            try await clock.sleep(for: .milliseconds(20))
            return clock.now
        }
        #expect(end == VirtualInstant.zero.advanced(by: .milliseconds(20)))
    }

    @Test("The same scenario gives the same trace twice (determinism)")
    func deterministic() async throws {
        func scenario() async throws -> [String] {
            let simulation = Simulation()
            let clock = simulation.clock
            let participant = SimulatedParticipant(simulation: simulation)
            return try await simulation.run {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<8 {
                        group.addTask(executorPreference: simulation.executor) {
                            for step in 0..<5 {
                                try await clock.sleep(for: .milliseconds((index * 7 + step * 3) % 11 + 1))
                                await participant.note("\(index).\(step)")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                return await participant.log
            }
        }
        let first = try await scenario()
        let second = try await scenario()
        #expect(first.count == 40)
        #expect(first == second)
    }

    @Test("Virtual time stands still until a run starts: events scheduled before it wait at time zero")
    func timeWaitsForRun() async throws {
        let simulation = Simulation()
        let participant = SimulatedParticipant(simulation: simulation)
        simulation.perform { queue in
            queue.schedule(at: VirtualInstant.zero.advanced(by: .seconds(5))) {
                Task(executorPreference: simulation.executor) { await participant.note("event") }
            }
        }
        // However long the test thread takes to get here, the clock has not moved.
        for _ in 0..<1000 { await Task.yield() }
        #expect(simulation.now == .zero)
        let log = try await simulation.run {
            try await simulation.clock.sleep(for: .seconds(1))
            await participant.note("task")
            try await simulation.clock.sleep(for: .seconds(5))
            return await participant.log
        }
        #expect(log == ["task@1000ms", "event@5000ms"])
    }
}
