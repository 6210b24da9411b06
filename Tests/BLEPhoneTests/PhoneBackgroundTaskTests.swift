import BLEController
import BLESimulation
import Testing

@testable import BLEPhone

/// UIApplication `beginBackgroundTask(withName:expirationHandler:)` on each profile's budget
/// (phone-rules.md: 600 / 180 / 30 s and the ~5 s expiration lead are observed values).
@Suite("Phone: background tasks")
struct PhoneBackgroundTaskTests {
    @Test(
        "A task not ended: expiration handler at budget − 5 s, kill 0x2182bad2 at the budget",
        arguments: [(PhoneProfile.ios6, 600), (.ios12, 180), (.ios17, 30), (.ios26, 30)])
    func overrun(profile: PhoneProfile, budget: Int) async throws {
        let radio = VirtualRadio()
        let (log, trace) = try await radio.simulation.run {
            let world = await PhoneWorld.make(profile, radio: radio)
            let app = await world.install("com.example.upload", behaviour: AppBehaviour(taskInBackground: true))
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.home()
            try await world.at(Double(10 + budget + 100))
            #expect(await world.phone.terminationReasons(of: app) == [.backgroundTaskOverrun])
            return (world.log.all, await world.trace(of: app))
        }
        #expect(log.contains("expirationHandler@\(10 + budget - 5)"))
        #expect(trace.contains("task 1 expiring@\(10 + budget - 5)"))
        #expect(trace.contains("killed background task overrun (0x2182bad2)@\(10 + budget)"))
        #expect(!trace.contains { $0.hasPrefix("suspended") })
        #expect(TerminationReason.backgroundTaskOverrun.code == 0x2182_bad2)
    }

    @Test(
        "A Bluetooth wake starts a fresh budget: a task begun in the wake and never ended is killed at wake + budget, past the window"
    )
    func taskInWake() async throws {
        let radio = VirtualRadio()
        let trace = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install(
                "com.example.central", modes: [.bluetoothCentral], behaviour: AppBehaviour(taskPerEvent: true))
            await world.phone.open(app)
            await world.phone.home()
            try await world.at(100)
            await world.phone.offer(world.delivery("n1", for: app), to: app)
            try await world.at(200)
            return await world.trace(of: app)
        }
        #expect(trace.contains("woken@100"))
        #expect(trace.contains("task 1 began@100"))
        // Held past the 10 s window by the task, then its end: expiration at 125, kill at 130.
        #expect(!trace.contains("suspended@110"))
        #expect(trace.contains("task 1 expiring@125"))
        #expect(trace.contains("killed background task overrun (0x2182bad2)@130"))
    }

    @Test("A task ended by its expiration handler: no kill, suspended suspensionDelay after the end")
    func endedInTime() async throws {
        let radio = VirtualRadio()
        let trace = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install(
                "com.example.upload", behaviour: AppBehaviour(taskInBackground: true, endOnExpiration: true))
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.home()
            try await world.at(100)
            #expect(await world.phone.terminationReasons(of: app) == [])
            return await world.trace(of: app)
        }
        #expect(trace.contains("task 1 ended@35"))
        #expect(trace.contains("suspended@36"))
    }

    @Test(
        "Several tasks share one budget; backgroundTimeRemaining is unlimited in front; the foreground resets the budget; no time left → .invalid"
    )
    func sharedBudget() async throws {
        let radio = VirtualRadio()
        try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install("com.example.app")
            await world.phone.open(app)
            try await world.at(1)
            let context = try #require(await world.phone.instance(of: app)).context
            #expect(await context.backgroundTimeRemaining == .unlimited)
            let first = await context.beginBackgroundTask(withName: "one")
            #expect(first != .invalid)
            await world.phone.home()
            try await world.at(11)
            let second = await context.beginBackgroundTask(withName: "two")
            #expect(second != .invalid)
            #expect(await context.backgroundTimeRemaining == .limited(.seconds(20)))
            await context.endBackgroundTask(first)
            try await world.at(26)
            // Past budget − lead: nothing more is granted.
            #expect(await context.beginBackgroundTask(withName: "three") == .invalid)
            await context.endBackgroundTask(second)
            try await world.at(26.5)
            #expect(await world.phone.state(of: app) == .background)
            // Back in front: unlimited again, and a new budget at the next background entry.
            await world.phone.open(app)
            try await world.at(28)
            #expect(await context.backgroundTimeRemaining == .unlimited)
            let fourth = await context.beginBackgroundTask(withName: "four")
            await world.phone.home()
            try await world.at(50)
            #expect(await world.phone.state(of: app) == .background)
            await context.endBackgroundTask(fourth)
            try await world.at(60)
            #expect(await world.phone.state(of: app) == .suspended)
            #expect(await world.phone.terminationReasons(of: app) == [])
        }
    }
}
