import BLE
import BLEDevices
import BLEPhone
import BLESimulation
import Testing

/// UIApplication `beginBackgroundTask(withName:expirationHandler:)` on the whole phone, per
/// profile: the budget (600 / 180 / 30 s, observed: "UIApplication Background Task Notes",
/// Apple DTS), the expiration handler ~5 s before its end, a kill with 0x2182bad2 for a task
/// not ended at the end; an app that ends its task is suspended, not killed. While the task
/// runs the foreground-only app is running, so the headset's notifications are delivered, not
/// queued.
@Suite("Phone end to end: background tasks per profile")
struct BackgroundTaskE2ETests {
    @Test(
        "A task never ended: expiration handler at budget − 5 s, killed 0x2182bad2 at the budget",
        arguments: PhoneProfile.all)
    func overrunKills(_ profile: PhoneProfile) async throws {
        try await PhoneE2E.run(profile) { world in
            await world.install(ProbeConfiguration(task: .neverEnd))
            try await world.openAndSubscribe()
            world.startHeartbeat(every: .seconds(1))
            let homeAt = world.simulation.now
            await world.phone.home()
            try await world.sleep(for: profile.backgroundTaskBudget + .seconds(10))

            let budget = profile.backgroundTaskBudget
            let expiresAt = homeAt.advanced(by: budget - profile.expirationLead)
            let trace = await world.trace()
            let expiring = trace.filter {
                if case .backgroundTaskExpiring = $0.event { true } else { false }
            }
            #expect(expiring.map(\.time) == [expiresAt])
            #expect(world.log.times(of: .expirationHandler) == [expiresAt])
            let kills = trace.compactMap { entry -> (VirtualInstant, TerminationReason)? in
                if case .killed(let reason) = entry.event { return (entry.time, reason) }
                return nil
            }
            #expect(kills.map(\.0) == [homeAt.advanced(by: budget)])
            #expect(kills.map(\.1) == [.backgroundTaskOverrun])
            #expect(await world.phone.terminationReasons(of: PhoneE2E.probe).map(\.code) == [0x2182_bad2])
            // Never suspended: the task held it until the kill; the heartbeats reached it.
            #expect(await world.times(enteredState: .suspended).isEmpty)
            #expect(!trace.contains { $0.isValueQueued })
            let heard = world.log.heartbeatEntries().filter { $0.time > homeAt && $0.time < homeAt.advanced(by: budget) }
            #expect(heard.count == Int(budget.components.seconds) - 1)
        }
    }

    @Test(
        "A task ended in its expiration handler: suspended at budget − 5 s + suspensionDelay, not killed",
        arguments: PhoneProfile.all)
    func endedInHandlerSuspends(_ profile: PhoneProfile) async throws {
        try await PhoneE2E.run(profile) { world in
            await world.install(ProbeConfiguration(task: .endInHandler))
            try await world.openAndSubscribe()
            world.startHeartbeat(every: .seconds(1))
            let homeAt = world.simulation.now
            await world.phone.home()
            try await world.sleep(for: profile.backgroundTaskBudget + .seconds(10))

            let expiresAt = homeAt.advanced(by: profile.backgroundTaskBudget - profile.expirationLead)
            #expect(world.log.times(of: .expirationHandler) == [expiresAt])
            #expect(await world.times(enteredState: .suspended) == [expiresAt.advanced(by: profile.suspensionDelay)])
            #expect(await world.phone.terminationReasons(of: PhoneE2E.probe).isEmpty)
            #expect(await world.phone.state(of: PhoneE2E.probe) == .suspended)
            // Running until then (delivered), queued after.
            let suspendedAt = expiresAt.advanced(by: profile.suspensionDelay)
            let trace = await world.trace()
            #expect(trace.filter(\.isValueQueued).allSatisfy { $0.time > suspendedAt })
            // From the tick that left the headset at the suspension instant (it lands after it) on.
            #expect(trace.filter(\.isValueQueued).count == 14)
        }
    }
}
