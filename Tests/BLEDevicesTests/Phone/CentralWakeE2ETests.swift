import BLE
import BLECompanion
import BLEDevices
import BLEPhone
import BLESimulation
import Testing

/// A `bluetooth-central` app on the whole phone: "the system wakes the app" for a central or
/// peripheral event and it has a short window to handle it (Core Bluetooth Programming Guide,
/// "Core Bluetooth Background Processing for iOS Apps"; the window is the profile's, around
/// 10 s); suspended again at the window's end; its own clock stands while it is suspended.
@Suite("Phone end to end: a bluetooth-central app")
struct CentralWakeE2ETests {
    @Test(
        "Each heartbeat wakes the suspended app until t + wakeWindow, where it is suspended again; its app-clock timer stays frozen while the device-driven job runs every 2 heartbeats"
    )
    func heartbeatWakes() async throws {
        try await PhoneE2E.run(.ios17) { world in
            await world.install(ProbeConfiguration(appTimer: .seconds(30), jobEvery: 2), modes: [.bluetoothCentral])
            try await world.openAndSubscribe()
            let homeAt = world.simulation.now
            await world.phone.home()
            world.startHeartbeat(every: .seconds(60))
            try await world.sleep(for: .seconds(630))

            let window = world.profile.wakeWindow
            let trace = await world.trace()
            let wakes = trace.filter { $0.wokenUntil != nil }
            #expect(wakes.count == 10)
            #expect(wakes.allSatisfy { $0.wokenUntil == $0.time.advanced(by: window) })
            // Suspended after leaving the screen, then at each window's end.
            let suspensions = await world.times(enteredState: .suspended)
            #expect(suspensions == [homeAt.advanced(by: world.profile.suspensionDelay)] + wakes.compactMap(\.wokenUntil))
            // Each heartbeat handled as it woke the app, in order.
            let heartbeats = world.log.heartbeatEntries()
            #expect(heartbeats.map(\.time) == wakes.map(\.time))
            #expect(consecutive(world.log.heartbeats()) && heartbeats.count == 10)
            // The device-driven job: on every second heartbeat.
            #expect(world.log.times(of: .job) == stride(from: 1, to: 10, by: 2).map { heartbeats[$0].time })
            // The app's clock ran 5 s in front, 1 s before suspension and 10 s per wake: its
            // 30 s timer fired at app time 30, 60 and 90 — 4 s into the 3rd, 6th and 9th wakes —
            // not 20 times as 630 s of phone time would have it.
            let firings = world.log.times(of: .appTimer)
            #expect(firings == [2, 5, 8].map { wakes[$0].time.advanced(by: .seconds(4)) })
            #expect(!firings.contains { firing in !wakes.contains { $0.time <= firing && firing < $0.wokenUntil! } })
        }
    }

    @Test("The headset app (HeadsetPhoneApp): the heartbeats drive its job while its own timer stays frozen")
    func headsetAppCounts() async throws {
        let observer = HeadsetAppObserver()
        try await PhoneE2E.run(.ios17) { world in
            var made = HeadsetAppConfiguration.bluetoothCentral()
            made.appTimerPeriod = .seconds(30)
            made.jobEveryTicks = 2
            let configuration = made
            await world.phone.install(configuration.declaration) { context in
                HeadsetPhoneApp(context: context, configuration: configuration, observer: observer)
            }
            let app = AppIdentifier(HeadsetAppConfiguration.bundleIdentifier)
            await world.phone.open(app)
            try await world.sleep(for: .seconds(5))
            await world.phone.home()
            world.startHeartbeat(every: .seconds(60))
            try await world.sleep(for: .seconds(630))
            let counts = observer.counts
            #expect(counts.connections == 1)
            #expect(counts.heartbeats == 10)
            #expect(counts.jobRuns == 5)
            #expect(counts.appTimerFirings == 3)
            #expect(counts.undecodableFrames == 0)
            #expect(await world.trace(of: app).filter { $0.wokenUntil != nil }.count == 10)
        }
    }

    @Test(
        "An hour, a heartbeat every second, a 0.5 s wake window: every heartbeat wakes the app and is handled exactly once, in order; delivered = sent"
    )
    func anHourOfHeartbeats() async throws {
        var profile = PhoneProfile.ios17
        profile.wakeWindow = .milliseconds(500)
        try await PhoneE2E.run(profile) { world in
            await world.install(modes: [.bluetoothCentral])
            try await world.openAndSubscribe()
            await world.phone.home()
            try await world.sleep(for: .seconds(2))
            world.startHeartbeat(every: .seconds(1))
            try await world.sleep(for: .milliseconds(3_600_500))
            world.stopHeartbeat()
            try await world.sleep(for: .seconds(2))

            let sent = world.headset.statistics.heartbeatsSent
            #expect(sent == 3600)
            let handled = world.log.heartbeats()
            #expect(handled.count == sent)
            #expect(handled.first == 0 && consecutive(handled))
            let trace = await world.trace()
            #expect(trace.filter(\.isValueDelivered).count == sent)
            let counters = await world.phone.counters
            #expect(counters.eventsQueued == 0)
            #expect(counters.eventsDropped == 0)
            #expect(counters.wakes == sent)
            #expect(await world.times(enteredState: .suspended).count == sent + 1)
            #expect(await world.phone.state(of: PhoneE2E.probe) == .suspended)
        }
    }
}
