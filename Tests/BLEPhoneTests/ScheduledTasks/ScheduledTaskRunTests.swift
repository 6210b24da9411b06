import BLEController
import BLESimulation
import Foundation
import Testing

@testable import BLEPhone

/// Running a task: the launch handler, the time limit, the expiration handler, completion, the
/// overrun kill, a launch for a not-running app, and the debugger's simulate methods
/// ("BGTask", "Starting and Terminating Tasks During Development"; phone-rules.md).
@Suite("Scheduled tasks: runs")
struct ScheduledTaskRunTests {
    static func run(
        _ profile: PhoneProfile = .ios17, behaviour: TaskBehaviour, until: Double = 600,
        script: @escaping @Sendable (PhoneWorld, AppIdentifier) async throws -> Void
    ) async throws -> (log: [String], trace: [String], kills: [TerminationReason]) {
        let radio = VirtualRadio()
        var profile = profile
        profile.autoLock = nil
        return try await radio.simulation.run { [profile] in
            let world = await PhoneWorld.make(profile, radio: radio)
            let app = await world.installTaskApp(behaviour: behaviour)
            await world.phone.open(app)
            try await script(world, app)
            try await world.at(until)
            return (world.log.all, await world.taskTrace(app), await world.phone.terminationReasons(of: app))
        }
    }

    /// Submits a refresh for 100 s at 1 s and goes home.
    static let refreshAt100: @Sendable (PhoneWorld, AppIdentifier) async throws -> Void = { world, app in
        try await world.at(1)
        try await world.scheduler(app)!.submit(
            BGAppRefreshTaskRequest(identifier: "refresh", earliestBeginDate: world.instant(100)))
        await world.phone.home()
    }

    @Test(
        "A suspended app is woken for its task, held while it runs, suspended after it completes",
        arguments: [PhoneProfile.ios17, .ios26])
    func wokenAndHeld(profile: PhoneProfile) async throws {
        let (log, trace, kills) = try await Self.run(
            profile, behaviour: TaskBehaviour(register: ["refresh"], completeAfter: .seconds(20)),
            script: Self.refreshAt100)
        #expect(trace.contains("woken for refresh@100"))
        #expect(log.contains("handler refresh@100"))
        #expect(trace.contains("taskCompleted refresh success@120"))
        // Held (not suspended) until the completion, then suspended suspensionDelay later.
        #expect(trace.filter { $0.hasPrefix("suspended") } == ["suspended@2", "suspended@121"])
        #expect(kills.isEmpty)
    }

    @Test(
        "The expiration handler is called at the refresh limit (30 s); completing in it ends the task unsuccessfully, no kill",
        arguments: [PhoneProfile.ios17, .ios26])
    func expirationAtLimit(profile: PhoneProfile) async throws {
        let (log, trace, kills) = try await Self.run(
            profile,
            behaviour: TaskBehaviour(register: ["refresh"], completeAfter: nil), script: Self.refreshAt100)
        #expect(log.contains("expiration refresh@130"))
        #expect(trace.contains("taskExpiring refresh@130"))
        #expect(trace.contains("taskCompleted refresh failure@130"))
        #expect(kills.isEmpty)
    }

    @Test(
        "No expiration handler: at the limit the system completes the task unsuccessfully; no kill",
        arguments: [PhoneProfile.ios17, .ios26])
    func noExpirationHandler(profile: PhoneProfile) async throws {
        let (log, trace, kills) = try await Self.run(
            profile,
            behaviour: TaskBehaviour(register: ["refresh"], completeAfter: nil, expirationHandler: false),
            script: Self.refreshAt100)
        #expect(!log.contains { $0.hasPrefix("expiration") })
        #expect(trace.contains("taskCompleted refresh failure@130"))
        #expect(trace.contains("suspended@131"))
        #expect(kills.isEmpty)
    }

    @Test(
        "Not completed after the expiration handler: killed (scheduled_task_overrun) the grace time later",
        arguments: [PhoneProfile.ios17, .ios26])
    func overrunKill(profile: PhoneProfile) async throws {
        let (_, trace, kills) = try await Self.run(
            profile, behaviour: TaskBehaviour(register: ["refresh"], completeAfter: nil, completeOnExpiration: false),
            script: Self.refreshAt100)
        #expect(trace.contains("taskExpiring refresh@130"))
        #expect(trace.contains("taskOverrun refresh@135"))
        #expect(trace.contains("killed scheduled_task_overrun@135"))
        #expect(trace.contains("taskInterrupted refresh@135"))
        #expect(kills == [.scheduledTaskOverrun])
    }

    @Test(
        "A not-running app is launched in the background for its task and registers during that launch",
        arguments: [PhoneProfile.ios17, .ios26])
    func launchForTask(profile: PhoneProfile) async throws {
        let (log, trace, _) = try await Self.run(
            profile, behaviour: TaskBehaviour(register: ["refresh"])
        ) { world, app in
            try await Self.refreshAt100(world, app)
            try await world.at(10)
            await world.phone.memoryPressure(app)
        }
        #expect(trace.contains("launched for refresh@100"))
        #expect(
            log.filter { $0.hasPrefix("didFinishLaunching") } == ["didFinishLaunching@0", "didFinishLaunching@100"])
        #expect(log.contains("handler refresh@100"))
        #expect(trace.contains("taskCompleted refresh success@100"))
    }

    @Test(
        "A launch that does not register the identifier cannot run the task (traced), and the app is not held",
        arguments: [PhoneProfile.ios17, .ios26])
    func launchWithoutRegistration(profile: PhoneProfile) async throws {
        let (log, trace, _) = try await Self.run(
            profile, behaviour: TaskBehaviour(register: [])
        ) { world, app in
            try await Self.refreshAt100(world, app)
            try await world.at(10)
            await world.phone.memoryPressure(app)
        }
        #expect(trace.contains("launched for refresh@100"))
        #expect(trace.contains("taskNotRegistered refresh@100"))
        #expect(!log.contains { $0.hasPrefix("handler") })
        #expect(trace.contains("suspended@101"))
    }

    @Test(
        "simulateLaunchForTask bypasses the policy (low battery, before earliestBeginDate); simulateExpirationForTask calls the expiration handler now",
        arguments: [PhoneProfile.ios17, .ios26])
    func simulate(profile: PhoneProfile) async throws {
        let (log, trace, _) = try await Self.run(
            profile, behaviour: TaskBehaviour(register: ["refresh"], completeAfter: nil)
        ) {
            world, app in
            await world.phone.updateConditions { $0.batteryLevel = 5 }
            try await world.at(1)
            try await world.scheduler(app)!.submit(
                BGAppRefreshTaskRequest(identifier: "refresh", earliestBeginDate: world.instant(10_000)))
            #expect(await world.phone.simulateExpirationForTask(withIdentifier: "refresh", of: app) == false)
            await world.phone.home()
            try await world.at(50)
            #expect(await world.phone.simulateLaunchForTask(withIdentifier: "refresh", of: app))
            try await world.at(55)
            #expect(await world.phone.simulateExpirationForTask(withIdentifier: "refresh", of: app))
            #expect(await world.phone.simulateLaunchForTask(withIdentifier: "nothing", of: app) == false)
        }
        #expect(log.contains("handler refresh@50"))
        #expect(log.contains("expiration refresh@55"))
        #expect(trace.contains("taskExpiring refresh@55"))
        #expect(trace.contains("taskCompleted refresh failure@55"))
    }

    @Test(
        "A running processing task expires early when the user unlocks the phone",
        arguments: [PhoneProfile.ios17, .ios26])
    func processingExpiresOnUnlock(profile: PhoneProfile) async throws {
        let (log, trace, _) = try await Self.run(
            profile, behaviour: TaskBehaviour(register: ["nightly"], completeAfter: nil)
        ) {
            world, app in
            try await world.at(1)
            try await world.scheduler(app)!.submit(BGProcessingTaskRequest(identifier: "nightly"))
            await world.phone.lock()
            try await world.at(200)
            await world.phone.unlock()
        }
        #expect(log.contains("handler nightly@1"))
        #expect(log.contains("expiration nightly@200"))
        #expect(trace.contains("taskCompleted nightly failure@200"))
    }

    @Test("The picture of a run: the request a mark, the run an overlay, the wake drawn as a scheduled-task wake")
    func timelineOfARun() async throws {
        let radio = VirtualRadio()
        let svg = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.installTaskApp(
                behaviour: TaskBehaviour(register: ["refresh"], completeAfter: .seconds(20)))
            await world.phone.open(app)
            try await Self.refreshAt100(world, app)
            try await world.at(300)
            return PhoneTimelineSVG().render(await world.phone.trace)
        }
        // One of each in the legend, one more in the app's lane.
        for style in ["o-scheduledTask", "k-taskRequest", "wake-scheduled_task"] {
            #expect(svg.components(separatedBy: "class=\"\(style)\"").count - 1 == 2, "\(style)")
        }
    }
}
