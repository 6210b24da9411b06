import BLEController
import BLESimulation
import Testing

@testable import BLEPhone

/// Background URLSession on a phone, on virtual time (URLSessionConfiguration
/// "background(withIdentifier:)", "handleEventsForBackgroundURLSession"; phone-rules.md
/// "Keep-alive": relaunch on finish, 0x2182bad3 if the completion is not called).
@Suite("Keep-alive: background URLSession")
struct URLSessionKeepAliveTests {
    /// Opens the app (which makes session "sync"), starts a download of `bytes` at 5 s, sends it
    /// home at 10 s; then `then` runs; the trace and the log come back.
    static func run(
        _ profile: PhoneProfile = .ios17, bytes: Int,
        behaviour: KeepAliveBehaviour = KeepAliveBehaviour(session: "sync"),
        until end: Double, then: @escaping @Sendable (PhoneWorld, AppIdentifier) async throws -> Void = { _, _ in }
    ) async throws -> (trace: [String], log: [String]) {
        let radio = VirtualRadio()
        return try await radio.simulation.run {
            let world = await PhoneWorld.make(profile, radio: radio)
            let app = await world.installKeepAlive("com.example.sync", modes: [], behaviour: behaviour)
            await world.phone.open(app)
            try await world.at(5)
            _ = try await world.keepAliveApp(app)?.download(bytes)
            try await world.at(10)
            await world.phone.home()
            try await then(world, app)
            try await world.at(end)
            return (await world.keepAliveTrace(of: app), world.log.all)
        }
    }

    @Test(
        "A transfer finishing while the app is suspended wakes it: handleEvents, completions, finishedEvents, completion → suspended"
    )
    func wakeSuspended() async throws {
        // 500 MB on Wi-Fi (5 MB/s): 100 s, from 5 s → 105 s.
        let (trace, log) = try await Self.run(bytes: 500_000_000, until: 200)
        #expect(trace.contains("suspended@11"))
        #expect(trace.contains("transferCompleted 1@105"))
        #expect(trace.contains("woken url_session@105"))
        #expect(log.contains("handleEvents sync@105"))
        #expect(log.contains("completed 1@105"))
        #expect(log.contains("finishedEvents@105"))
        #expect(trace.contains("sessionEventsHandled true@105"))
        #expect(trace.contains("suspended@106"))
        #expect(!trace.contains { $0.hasPrefix("killed") })
    }

    @Test(
        "The completion handler not called: killed url_session_completion_overrun (0x2182bad3) exactly at the 30 s allowance"
    )
    func overrun() async throws {
        var behaviour = KeepAliveBehaviour(session: "sync")
        behaviour.completeURLSession = false
        let (trace, _) = try await Self.run(bytes: 500_000_000, behaviour: behaviour, until: 300)
        #expect(trace.contains("woken url_session@105"))
        #expect(trace.contains("sessionEventsHandled false@135"))
        #expect(trace.contains("killed url_session_completion_overrun@135"))
        #expect(!trace.contains { $0.hasPrefix("killed") && !$0.hasSuffix("@135") })
        #expect(TerminationReason.urlSessionCompletionOverrun.code == 0x2182_bad3)
    }

    @Test(
        "Transfers continue after a memory kill; the finish relaunches the app in the background (LaunchReason.urlSession)"
    )
    func relaunch() async throws {
        let (trace, log) = try await Self.run(bytes: 500_000_000, until: 300) { world, app in
            try await world.at(20)
            await world.phone.memoryPressure(app)
        }
        #expect(trace.contains("killed memory_pressure@20"))
        #expect(trace.contains("launched url_session@105"))
        #expect(log.contains("handleEvents sync@105"))
        #expect(log.contains("completed 1@105"))
        #expect(trace.contains("sessionEventsHandled true@105"))
        #expect(trace.contains("suspended@106"))
    }

    @Test("A force-quit cancels the session's transfers: no relaunch; the relaunched-by-user app gets the cancellation")
    func forceQuitCancels() async throws {
        let (trace, log) = try await Self.run(bytes: 500_000_000, until: 300) { world, app in
            try await world.at(20)
            await world.phone.forceQuit(app)
            try await world.at(200)
            await world.phone.open(app)
        }
        #expect(trace.contains("transferCompleted 1 cancelled@20"))
        #expect(!trace.contains { $0.hasPrefix("launched url_session") })
        #expect(log.contains("completed 1 cancelled: the user force-quit the app@200"))
    }

    @Test(
        "No network: the transfer waits; Wi-Fi back at 50 s resumes it; the rate follows the network (cellular 1 MB/s)")
    func networkChanges() async throws {
        let (trace, _) = try await Self.run(bytes: 100_000_000, until: 300) { world, _ in
            try await world.at(12)
            // 7 s × 5 MB/s = 35 MB moved; 65 MB left.
            await world.phone.updateConditions { $0.network = .none }
            try await world.at(50)
            // Cellular: 65 s more → 115 s.
            await world.phone.updateConditions { $0.network = .cellular }
        }
        #expect(trace.contains("transferWaiting@12"))
        #expect(trace.contains("transferCompleted 1@115"))
        #expect(trace.contains("woken url_session@115"))
    }
}
