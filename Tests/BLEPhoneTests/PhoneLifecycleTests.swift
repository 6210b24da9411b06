import BLEController
import BLESimulation
import Foundation
import Testing

@testable import BLEPhone

/// App states and callbacks on virtual time ("Managing your app's life cycle",
/// UIApplicationDelegate / UISceneDelegate; phone-rules.md).
@Suite("Phone: app lifecycle")
struct PhoneLifecycleTests {
    @Test(
        "Scenes (iOS 17): launch calls the app's didFinishLaunching then the scene's callbacks; home suspends suspensionDelay after sceneDidEnterBackground"
    )
    func scenesLaunchAndSuspend() async throws {
        let radio = VirtualRadio()
        let (log, trace, states) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install("com.example.a")
            try await world.at(1)
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.home()
            try await world.at(10.5)
            let mid = await world.phone.state(of: app)
            try await world.at(12)
            let end = await world.phone.state(of: app)
            let scene = await world.phone.sceneState(of: app)
            return (
                world.log.all, await world.trace(of: app), [mid, end, scene == .background ? .background : .notRunning]
            )
        }
        #expect(
            log == [
                "didFinishLaunching@1", "sceneWillConnect@1", "sceneWillEnterForeground@1", "sceneDidBecomeActive@1",
                "sceneWillResignActive@10", "sceneDidEnterBackground@10",
            ])
        #expect(states == [.background, .suspended, .background])
        // Suspended at 10 s + suspensionDelay (1 s).
        #expect(trace.contains("suspended@11"))
        #expect(
            trace.filter { $0.hasPrefix("scene ") } == [
                "scene foregroundInactive@1", "scene foregroundActive@1", "scene foregroundInactive@10",
                "scene background@10",
            ])
    }

    @Test("No scenes (iOS 12): the app's own callbacks; reopening a suspended app resumes it")
    func appCallbacksWithoutScenes() async throws {
        let radio = VirtualRadio()
        let log = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios12, radio: radio)
            let app = await world.install("com.example.a")
            await world.phone.open(app)
            try await world.at(5)
            await world.phone.home()
            try await world.at(100)
            #expect(await world.phone.state(of: app) == .suspended)
            await world.phone.open(app)
            try await world.at(101)
            #expect(await world.phone.state(of: app) == .active)
            return world.log.all
        }
        #expect(
            log == [
                "didFinishLaunching@0", "didBecomeActive@0", "willResignActive@5", "didEnterBackground@5",
                "willEnterForeground@100", "didBecomeActive@100",
            ])
    }

    @Test("Watchdog: a launch past launchAllowance (20 s) is killed with 0x8badf00d at exactly 20 s")
    func launchWatchdog() async throws {
        let radio = VirtualRadio()
        let trace = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install("com.example.slow", behaviour: AppBehaviour(launchTakes: .seconds(60)))
            await world.phone.open(app)
            try await world.at(100)
            #expect(await world.phone.terminationReasons(of: app) == [.watchdog])
            #expect(await world.phone.instance(of: app) == nil)
            return await world.trace(of: app)
        }
        #expect(trace.contains("killed watchdog (0x8badf00d)@20"))
        #expect(TerminationReason.watchdog.code == 0x8bad_f00d)
    }

    @Test("Watchdog: didEnterBackground past its allowance (5 s) is killed at exactly 5 s")
    func didEnterBackgroundWatchdog() async throws {
        for profile in [PhoneProfile.ios12, .ios17] {
            let radio = VirtualRadio()
            let trace = try await radio.simulation.run {
                let world = await PhoneWorld.make(profile, radio: radio)
                let app = await world.install(
                    "com.example.slow", behaviour: AppBehaviour(enteringBackgroundTakes: .seconds(8)))
                await world.phone.open(app)
                try await world.at(2)
                await world.phone.home()
                try await world.at(30)
                return await world.trace(of: app)
            }
            #expect(trace.contains("killed watchdog (0x8badf00d)@7"), "\(profile)")
        }
    }

    @Test(
        "willTerminate only for an app running in the background; a suspended app is force-quit without it (UIApplicationDelegate)"
    )
    func forceQuitCallbacks() async throws {
        let radio = VirtualRadio()
        let log = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let suspended = await world.install("com.example.suspended")
            let working = await world.install("com.example.working", behaviour: AppBehaviour(taskInBackground: true))
            await world.phone.open(suspended)
            await world.phone.open(working)
            await world.phone.home()
            try await world.at(10)
            #expect(await world.phone.state(of: suspended) == .suspended)
            #expect(await world.phone.state(of: working) == .background)
            await world.phone.forceQuit(suspended)
            await world.phone.forceQuit(working)
            try await world.at(11)
            #expect(await world.phone.terminationReasons(of: suspended) == [.forceQuit])
            #expect(await world.phone.terminationReasons(of: working) == [.forceQuit])
            return world.log.names()
        }
        #expect(log.filter { $0 == "willTerminate" }.count == 1)
        #expect(log.last == "willTerminate")
    }

    @Test("Force-quit of the app in front: it resigns and enters the background (the app switcher), then willTerminate")
    func forceQuitFromFront() async throws {
        let radio = VirtualRadio()
        let log = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install("com.example.a")
            await world.phone.open(app)
            try await world.at(5)
            await world.phone.forceQuit(app)
            try await world.at(6)
            #expect(await world.phone.state(of: app) == .notRunning)
            return world.log.all.filter { $0.hasSuffix("@5") }
        }
        #expect(log == ["sceneWillResignActive@5", "sceneDidEnterBackground@5", "willTerminate@5"])
    }

    @Test("Memory pressure purges a suspended app without any callback; the app in front is spared")
    func memoryPressure() async throws {
        let radio = VirtualRadio()
        try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let a = await world.install("com.example.a")
            let b = await world.install("com.example.b")
            await world.phone.open(a)
            await world.phone.open(b)
            try await world.at(5)
            let before = world.log.all.count
            await world.phone.memoryPressure(a)
            await world.phone.memoryPressure(b)
            try await world.at(6)
            #expect(world.log.all.count == before)
            #expect(await world.phone.state(of: a) == .notRunning)
            #expect(await world.phone.state(of: b) == .active)
            #expect(await world.phone.terminationReasons(of: a) == [.memoryPressure])
        }
    }

    @Test("Auto-lock after profile.autoLock of idle time, unless the app in front disabled the idle timer")
    func autoLock() async throws {
        let radio = VirtualRadio()
        try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install("com.example.a")
            await world.phone.open(app)
            try await world.at(29)
            #expect(await world.phone.isLocked == false)
            try await world.at(30)
            #expect(await world.phone.isLocked)
            #expect(await world.phone.state(of: app) != .active)
            await world.phone.unlock()
            try await world.at(31)
            #expect(await world.phone.state(of: app) == .active)
            let context = try #require(await world.phone.instance(of: app)).context
            await context.setIdleTimerDisabled(true)
            try await world.at(600)
            #expect(await world.phone.isLocked == false)
            let trace = await world.trace(of: nil)
            #expect(trace.filter { $0.hasPrefix("system autoLock") } == ["system autoLock@30"])
        }
    }

    @Test("The app clock stands while the app is suspended: a 60 s timer fires after 60 s of running time")
    func appClockFreezes() async throws {
        let radio = VirtualRadio()
        // No auto-lock: the app stays in front after the resume.
        var noAutoLock = PhoneProfile.ios17
        noAutoLock.autoLock = nil
        let profile = noAutoLock
        let log = try await radio.simulation.run {
            let world = await PhoneWorld.make(profile, radio: radio)
            let app = await world.install("com.example.timer", behaviour: AppBehaviour(appTimer: .seconds(60)))
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.home()
            // Suspended at 11 s, after 11 s of running time; ten minutes pass.
            try await world.at(611)
            #expect(!world.log.names().contains("appTimer"))
            await world.phone.open(app)
            try await world.at(1000)
            return world.log.all.filter { $0.hasPrefix("appTimer") }
        }
        // 49 s of running time were left at the resume (611 s).
        #expect(log == ["appTimer@660"])
    }
}

/// What survives a kill: the storage directory, not the instance.
@Suite("Phone: launches")
struct PhoneLaunchTests {
    @Test(
        "Each launch makes a new instance and context; the storage directory (root/bundle identifier) survives the kill"
    )
    func storageSurvivesKill() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("phone-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let radio = VirtualRadio()
        try await radio.simulation.run {
            let phone = await Phone(profile: .ios17, radio: radio, storageRoot: root)
            let log = CallLog(simulation: radio.simulation)
            await phone.install(AppDeclaration(bundleIdentifier: "com.example.store")) { context in
                RecordingApp(context: context, log: log, behaviour: AppBehaviour())
            }
            let app = AppIdentifier("com.example.store")
            await phone.open(app)
            try await radio.simulation.clock.sleep(for: .seconds(1))
            let first = try #require(await phone.instance(of: app))
            let directory = try #require(first.context.storageDirectory)
            #expect(directory == root + "/com.example.store")
            #expect(FileManager.default.createFile(atPath: directory + "/note", contents: Data("kept".utf8)))
            await phone.crash(app)
            #expect(await phone.instance(of: app) == nil)
            await phone.open(app)
            try await radio.simulation.clock.sleep(for: .seconds(1))
            let second = try #require(await phone.instance(of: app))
            #expect(second !== first)
            #expect(second.context.launchNumber == 2)
            #expect(second.context.executor !== first.context.executor)
            #expect(first.context.executor.gate == .discarded)
            #expect(FileManager.default.contents(atPath: directory + "/note") == Data("kept".utf8))
            #expect(await phone.terminationReasons(of: app) == [.crash])
        }
    }
}
