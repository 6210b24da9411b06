import BLE
import BLEDevices
import BLEPhone
import BLESimulation
import Testing

/// State preservation and restoration on the whole phone (Core Bluetooth Programming Guide,
/// "Adding Support for State Preservation and Restoration": the relaunched app's manager gets
/// `willRestoreState` first, before its first state update; TN3115 "Bluetooth state
/// restoration app relaunch rules"): a `bluetooth-central` probe with a restore identifier,
/// subscribed to the headset's heartbeat.
@Suite("Phone end to end: state restoration")
struct RestorationE2ETests {
    enum Ending: String, Sendable, CaseIterable {
        case memoryPressure, crash
    }

    @Test(
        "Killed while suspended (memory pressure, crash): the next heartbeat relaunches it; willRestoreState (headset connected) first, then poweredOn, then the held notification; the old instance's held work never ran",
        arguments: Ending.allCases)
    func relaunchedByTheNextHeartbeat(_ ending: Ending) async throws {
        try await PhoneE2E.run(.ios17) { world in
            // Each heartbeat starts 15 s of work: past the 10 s wake window, so it is frozen
            // and finishes at the next wake.
            await world.installRestorable(ProbeConfiguration(workPerHeartbeat: .seconds(15)))
            try await world.openAndSubscribe()
            let homeAt = world.simulation.now
            await world.phone.home()
            world.startHeartbeat(every: .seconds(20))
            try await world.sleep(for: .seconds(72))
            let killedAt = world.simulation.now
            #expect(await world.phone.state(of: PhoneE2E.probe) == .suspended)
            switch ending {
            case .memoryPressure: await world.phone.memoryPressure(PhoneE2E.probe)
            case .crash: await world.phone.crash(PhoneE2E.probe)
            }
            try await world.sleep(for: .seconds(18))

            // The first instance: heartbeats 0, 1, 2, each woke it; the work of 0 and 1 was
            // frozen at the window's end and finished at the next wake; the work of 2 was held
            // at the kill and never ran.
            let first = world.log.entries(launch: 1)
            let beats = world.log.heartbeatEntries(launch: 1)
            #expect(beats.map(\.event) == [.heartbeat(0), .heartbeat(1), .heartbeat(2)])
            #expect(world.log.times(of: .workDone(0), launch: 1) == [beats[1].time])
            #expect(world.log.times(of: .workDone(1), launch: 1) == [beats[2].time])
            #expect(world.log.count(.workDone(2)) == 0)
            #expect(!first.contains { $0.time > killedAt })
            #expect(homeAt < beats[0].time)

            // Relaunched in the background for heartbeat 3, with the restore identifier.
            let trace = await world.trace()
            let relaunches = trace.filter(\.isRestorationLaunch)
            #expect(relaunches.count == 1)
            #expect(
                relaunches.first?.event
                    == .launched(.bluetoothRestoration(LaunchOptions(bluetoothCentrals: [PhoneE2E.restoreID]))))
            #expect(await world.phone.launchCount(of: PhoneE2E.probe) == 2)
            let reason: TerminationReason = ending == .crash ? .crash : .memoryPressure
            #expect(await world.phone.terminationReasons(of: PhoneE2E.probe) == [reason])

            // In the new instance's own record: willRestoreState first, then the state, then
            // the held notification — heartbeat 3, none lost, none twice.
            let second = world.log.entries(launch: 2).map(\.event)
            #expect(
                Array(second.prefix(3)) == [
                    .launched(LaunchOptions(bluetoothCentrals: [PhoneE2E.restoreID])),
                    .willRestoreState(peripherals: [.connected], subscriptions: 1), .state(.poweredOn),
                ])
            #expect(world.log.heartbeats(launch: 2).first == 3)
            #expect(world.log.heartbeatEntries(launch: 2).first?.time == relaunches.first?.time)
            #expect(consecutive(world.log.heartbeats()))

            // The phone's trace agrees: restored, willRestoreState, state, then the value.
            let afterRelaunch = trace.drop { !$0.isRestorationLaunch }
            let order = afterRelaunch.compactMap { entry -> String? in
                switch entry.event {
                case .restored: "restored"
                case .eventDelivered(.willRestoreState, _): "willRestoreState"
                case .eventDelivered(.stateUpdate, _): "state"
                case .eventDelivered(.valueUpdate, _): "value"
                default: nil
                }
            }
            #expect(Array(order.prefix(4)) == ["restored", "willRestoreState", "state", "value"])
        }
    }

    @Test("A foreground-only app without a restore identifier is not relaunched; its link ends with it")
    func foregroundOnlyNotRelaunched() async throws {
        try await PhoneE2E.run(.ios17) { world in
            await world.install()
            try await world.openAndSubscribe()
            world.startHeartbeat(every: .seconds(1))
            await world.phone.home()
            try await world.sleep(for: .milliseconds(5500))
            await world.phone.memoryPressure(PhoneE2E.probe)
            try await world.sleep(for: .seconds(30))

            let trace = await world.trace()
            #expect(!trace.contains { $0.isRestorationLaunch })
            #expect(!trace.contains { $0.isRelaunchDenied })
            #expect(await world.phone.launchCount(of: PhoneE2E.probe) == 1)
            #expect(await world.headset.manager.connectedCentrals.isEmpty)
            // The events queued for it died with it: dropped, counted.
            let counters = await world.phone.counters
            #expect(counters.eventsQueued == 5)
            #expect(counters.eventsDropped == 5)
        }
    }

    @Test("Force-quit (ios17): no relaunch; each heartbeat after it is denied, dropped and counted")
    func forceQuitDropsAndCounts() async throws {
        try await PhoneE2E.run(.ios17) { world in
            await world.installRestorable()
            try await world.openAndSubscribe()
            await world.phone.home()
            world.startHeartbeat(every: .seconds(5))
            try await world.sleep(for: .seconds(12))
            await world.phone.forceQuit(PhoneE2E.probe)
            try await world.sleep(for: .seconds(30))

            let trace = await world.trace()
            #expect(!trace.contains { $0.isRestorationLaunch })
            #expect(trace.filter(\.isRelaunchDenied).count == 6)
            let counters = await world.phone.counters
            #expect(counters.relaunchesDenied == 6)
            #expect(counters.eventsDropped == 6)
            #expect(await world.phone.launchCount(of: PhoneE2E.probe) == 1)
            // The system kept the link (the app's preserved manager holds it).
            #expect(await world.headset.manager.connectedCentrals.count == 1)
        }
    }

    @Test("Reboot with a passcode: the heartbeats wait; the app is relaunched at the first unlock, not before")
    func rebootWaitsForFirstUnlock() async throws {
        try await PhoneE2E.run(.ios17) { world in
            await world.installRestorable()
            try await world.openAndSubscribe()
            await world.phone.home()
            world.startHeartbeat(every: .seconds(5))
            try await world.sleep(for: .seconds(12))
            let rebootAt = world.simulation.now
            await world.phone.reboot(passcode: true)
            try await world.sleep(for: .seconds(30))
            let unlockAt = world.simulation.now
            await world.phone.firstUnlock()
            try await world.sleep(for: .seconds(1))

            let relaunches = await world.trace().filter(\.isRestorationLaunch)
            #expect(relaunches.map(\.time) == [unlockAt])
            #expect(world.log.entries(launch: 1).allSatisfy { $0.time <= rebootAt })
            #expect(world.log.entries(launch: 2).allSatisfy { $0.time >= unlockAt })
            // What came while it waited reaches the new instance, in order.
            #expect(world.log.heartbeats(launch: 2).count == 6)
            #expect(consecutive(world.log.heartbeats()))
        }
    }

    /// One row of TN3115's table (QA1962 on iOS ≤ 10; note 5 on iOS 26), through the user's own
    /// actions.
    struct Row: Sendable, CustomTestStringConvertible {
        enum Action: String, Sendable {
            /// Bluetooth off then on in Settings (the suspended app is ended by it).
            case settings
            /// Purged for memory, then Bluetooth off and on in Control Center.
            case controlCenter
            /// Purged for memory, then airplane mode on and off.
            case airplaneMode
            /// Restarted with a passcode, then the first unlock.
            case reboot
            case forceQuit
        }

        var profile: PhoneProfile
        var action: Action
        var accessorySetupKit = false
        var relaunched: Bool

        var testDescription: String {
            "\(profile) \(action)\(accessorySetupKit ? " (AccessorySetupKit)" : ""): \(relaunched ? "relaunched" : "not relaunched")"
        }
    }

    static let rows: [Row] = [
        Row(profile: .ios17, action: .settings, relaunched: false),
        Row(profile: .ios17, action: .controlCenter, relaunched: true),
        Row(profile: .ios17, action: .airplaneMode, relaunched: true),
        Row(profile: .ios17, action: .reboot, relaunched: true),
        Row(profile: .ios17, action: .forceQuit, relaunched: false),
        Row(profile: .ios12, action: .airplaneMode, relaunched: true),
        Row(profile: .ios6, action: .airplaneMode, relaunched: false),
        Row(profile: .ios6, action: .reboot, relaunched: false),
        Row(profile: .ios6, action: .controlCenter, relaunched: true),
        Row(profile: .ios26, action: .controlCenter, relaunched: false),
        Row(profile: .ios26, action: .controlCenter, accessorySetupKit: true, relaunched: true),
        Row(profile: .ios26, action: .airplaneMode, relaunched: false),
        Row(profile: .ios26, action: .airplaneMode, accessorySetupKit: true, relaunched: true),
        Row(profile: .ios26, action: .forceQuit, relaunched: false),
        Row(profile: .ios26, action: .forceQuit, accessorySetupKit: true, relaunched: true),
        Row(profile: .ios26, action: .reboot, relaunched: true),
    ]

    @Test("TN3115's rows through the user's actions", arguments: rows)
    func relaunchRow(_ row: Row) async throws {
        try await PhoneE2E.run(row.profile) { world in
            await world.installRestorable(accessorySetupKit: row.accessorySetupKit)
            try await world.openAndSubscribe()
            await world.phone.home()
            world.startHeartbeat(every: .seconds(5))
            try await world.sleep(for: .seconds(12))
            let actedAt = world.simulation.now
            switch row.action {
            case .settings:
                await world.phone.setBluetooth(on: false, in: .settings)
                try await world.sleep(for: .seconds(10))
                await world.phone.setBluetooth(on: true, in: .settings)
            case .controlCenter:
                await world.phone.memoryPressure(PhoneE2E.probe)
                await world.phone.setBluetooth(on: false, in: .controlCenter)
                try await world.sleep(for: .seconds(10))
                await world.phone.setBluetooth(on: true, in: .controlCenter)
            case .airplaneMode:
                await world.phone.memoryPressure(PhoneE2E.probe)
                await world.phone.setAirplaneMode(on: true)
                try await world.sleep(for: .seconds(10))
                await world.phone.setAirplaneMode(on: false)
            case .reboot:
                await world.phone.reboot(passcode: true)
                try await world.sleep(for: .seconds(10))
                await world.phone.firstUnlock()
            case .forceQuit:
                await world.phone.forceQuit(PhoneE2E.probe)
                try await world.sleep(for: .seconds(10))
            }
            try await world.sleep(for: .seconds(30))

            let trace = await world.trace()
            let relaunches = trace.filter(\.isRestorationLaunch)
            #expect(relaunches.count == (row.relaunched ? 1 : 0))
            #expect(await world.phone.launchCount(of: PhoneE2E.probe) == (row.relaunched ? 2 : 1))
            #expect(world.log.entries(launch: 1).allSatisfy { $0.time <= actedAt })
            if row.relaunched {
                // The new instance is back on the headset: it hears the heartbeat again.
                #expect(world.log.count(.willRestoreState(peripherals: [], subscriptions: 0), launch: 2)
                    + world.log.count(.willRestoreState(peripherals: [.connected], subscriptions: 1), launch: 2) == 1)
                #expect(world.log.heartbeats(launch: 2).count >= 4)
                #expect(consecutive(world.log.heartbeats(launch: 2)))
            } else {
                #expect(trace.contains { $0.isRelaunchDenied })
                #expect(await world.phone.counters.relaunchesDenied >= 1)
            }
        }
    }
}
