import BLEDevices
import BLEPhone
import Testing

/// What a heartbeat costs the simulation thread, counted rather than timed: the count of task
/// jobs is the same on every run and every machine, and it is what the day-long benchmark
/// (issue 15's "must reach") spends most on besides the work itself. Each switch to the generic
/// executor and back is a job; a loop or sleeper that waits outside its caller's isolation
/// shows up here at once.
@Suite("Phone benchmark scheduling cost")
struct PhoneBackgroundSchedulingTests {
    @Test(
        "10 virtual minutes of a backgrounded bluetooth-central app and a headset beating once a second: every heartbeat handled, at most 3 task jobs each (18 before the hot paths waited in their caller's isolation)"
    )
    func jobsPerHeartbeat() async throws {
        var parameters = PhoneBackgroundBenchmark.Parameters()
        parameters.duration = .seconds(600)
        let result = try await PhoneBackgroundBenchmark.run(parameters)
        #expect(result.heartbeatsSent == 600)
        #expect(result.counts.heartbeats == 600)
        #expect(result.phone.eventsDropped == 0)
        #expect(result.phone.kills == 0)
        // The wake window (10 s) is longer than the heartbeat period: the app stays awake.
        #expect(result.phone.wakes == 0)
        let jobsPerHeartbeat = Double(result.scheduling.jobs) / Double(result.heartbeatsSent)
        #expect(jobsPerHeartbeat <= 3, "\(result.scheduling.jobs) jobs for \(result.heartbeatsSent) heartbeats")
    }
}
