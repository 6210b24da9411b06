import BLE
import BLEDevices
import BLEPhone
import BLESimulation
import Testing

/// A foreground-only app (no background mode) on the whole phone, against the virtual
/// headset: Core Bluetooth Programming Guide, "Core Bluetooth Background Processing for iOS
/// Apps" — "Bluetooth events that occur while the app is suspended are queued and delivered
/// when it returns to the foreground"; no scanning in the background; a pending connect
/// survives suspension and never times out; NotifyOn… alerts.
@Suite("Phone end to end: a foreground-only app")
struct ForegroundOnlyE2ETests {
    @Test(
        "Home: suspended at +suspensionDelay; the headset's notifications are queued, none delivered while suspended, all delivered in arrival order at open"
    )
    func queuedWhileSuspendedDeliveredInOrder() async throws {
        try await PhoneE2E.run(.ios17) { world in
            await world.install()
            try await world.openAndSubscribe()
            world.startHeartbeat(every: .seconds(1))
            try await world.sleep(for: .milliseconds(5500))
            let inFront = world.log.heartbeats()
            #expect(inFront.count == 5)

            let homeAt = world.simulation.now
            await world.phone.home()
            try await world.sleep(for: .seconds(20))
            let openAt = world.simulation.now
            await world.phone.open(PhoneE2E.probe)
            try await world.sleep(for: .milliseconds(2200))

            // Managing your app's life cycle: suspended shortly after didEnterBackground
            // returns (the profile's suspensionDelay; the callback returned at once).
            let suspendedAt = try #require(await world.times(enteredState: .suspended).first)
            #expect(suspendedAt == homeAt.advanced(by: world.profile.suspensionDelay))
            #expect(world.log.count(.didEnterBackground) == 1)

            let trace = await world.trace()
            let queued = trace.filter(\.isValueQueued)
            #expect(queued.count == 19)
            #expect(queued.allSatisfy { $0.time > suspendedAt && $0.time < openAt })
            #expect(!trace.contains { $0.isValueDelivered && $0.time > suspendedAt && $0.time < openAt })
            #expect(!world.log.heartbeatEntries().contains { $0.time > suspendedAt && $0.time < openAt })

            // At the open, the queued ones arrive at once, in their order of arrival, then the
            // heartbeat goes on: every count once, none missing.
            let all = world.log.heartbeats()
            #expect(consecutive(all))
            #expect(all.count == 27)
            let entries = world.log.heartbeatEntries()
            let atOpen = entries.filter { $0.time == openAt }.count
            let afterOpen = entries.filter { $0.time > openAt }.count
            #expect(atOpen == 19)
            #expect(afterOpen == 2)
            let counters = await world.phone.counters
            #expect(counters.eventsQueued == 19)
            #expect(counters.eventsDropped == 0)
            #expect(counters.wakes == 0)
        }
    }

    @Test("Coalescing .latestPerKey: of the notifications queued while suspended only the latest is delivered")
    func coalescedToTheLatest() async throws {
        try await PhoneE2E.run(.ios17) { world in
            await world.phone.setEventCoalescing(.latestPerKey)
            await world.install()
            try await world.openAndSubscribe()
            world.startHeartbeat(every: .seconds(1))
            try await world.sleep(for: .milliseconds(5500))
            let homeAt = world.simulation.now
            await world.phone.home()
            try await world.sleep(for: .seconds(20))
            let openAt = world.simulation.now
            await world.phone.open(PhoneE2E.probe)
            try await world.sleep(for: .milliseconds(500))

            let trace = await world.trace()
            #expect(trace.filter(\.isValueQueued).count == 19)
            #expect(trace.filter(\.isValueCoalesced).count == 18)
            let atOpen = world.log.heartbeatEntries().filter { $0.time == openAt }
            #expect(atOpen.count == 1)
            // The latest: the one before it in the app's record is the last heard before
            // suspension, and 19 ticks came meanwhile.
            let before = world.log.heartbeatEntries().filter { $0.time < openAt && $0.time > homeAt }
            #expect(before.count == 1)
            if case .heartbeat(let latest) = atOpen.first?.event, case .heartbeat(let last) = before.last?.event {
                #expect(latest == last + 19)
            } else {
                Issue.record("no heartbeat at the open")
            }
            #expect(await world.phone.counters.eventsCoalesced == 18)
        }
    }

    @Test("A foreground-only app's scan is paused in the background and resumes in front")
    func scanPausedInBackground() async throws {
        try await PhoneE2E.run(.ios17) { world in
            await world.install(ProbeConfiguration(connectOnDiscovery: false, allowDuplicates: true))
            await world.phone.open(PhoneE2E.probe)
            try await world.sleep(for: .seconds(3))
            let inFront = world.log.count(.discovered(localName: "HEADSET"))
            #expect(inFront > 1)

            let homeAt = world.simulation.now
            await world.phone.home()
            try await world.sleep(for: .seconds(30))
            let openAt = world.simulation.now
            await world.phone.open(PhoneE2E.probe)
            try await world.sleep(for: .seconds(3))

            let discoveries = world.log.times(of: .discovered(localName: "HEADSET"))
            #expect(!discoveries.contains { $0 > homeAt && $0 < openAt })
            #expect(discoveries.contains { $0 > openAt })
            // Nothing was even queued: the system did not scan for the app.
            #expect(
                !(await world.trace()).contains {
                    if case .eventQueued(.discovery, _) = $0.event { true } else { false }
                })
        }
    }

    @Test(
        "A connect made in front stays pending, completes while the app is suspended, and the app hears .connected at the next open"
    )
    func pendingConnectCompletesWhileSuspended() async throws {
        try await PhoneE2E.run(.ios17) { world in
            await world.install(ProbeConfiguration(connectOnDiscovery: false))
            await world.phone.open(PhoneE2E.probe)
            try await world.sleep(for: .seconds(3))
            #expect(world.log.count(.discovered(localName: "HEADSET")) >= 1)
            // The headset goes quiet; the app asks to connect: pending.
            await world.headset.manager.stopAdvertising()
            try await world.sleep(for: .seconds(1))
            let app = try #require(await world.phone.instance(of: PhoneE2E.probe) as? ProbeApp)
            await app.connectToHeadset()
            try await world.sleep(for: .seconds(1))
            #expect(world.log.count(.connected) == 0)

            let homeAt = world.simulation.now
            await world.phone.home()
            try await world.sleep(for: .seconds(10))
            try await world.headset.manager.startAdvertising(world.headset.configuration.advertisement)
            try await world.sleep(for: .seconds(20))
            let openAt = world.simulation.now
            await world.phone.open(PhoneE2E.probe)
            try await world.sleep(for: .seconds(3))

            let suspendedAt = try #require(await world.times(enteredState: .suspended).first)
            #expect(suspendedAt == homeAt.advanced(by: world.profile.suspensionDelay))
            let queued = await world.trace().filter {
                if case .eventQueued(.connection, _) = $0.event { true } else { false }
            }
            #expect(queued.count == 1)
            #expect(queued.allSatisfy { $0.time > homeAt.advanced(by: .seconds(10)) && $0.time < openAt })
            #expect(await world.headset.manager.connectedCentrals.count == 1)
            #expect(world.log.times(of: .connected) == [openAt])
            #expect(world.log.count(.subscribed) == 1)
        }
    }
}

/// NotifyOnNotification (CBConnectPeripheralOptionNotifyOnNotificationKey): a system alert for
/// a suspended foreground-only app's notification; of several apps that asked, only the most
/// recently foregrounded gets it (Core Bluetooth Programming Guide, "Core Bluetooth Background
/// Processing for iOS Apps").
@Suite("Phone end to end: alerts")
struct AlertE2ETests {
    static let notifying = ProbeConfiguration(connectOptions: PhoneConnectOptions(notifyOnNotification: true))

    @Test(
        "A suspended foreground-only app that connected with notifyOnNotification gets an alert per notification, and only while suspended"
    )
    func alertWhileSuspended() async throws {
        try await PhoneE2E.run(.ios17) { world in
            await world.install(Self.notifying)
            try await world.openAndSubscribe()
            world.startHeartbeat(every: .seconds(1))
            try await world.sleep(for: .milliseconds(3500))
            let homeAt = world.simulation.now
            await world.phone.home()
            try await world.sleep(for: .seconds(10))

            let trace = await world.trace()
            let alerts = trace.filter(\.isAlert)
            let suspendedAt = try #require(await world.times(enteredState: .suspended).first)
            #expect(homeAt < suspendedAt)
            // Regression: the heartbeat between leaving the screen and suspension (the app
            // runs and is handed it) raised an alert too; Apple's key says "if the app is
            // suspended at the time of delivery".
            #expect(!alerts.contains { $0.time <= suspendedAt })
            #expect(alerts.count == trace.filter(\.isValueQueued).count)
            #expect(alerts.count == 9)
        }
    }

    @Test("With two apps asking, only the most recently foregrounded gets the alert")
    func onlyMostRecentlyForegrounded() async throws {
        try await PhoneE2E.run(.ios17) { world in
            let first = AppIdentifier("com.example.first")
            let second = AppIdentifier("com.example.second")
            await world.install(Self.notifying, app: first)
            await world.install(Self.notifying, app: second)
            try await world.openAndSubscribe(first)
            await world.phone.open(second)
            try await world.sleep(for: .seconds(5))
            #expect(world.log.count(.subscribed) == 2)
            await world.phone.home()
            world.startHeartbeat(every: .seconds(1))
            try await world.sleep(for: .milliseconds(10500))
            let switchAt = world.simulation.now
            await world.phone.open(first)
            try await world.sleep(for: .milliseconds(500))
            await world.phone.home()
            try await world.sleep(for: .seconds(10))

            let firstAlerts = await world.trace(of: first).filter(\.isAlert)
            let secondAlerts = await world.trace(of: second).filter(\.isAlert)
            #expect(!secondAlerts.isEmpty && secondAlerts.allSatisfy { $0.time < switchAt })
            #expect(!firstAlerts.isEmpty && firstAlerts.allSatisfy { $0.time > switchAt })
            #expect(secondAlerts.count >= 9 && firstAlerts.count >= 9)
        }
    }
}
