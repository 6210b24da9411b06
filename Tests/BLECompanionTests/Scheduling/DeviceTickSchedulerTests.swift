import BLE
import BLECompanion
import BLELocking
import BLESimulation
import Testing

@Suite("Device-driven scheduling: periodic work rides on the device's heartbeat ticks")
struct DeviceTickSchedulerTests {
    /// Ticks at these virtual times (seconds from the start), then the stream ends.
    static func ticks(at seconds: [Int], simulation: Simulation) -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        Task(executorPreference: simulation.executor) {
            let start = simulation.now
            for (index, second) in seconds.enumerated() {
                try? await simulation.clock.sleep(until: start.advanced(by: .seconds(second)))
                continuation.yield(index)
            }
            continuation.finish()
        }
        return stream
    }

    /// What ran: (job, tick, second, lateness).
    final class Runs: Sendable {
        let list = Locked<[(String, UInt64, Int64, Duration)]>([])

        func record(_ job: String, _ run: DeviceTickScheduler<VirtualClock>.Run) {
            list.withLock { $0.append((job, run.tick, run.time.nanoseconds / 1_000_000_000, run.lateness)) }
        }

        func of(_ job: String) -> [(tick: UInt64, second: Int64, lateness: Duration)] {
            list.withLock { $0.filter { $0.0 == job }.map { ($0.1, $0.2, $0.3) } }
        }
    }

    @Test("Scheduling: a job every 3 ticks runs on ticks 3, 6, 9 whatever the time between them")
    func everyNTicks() async throws {
        let simulation = Simulation()
        let runs = Runs()
        try await simulation.run {
            let scheduler = DeviceTickScheduler(clock: simulation.clock)
            await scheduler.schedule(.everyTicks(3)) { runs.record("three", $0) }
            try await scheduler.run(Self.ticks(at: [1, 2, 3, 4, 5, 20, 21, 22, 23, 24], simulation: simulation))
            #expect(await scheduler.tickCount == 10)
        }
        #expect(runs.of("three").map(\.tick) == [3, 6, 9])
        #expect(runs.of("three").map(\.second) == [3, 20, 23])
    }

    @Test("Scheduling: 'at least every 2.5 s' runs on the first tick at or after it is due, and reports lateness")
    func atLeastEvery() async throws {
        let simulation = Simulation()
        let runs = Runs()
        try await simulation.run {
            let scheduler = DeviceTickScheduler(clock: simulation.clock)
            await scheduler.schedule(.atLeastEvery(.milliseconds(2500))) { runs.record("sync", $0) }
            // One tick a second, then the device is silent from 6 s to 15 s.
            try await scheduler.run(Self.ticks(at: [1, 2, 3, 4, 5, 6, 15, 16, 17, 18], simulation: simulation))
        }
        let sync = runs.of("sync")
        // Due 2.5 → tick at 3; due 5.5 → 6; due 8.5 → 15 (6.5 s late); due 17.5 → 18.
        #expect(sync.map(\.second) == [3, 6, 15, 18])
        #expect(
            sync.map(\.lateness) == [.milliseconds(500), .milliseconds(500), .milliseconds(6500), .milliseconds(500)])
    }

    @Test("Scheduling: jobs run in registration order on a tick; a cancelled job runs no more")
    func orderAndCancel() async throws {
        let simulation = Simulation()
        let runs = Runs()
        try await simulation.run {
            let scheduler = DeviceTickScheduler(clock: simulation.clock)
            await scheduler.schedule(.everyTicks(1)) { runs.record("a", $0) }
            let b = await scheduler.schedule(.everyTicks(2)) { runs.record("b", $0) }
            let (ticks, continuation) = AsyncStream.makeStream(of: Int.self)
            let runner = Task(executorPreference: simulation.executor) { try await scheduler.run(ticks) }
            for index in 0..<4 {
                try await simulation.clock.sleep(for: .seconds(1))
                continuation.yield(index)
            }
            try await simulation.clock.sleep(for: .milliseconds(1))
            #expect(await scheduler.runCount(of: b) == 2)
            await scheduler.cancel(b)
            #expect(await scheduler.runCount(of: b) == nil)
            for index in 4..<8 {
                try await simulation.clock.sleep(for: .seconds(1))
                continuation.yield(index)
            }
            continuation.finish()
            try await runner.value
        }
        #expect(runs.of("a").map(\.tick) == Array(1...8))
        #expect(runs.of("b").map(\.tick) == [2, 4])
        let order = runs.list.withLock { $0.filter { $0.1 == 2 }.map(\.0) }
        #expect(order == ["a", "b"])
    }
}
