import BLEController
import BLESimulation
import Testing

@testable import BLEPhone

/// The location mode and location wakes on a phone, on virtual time ("Handling location updates
/// in the background"; phone-rules.md "Keep-alive").
@Suite("Keep-alive: location")
struct LocationKeepAliveTests {
    static let home = KeepAliveMachineTests.home
    static let away = KeepAliveMachineTests.away

    @Test(
        "Location mode: updates hold a background app running from home until stopUpdatingLocation, then it suspends",
        arguments: [PhoneProfile.ios12, .ios17])
    func updatesHold(profile: PhoneProfile) async throws {
        let radio = VirtualRadio()
        let (trace, log) = try await radio.simulation.run {
            let world = await PhoneWorld.make(profile, radio: radio)
            let app = await world.installKeepAlive(
                "com.example.run", modes: [.location],
                behaviour: KeepAliveBehaviour(locationDelegate: true, startUpdates: true, allowsBackgroundUpdates: true)
            )
            await world.phone.moveTo(Self.home)
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.home()
            try await world.at(100)
            await world.phone.moveTo(Self.away)
            try await world.at(200)
            #expect(await world.phone.state(of: app) == .background)
            await world.keepAliveApp(app)?.stopUpdates()
            try await world.at(300)
            return (await world.keepAliveTrace(of: app), world.log.all)
        }
        #expect(trace.contains("locationUpdates true true@0"))
        #expect(trace.contains("background@10"))
        #expect(!trace.contains { $0.hasPrefix("suspended@1") })
        #expect(trace.contains("locationDelivered update@100"))
        #expect(log.contains("update@100"))
        #expect(trace.contains("locationUpdates false false@200"))
        #expect(trace.contains("suspended@201"))
    }

    @Test("Without allowsBackgroundLocationUpdates (iOS 9+) or the mode, updates pause at suspension: traced, counted")
    func updatesPause() async throws {
        let radio = VirtualRadio()
        let (trace, paused) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.installKeepAlive(
                "com.example.run", modes: [.location],
                behaviour: KeepAliveBehaviour(locationDelegate: true, startUpdates: true))
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.home()
            try await world.at(100)
            await world.phone.moveTo(Self.away)
            try await world.at(110)
            return (await world.keepAliveTrace(of: app), await world.phone.keepAliveCounters.locationUpdatesPaused)
        }
        #expect(trace.contains("locationUpdates true false@0"))
        #expect(trace.contains("suspended@11"))
        #expect(trace.contains("locationNotDelivered update@100"))
        #expect(paused == 1)
    }

    @Test("A region crossing wakes a suspended app for the 10 s event window, then it suspends")
    func regionWakesSuspended() async throws {
        let radio = VirtualRadio()
        let (trace, log) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            await world.phone.moveTo(Self.home)
            let app = await world.installKeepAlive(
                "com.example.geo", modes: [],
                behaviour: KeepAliveBehaviour(
                    locationDelegate: true, region: CLCircularRegion(center: Self.home, radius: 200, identifier: "home")
                ))
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.home()
            try await world.at(100)
            await world.phone.moveTo(Self.away)
            try await world.at(200)
            return (await world.keepAliveTrace(of: app), world.log.all)
        }
        #expect(trace.contains("woken location@100"))
        #expect(log.contains("exit home@100"))
        #expect(trace.contains("suspended@110"))
    }

    @Test(
        "A significant change relaunches an app purged for memory (LaunchOptions.location), not one the user force-quit",
        arguments: [TerminationReason.memoryPressure, .forceQuit])
    func relaunch(after reason: TerminationReason) async throws {
        let radio = VirtualRadio()
        let (trace, log, denied) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            await world.phone.moveTo(Self.home)
            let app = await world.installKeepAlive(
                "com.example.slc", modes: [.location],
                behaviour: KeepAliveBehaviour(locationDelegate: true, significantChanges: true))
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.home()
            try await world.at(20)
            if reason == .forceQuit { await world.phone.forceQuit(app) } else { await world.phone.memoryPressure(app) }
            try await world.at(400)
            await world.phone.moveTo(Self.away)
            try await world.at(500)
            return (
                await world.keepAliveTrace(of: app), world.log.all, await world.phone.counters.relaunchesDenied
            )
        }
        if reason == .memoryPressure {
            #expect(trace.contains("launched location@400"))
            #expect(log.contains("launch location@400"))
            #expect(trace.contains("locationDelivered significant_change@400"))
            #expect(log.contains("update@400"))
            // Held for the event window, then suspended.
            #expect(trace.contains("suspended@410"))
        } else {
            #expect(!trace.contains { $0.hasPrefix("launched location") })
            #expect(trace.contains("relaunch denied@400"))
            #expect(trace.contains("locationNotDelivered significant_change@400"))
            #expect(denied == 1)
        }
    }

    @Test("KeepAliveRules.locationRelaunchesAfterForceQuit relaunches a force-quit app for a region crossing")
    func relaunchAfterForceQuitWhenConfigured() async throws {
        let radio = VirtualRadio()
        let trace = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            var rules = KeepAliveRules()
            rules.locationRelaunchesAfterForceQuit = true
            await world.phone.setKeepAliveRules(rules)
            await world.phone.moveTo(Self.home)
            let app = await world.installKeepAlive(
                "com.example.geo", modes: [],
                behaviour: KeepAliveBehaviour(
                    locationDelegate: true, region: CLCircularRegion(center: Self.home, radius: 200, identifier: "home")
                ))
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.forceQuit(app)
            try await world.at(50)
            await world.phone.moveTo(Self.away)
            try await world.at(100)
            return await world.keepAliveTrace(of: app)
        }
        #expect(trace.contains("launched location@50"))
        #expect(trace.contains("locationDelivered exit_region@50"))
    }
}
