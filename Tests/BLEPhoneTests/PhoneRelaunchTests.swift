import BLEController
import BLESimulation
import Testing

@testable import BLEPhone

/// State restoration relaunches per the profile's table (TN3115, QA1962, iOS 26 note 5).
@Suite("Phone: relaunch by state restoration")
struct PhoneRelaunchTests {
    /// Installs a bluetooth-central app with restore identifier "central", sends it to the
    /// background, ends it with `end`, then offers it an event at 100 s.
    private func scenario(
        _ profile: PhoneProfile, accessorySetupKit: Bool = false, attach: Bool = true,
        end: @escaping @Sendable (Phone, AppIdentifier) async -> Void
    ) async throws -> (trace: [String], log: [String], launches: Int) {
        let radio = VirtualRadio()
        return try await radio.simulation.run {
            let world = await PhoneWorld.make(profile, radio: radio)
            let app = await world.install(
                "com.example.headset", modes: [.bluetoothCentral], restoreIdentifiers: ["central"],
                accessorySetupKit: accessorySetupKit)
            await world.phone.open(app)
            await world.phone.home()
            try await world.at(10)
            await end(world.phone, app)
            try await world.at(100)
            await world.phone.offer(world.delivery("n1", for: app, restoreIdentifier: "central"), to: app)
            try await world.at(101)
            if attach {
                await world.phone.managerAttached(
                    ManagerID(role: .central, restoreIdentifier: "central", serial: 1), of: app)
            }
            try await world.at(200)
            return (await world.trace(of: app), world.log.all, await world.phone.launchCount(of: app))
        }
    }

    @Test(
        "Memory purge: relaunched in the background with the manager named; the event waits for the manager, then the app is suspended at the end of the wake window"
    )
    func relaunchAfterPurge() async throws {
        let result = try await scenario(.ios17) { phone, app in await phone.memoryPressure(app) }
        #expect(result.launches == 2)
        #expect(result.trace.contains("relaunched [\"central\"] []@100"))
        #expect(result.log.contains("didFinishLaunching@100"))
        // Held until the manager is made again (101), then delivered.
        #expect(result.trace.contains("delivered n1@101"))
        #expect(result.log.contains("event n1@101"))
        // The delivery restarts the 10 s window.
        #expect(result.trace.filter { $0.hasPrefix("suspended") }.last == "suspended@111")
        // Launched into the background: no scene callbacks.
        #expect(!result.log.contains { $0.hasPrefix("scene") && $0.hasSuffix("@100") })
    }

    @Test(
        "A relaunched app has no scene until the user opens it: then sceneWillConnect, and launch options stay those of the relaunch"
    )
    func sceneConnectsAtOpen() async throws {
        let radio = VirtualRadio()
        let (log, options) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install(
                "com.example.headset", modes: [.bluetoothCentral], restoreIdentifiers: ["central"])
            await world.phone.open(app)
            await world.phone.home()
            try await world.at(10)
            await world.phone.memoryPressure(app)
            await world.phone.offer(world.delivery("n1", for: app, restoreIdentifier: "central"), to: app)
            try await world.at(11)
            #expect(await world.phone.sceneState(of: app) == .unattached)
            await world.phone.open(app)
            try await world.at(12)
            #expect(await world.phone.sceneState(of: app) == .foregroundActive)
            let options = try #require(await world.phone.instance(of: app)).context.launchOptions
            return (world.log.all.filter { $0.hasSuffix("@10") || $0.hasSuffix("@11") }, options)
        }
        #expect(
            log == [
                "didFinishLaunching@10", "sceneWillConnect@11", "sceneWillEnterForeground@11",
                "sceneDidBecomeActive@11",
            ])
        #expect(options == LaunchOptions(bluetoothCentrals: ["central"]))
    }

    @Test("Force-quit never relaunches on iOS 17 (TN3115): the event is dropped, the denial traced")
    func forceQuitDenied() async throws {
        let result = try await scenario(.ios17) { phone, app in await phone.forceQuit(app) }
        #expect(result.launches == 1)
        #expect(result.trace.contains("relaunch denied@100"))
        #expect(result.trace.contains("dropped n1@100"))
    }

    @Test("iOS 26 note 5: an AccessorySetupKit app is relaunched even after a force-quit; another is not")
    func accessorySetupKit() async throws {
        let kit = try await scenario(.ios26, accessorySetupKit: true) { phone, app in await phone.forceQuit(app) }
        #expect(kit.launches == 2)
        let plain = try await scenario(.ios26) { phone, app in await phone.forceQuit(app) }
        #expect(plain.launches == 1)
    }

    @Test(
        "TN3115 rows on the phone: crash yes; Bluetooth off in Settings no; Control Center yes on iOS 17, no on iOS 26; airplane mode no on iOS 6 (QA1962)"
    )
    func tableRows() async throws {
        let crash = try await scenario(.ios17) { phone, app in await phone.crash(app) }
        #expect(crash.launches == 2)
        let settings = try await scenario(.ios17) { phone, _ in
            await phone.setBluetooth(on: false, in: .settings)
            await phone.setBluetooth(on: true, in: .settings)
        }
        #expect(settings.launches == 1)
        #expect(settings.trace.contains("killed Bluetooth turned off in Settings@10"))
        let controlCenter = { (profile: PhoneProfile) in
            try await self.scenario(profile) { phone, app in
                await phone.memoryPressure(app)
                await phone.setBluetooth(on: false, in: .controlCenter)
                await phone.setBluetooth(on: true, in: .controlCenter)
            }
        }
        #expect(try await controlCenter(.ios17).launches == 2)
        #expect(try await controlCenter(.ios26).launches == 1)
        let airplane = { (profile: PhoneProfile) in
            try await self.scenario(profile) { phone, app in
                await phone.memoryPressure(app)
                await phone.setAirplaneMode(on: true)
                await phone.setAirplaneMode(on: false)
            }
        }
        #expect(try await airplane(.ios12).launches == 2)
        #expect(try await airplane(.ios6).launches == 1)
    }

    @Test("Reboot with a passcode: no relaunch before the first unlock, then relaunched")
    func rebootWaitsForFirstUnlock() async throws {
        let radio = VirtualRadio()
        let trace = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install(
                "com.example.headset", modes: [.bluetoothCentral], restoreIdentifiers: ["central"])
            await world.phone.open(app)
            await world.phone.home()
            try await world.at(10)
            await world.phone.reboot(passcode: true)
            try await world.at(100)
            await world.phone.offer(world.delivery("n1", for: app, restoreIdentifier: "central"), to: app)
            try await world.at(150)
            #expect(await world.phone.state(of: app) == .notRunning)
            await world.phone.firstUnlock()
            try await world.at(151)
            #expect(await world.phone.state(of: app) == .background)
            return await world.trace(of: app)
        }
        #expect(trace.contains("killed reboot@10"))
        #expect(trace.contains("queued n1@100"))
        #expect(trace.contains("relaunched [\"central\"] []@150"))
    }

    @Test("Without anything preserved, an event for a terminated app is dropped, traced and counted")
    func droppedWithoutRestoration() async throws {
        let radio = VirtualRadio()
        try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install("com.example.plain", modes: [.bluetoothCentral])
            await world.phone.open(app)
            await world.phone.home()
            try await world.at(10)
            await world.phone.memoryPressure(app)
            await world.phone.offer(world.delivery("n1", for: app), to: app)
            try await world.at(11)
            #expect(await world.phone.launchCount(of: app) == 1)
            #expect(await world.phone.counters.eventsDropped == 1)
            #expect(await world.trace(of: app).contains("dropped n1@10"))
        }
    }
}
