import BLEController
import BLESimulation
import Testing

@testable import BLEPhone

/// The default scheduling policy's conditions (WWDC 2020 "Background execution demystified";
/// `DefaultTaskSchedulingPolicy`), each on virtual time.
@Suite("Scheduled tasks: the default policy")
struct ScheduledTaskPolicyTests {
    /// Opens the app, submits `request` at 1 s, goes home at 2 s, then runs `script` and returns
    /// the task trace until `until`.
    static func scenario(
        _ profile: PhoneProfile = .ios17, request: @escaping @Sendable (PhoneWorld) -> any BGTaskRequest,
        until: Double = 3_600, before: @escaping @Sendable (PhoneWorld, AppIdentifier) async -> Void = { _, _ in },
        script: @escaping @Sendable (PhoneWorld, AppIdentifier) async throws -> Void = { _, _ in }
    ) async throws -> [String] {
        let radio = VirtualRadio()
        var profile = profile
        // The phone locks only when a test says so.
        profile.autoLock = nil
        return try await radio.simulation.run { [profile] in
            let world = await PhoneWorld.make(profile, radio: radio)
            await world.phone.updateConditions { $0.batteryLevel = 80 }
            let app = await world.installTaskApp()
            await world.phone.open(app)
            await before(world, app)
            try await world.at(1)
            try await world.scheduler(app)!.submit(request(world))
            try await world.at(2)
            await world.phone.home()
            try await script(world, app)
            try await world.at(until)
            return await world.taskTrace(app)
        }
    }

    @Test(
        "Never before earliestBeginDate: a refresh for 600 s runs at 600 s, not earlier",
        arguments: [PhoneProfile.ios17, .ios26])
    func earliestBeginDate(profile: PhoneProfile) async throws {
        let trace = try await Self.scenario(
            profile, request: { BGAppRefreshTaskRequest(identifier: "refresh", earliestBeginDate: $0.instant(600)) })
        #expect(trace.contains("taskStarted refresh@600"))
        #expect(trace.filter { $0.hasPrefix("taskStarted") }.count == 1)
        #expect(trace.contains("taskCompleted refresh success@600"))
    }

    @Test(
        "A refresh without earliestBeginDate waits while the app is in front and runs when it leaves",
        arguments: [PhoneProfile.ios17, .ios26])
    func notInFront(profile: PhoneProfile) async throws {
        let trace = try await Self.scenario(
            profile, request: { _ in BGAppRefreshTaskRequest(identifier: "refresh") })
        #expect(trace.contains("taskDeferred refresh@1"))
        #expect(trace.contains("taskStarted refresh@2"))
    }

    @Test(
        "Not while the battery is below 20 % unless charging: runs when the cable is plugged in",
        arguments: [PhoneProfile.ios17, .ios26])
    func lowBattery(profile: PhoneProfile) async throws {
        let trace = try await Self.scenario(
            profile,
            request: { _ in BGAppRefreshTaskRequest(identifier: "refresh") },
            before: { world, _ in await world.phone.updateConditions { $0.batteryLevel = 15 } },
            script: { world, _ in
                try await world.at(300)
                await world.phone.updateConditions { $0.charging = true }
            })
        #expect(!trace.contains { $0.hasPrefix("taskStarted") && !$0.hasSuffix("@300") })
        #expect(trace.contains("taskStarted refresh@300"))
    }

    @Test("Not in Low Power Mode: runs when it is turned off", arguments: [PhoneProfile.ios17, .ios26])
    func lowPowerMode(profile: PhoneProfile) async throws {
        let trace = try await Self.scenario(
            profile,
            request: { _ in BGAppRefreshTaskRequest(identifier: "refresh") },
            before: { world, _ in await world.phone.updateConditions { $0.lowPowerMode = true } },
            script: { world, _ in
                try await world.at(400)
                await world.phone.updateConditions { $0.lowPowerMode = false }
            })
        #expect(trace.filter { $0.hasPrefix("taskStarted") } == ["taskStarted refresh@400"])
    }

    @Test("Not with Background App Refresh turned off after the submit", arguments: [PhoneProfile.ios17, .ios26])
    func backgroundAppRefreshOff(profile: PhoneProfile) async throws {
        let trace = try await Self.scenario(
            profile,
            request: { BGAppRefreshTaskRequest(identifier: "refresh", earliestBeginDate: $0.instant(100)) },
            script: { world, _ in await world.phone.updateConditions { $0.backgroundAppRefresh = false } })
        #expect(!trace.contains { $0.hasPrefix("taskStarted") })
    }

    @Test(
        "Processing waits for the lock (idle), then for power when it requires external power",
        arguments: [PhoneProfile.ios17, .ios26])
    func processingNeedsIdleAndPower(profile: PhoneProfile) async throws {
        let trace = try await Self.scenario(
            profile,
            request: { _ in BGProcessingTaskRequest(identifier: "nightly", requiresExternalPower: true) },
            script: { world, _ in
                try await world.at(100)
                await world.phone.updateConditions { $0.charging = true }
                try await world.at(200)
                await world.phone.lock()
            })
        #expect(trace.filter { $0.hasPrefix("taskStarted") } == ["taskStarted nightly@200"])
    }

    @Test("Processing that requires network waits for one", arguments: [PhoneProfile.ios17, .ios26])
    func processingNeedsNetwork(profile: PhoneProfile) async throws {
        let trace = try await Self.scenario(
            profile,
            request: { _ in BGProcessingTaskRequest(identifier: "nightly", requiresNetworkConnectivity: true) },
            before: { world, _ in await world.phone.updateConditions { $0.network = .none } },
            script: { world, _ in
                await world.phone.lock()
                try await world.at(500)
                await world.phone.updateConditions { $0.network = .cellular }
            })
        #expect(trace.filter { $0.hasPrefix("taskStarted") } == ["taskStarted nightly@500"])
    }

    @Test("Not after force-quit until the user opens the app again (refresh)", arguments: [PhoneProfile.ios17, .ios26])
    func forceQuit(profile: PhoneProfile) async throws {
        let trace = try await Self.scenario(
            profile, request: { BGAppRefreshTaskRequest(identifier: "refresh", earliestBeginDate: $0.instant(100)) },
            script: { world, app in
                await world.phone.forceQuit(app)
                try await world.at(1_000)
                await world.phone.open(app)
                try await world.at(1_010)
                await world.phone.home()
            })
        #expect(trace.filter { $0.hasPrefix("taskStarted") } == ["taskStarted refresh@1010"])
    }

    @Test(
        "Processing after force-quit: waits on iOS 17, runs on iOS 26 (Apple DTS, phone-rules.md correction 3), launching the app"
    )
    func forceQuitProcessing() async throws {
        for (profile, runs) in [(PhoneProfile.ios17, false), (.ios26, true)] {
            let trace = try await Self.scenario(
                profile, request: { _ in BGProcessingTaskRequest(identifier: "nightly") },
                script: { world, app in
                    await world.phone.forceQuit(app)
                    try await world.at(100)
                    await world.phone.lock()
                })
            #expect(trace.contains("taskStarted nightly@100") == runs, "\(profile)")
            #expect(trace.contains("launched for nightly@100") == runs, "\(profile)")
        }
    }

    @Test("Rate limit: a refresh resubmitted in its handler runs again 15 min after the first, not sooner")
    func rateLimit() async throws {
        let radio = VirtualRadio()
        let trace = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.installTaskApp()
            await world.phone.open(app)
            try await world.at(1)
            let scheduler = await world.scheduler(app)!
            try await scheduler.submit(BGAppRefreshTaskRequest(identifier: "refresh"))
            await world.phone.home()
            try await world.at(10)
            try await scheduler.submit(BGAppRefreshTaskRequest(identifier: "refresh"))
            try await world.at(3_000)
            return await world.taskTrace(app)
        }
        #expect(trace.filter { $0.hasPrefix("taskStarted") } == ["taskStarted refresh@1", "taskStarted refresh@901"])
    }

    @Test("A plugged-in policy decides instead of the default one")
    func pluggedPolicy() async throws {
        struct Never: BackgroundTaskSchedulingPolicy {
            func decide(_ request: ScheduledTaskRequest, in situation: TaskSchedulingSituation)
                -> TaskSchedulingDecision
            {
                .wait("never")
            }
            func mayContinue(_ request: ScheduledTaskRequest, in situation: TaskSchedulingSituation) -> Bool { true }
            func timeLimit(for kind: BGTaskKind) -> Duration { .seconds(30) }
            var overrunGrace: Duration { .seconds(5) }
            var reevaluationInterval: Duration { .seconds(60) }
        }
        let trace = try await Self.scenario(
            request: { _ in BGAppRefreshTaskRequest(identifier: "refresh") },
            before: { world, _ in await world.phone.setTaskSchedulingPolicy(Never()) })
        #expect(!trace.contains { $0.hasPrefix("taskStarted") })
        #expect(trace.contains("taskDeferred refresh@1"))
    }
}
