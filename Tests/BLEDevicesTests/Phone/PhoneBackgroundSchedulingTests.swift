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
        "10 virtual minutes of a backgrounded bluetooth-central app and a headset beating once a second: every heartbeat handled, at most 1.5 task jobs each (18 before the hot paths waited in their caller's isolation, 2.1 before the system service took notifications in place)"
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
        // One job must run per heartbeat: the headset's task, when its sleep ends. The
        // phone's system service takes the notification in place, and the app's job goes
        // through its gate, which the simulation counts as an action.
        #expect(jobsPerHeartbeat <= 1.5, "\(result.scheduling.jobs) jobs for \(result.heartbeatsSent) heartbeats")
    }
}
