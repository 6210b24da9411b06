import BLECompanion
import BLESimulation
import Testing

/// The value-type bookkeeping an app actor keeps in its own state (the phone's headset app does).
@Suite("Device-driven scheduling as a value: the jobs due on each tick")
struct DeviceTickScheduleTests {
    typealias Schedule = DeviceTickSchedule<VirtualInstant, String>

    static func at(_ seconds: Int64) -> VirtualInstant { VirtualInstant(nanoseconds: seconds * 1_000_000_000) }

    @Test("Every 2 ticks and at least every 3 s, in registration order, with lateness; a cancelled job never runs")
    func dueJobs() {
        var schedule = Schedule()
        schedule.schedule(.everyTicks(2), now: Self.at(0), "pairs")
        let slow = schedule.schedule(.atLeastEvery(.seconds(3)), now: Self.at(0), "slow")
        let due = (1...4).map { second in schedule.tick(at: Self.at(Int64(second) * 2)).map(\.job) }
        // Ticks at 2, 4, 6, 8 s: "pairs" on ticks 2 and 4; "slow" first due at 3 s (runs at 4 s, 1 s
        // late), then due at 7 s (runs at 8 s).
        #expect(due == [[], ["pairs", "slow"], [], ["pairs", "slow"]])
        #expect(schedule.runCount(of: slow) == 2)
        #expect(schedule.tickCount == 4)
        schedule.cancel(slow)
        #expect(schedule.runCount(of: slow) == nil)
        let later = (5...8).flatMap { second in schedule.tick(at: Self.at(Int64(second) * 2)).map(\.job) }
        #expect(later == ["pairs", "pairs"])
    }

    @Test("A duration cadence reports how late its tick came (ticks stopped: the device out of range)")
    func lateness() {
        var schedule = Schedule()
        schedule.schedule(.atLeastEvery(.seconds(5)), now: Self.at(0), "job")
        #expect(schedule.tick(at: Self.at(1)).isEmpty)
        let run = schedule.tick(at: Self.at(12))
        #expect(run.map(\.lateness) == [.seconds(7)])
        #expect(run.map(\.previousRuns) == [0])
        #expect(run.map(\.tick) == [2])
    }
}
