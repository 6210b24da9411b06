import BLEController
import BLESimulation
import Testing

@testable import BLEPhone

/// VoIP pushes (PushKit, CallKit) and silent pushes on a phone, on virtual time.
@Suite("Keep-alive: pushes")
struct PushKeepAliveTests {
    static func world(
        _ profile: PhoneProfile, modes: Set<BackgroundMode>, behaviour: KeepAliveBehaviour,
        _ body: @escaping @Sendable (PhoneWorld, AppIdentifier) async throws -> Void
    ) async throws -> (trace: [String], log: [String], counters: KeepAliveCounters) {
        let radio = VirtualRadio()
        return try await radio.simulation.run {
            let world = await PhoneWorld.make(profile, radio: radio)
            let app = await world.installKeepAlive("com.example.talk", modes: modes, behaviour: behaviour)
            try await body(world, app)
            return (await world.keepAliveTrace(of: app), world.log.all, await world.phone.keepAliveCounters)
        }
    }

    // MARK: VoIP

    @Test(
        "A VoIP push launches a terminated app in the background; the reported call holds it until the user ends it",
        arguments: [PhoneProfile.ios12, .ios17])
    func voipLaunchAndCall(profile: PhoneProfile) async throws {
        let (trace, log, counters) = try await Self.world(
            profile, modes: [.voip], behaviour: KeepAliveBehaviour(pushRegistry: true)
        ) { world, app in
            try await world.at(10)
            await world.phone.deliverVoIPPush(to: app, payload: ["caller": "Alice"])
            try await world.at(300)
            #expect(await world.phone.state(of: app) == .background)
            await world.phone.endCall(of: app)
            try await world.at(400)
        }
        #expect(trace.contains("launched voip_push@10"))
        #expect(log.contains("voip@10"))
        #expect(trace.contains("callReported@10"))
        #expect(trace.contains("pushHandled voip true@10"))
        #expect(trace.contains("callEnded@300"))
        #expect(trace.contains("suspended@301"))
        #expect(counters.callsReported == 1)
    }

    @Test(
        "A VoIP push that waits 5 s for its registry delegate is traced as due when its 30 s report allowance really ends, counted from the push"
    )
    func voipHandlingDeadline() async throws {
        var behaviour = KeepAliveBehaviour(pushRegistry: true)
        behaviour.pushRegistryDelay = .seconds(5)
        let radio = VirtualRadio()
        let trace = try await radio.simulation.run { [behaviour] in
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.installKeepAlive("com.example.talk", modes: [.voip], behaviour: behaviour)
            try await world.at(10)
            await world.phone.deliverVoIPPush(to: app, payload: [:])
            try await world.at(100)
            return await world.phone.trace.filter { $0.app == app }
        }
        let launched = try #require(trace.first { if case .launched = $0.event { true } else { false } })
        let handling = try #require(
            trace.compactMap { entry -> (VirtualInstant, VirtualInstant)? in
                guard case .keepAlive(.pushHandling(.voip, _, let until)) = entry.event else { return nil }
                return (entry.time, until)
            }.first)
        #expect(handling.0 == launched.time.advanced(by: .seconds(5)))
        #expect(handling.1 == launched.time.advanced(by: .seconds(30)))
    }

    @Test("iOS 13+: a VoIP push not reported to CallKit kills the app (0xbaadca11) at its completion; iOS 12 does not")
    func voipNotReported() async throws {
        for profile in [PhoneProfile.ios12, .ios17] {
            var behaviour = KeepAliveBehaviour(pushRegistry: true)
            behaviour.reportCall = false
            let (trace, _, _) = try await Self.world(profile, modes: [.voip], behaviour: behaviour) { world, app in
                try await world.at(10)
                await world.phone.deliverVoIPPush(to: app)
                try await world.at(100)
            }
            if profile == .ios17 {
                #expect(trace.contains("killed voip_push_not_reported@10"))
            } else {
                #expect(!trace.contains { $0.hasPrefix("killed") })
                #expect(trace.contains("suspended@11"))
            }
        }
        #expect(TerminationReason.voipPushNotReported.code == 0xbaad_ca11)
    }

    @Test("iOS 13+: a push whose completion never comes and no call: killed at exactly the 30 s report allowance")
    func voipAllowance() async throws {
        var behaviour = KeepAliveBehaviour(pushRegistry: true)
        behaviour.reportCall = false
        behaviour.completePush = false
        let (trace, _, counters) = try await Self.world(.ios17, modes: [.voip], behaviour: behaviour) { world, app in
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.home()
            try await world.at(50)
            await world.phone.deliverVoIPPush(to: app)
            try await world.at(200)
        }
        #expect(trace.contains("woken voip_push@50"))
        #expect(trace.contains("pushHandled voip false@80"))
        #expect(trace.contains("killed voip_push_not_reported@80"))
        #expect(counters.completionsMissed == 1)
    }

    @Test("iOS 13+: after 3 unreported pushes PushKit stops delivering (traced, counted); no PushKit on iOS 6")
    func voipDeliveryStops() async throws {
        var behaviour = KeepAliveBehaviour(pushRegistry: true)
        behaviour.reportCall = false
        let (trace, _, counters) = try await Self.world(.ios17, modes: [.voip], behaviour: behaviour) { world, app in
            for minute in 1...4 {
                try await world.at(Double(minute * 60))
                await world.phone.deliverVoIPPush(to: app)
            }
            try await world.at(400)
        }
        #expect(trace.filter { $0.hasPrefix("killed voip_push_not_reported") }.count == 3)
        #expect(trace.contains("pushDropped voip@240"))
        #expect(counters.pushesDropped == 1)

        let (old, _, _) = try await Self.world(.ios6, modes: [.voip], behaviour: KeepAliveBehaviour(pushRegistry: true))
        {
            world, app in
            await world.phone.deliverVoIPPush(to: app)
            try await world.at(10)
        }
        #expect(old.contains("pushDropped voip@0"))
        #expect(!old.contains { $0.hasPrefix("launched") })
    }

    // MARK: Silent pushes

    @Test("A silent push wakes a suspended app; its fetch completion after 2 s ends the hold: suspended 1 s later")
    func silentWake() async throws {
        let (trace, log, _) = try await Self.world(
            .ios17, modes: [.remoteNotification], behaviour: KeepAliveBehaviour()
        ) {
            world, app in
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.home()
            try await world.at(100)
            await world.phone.deliverSilentPush(to: app)
            try await world.at(200)
        }
        #expect(trace.contains("woken silent_push@100"))
        #expect(log.contains("silent@100"))
        #expect(trace.contains("pushHandled silent true@102"))
        #expect(trace.contains("suspended@103"))
    }

    @Test("A silent push's handler has at most 30 s: the hold ends at 30 s without a completion (no kill)")
    func silentCap() async throws {
        var behaviour = KeepAliveBehaviour()
        behaviour.silentPushWork = nil
        let (trace, _, counters) = try await Self.world(.ios17, modes: [.remoteNotification], behaviour: behaviour) {
            world, app in
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.home()
            try await world.at(100)
            await world.phone.deliverSilentPush(to: app)
            try await world.at(300)
        }
        #expect(trace.contains("pushHandling silent@100"))
        #expect(trace.contains("pushHandled silent false@130"))
        #expect(trace.contains("suspended@131"))
        #expect(!trace.contains { $0.hasPrefix("killed") })
        #expect(counters.completionsMissed == 1)
    }

    @Test(
        "Silent pushes: 3 an hour in the background; the 4th is deferred to the hour's end, a 5th replaces it (dropped)"
    )
    func silentRateLimit() async throws {
        let (trace, log, counters) = try await Self.world(
            .ios17, modes: [.remoteNotification], behaviour: KeepAliveBehaviour()
        ) { world, app in
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.home()
            for (index, at) in [100.0, 200, 300, 400, 500].enumerated() {
                try await world.at(at)
                await world.phone.deliverSilentPush(to: app, payload: ["n": "\(index + 1)"])
            }
            try await world.at(4_000)
        }
        #expect(
            log.filter { $0.hasPrefix("silent@") }.map { $0.split(separator: "@")[1] } == ["100", "200", "300", "3700"])
        #expect(trace.contains("pushDeferred silent@400"))
        #expect(trace.contains("pushDropped silent@500"))
        #expect(counters.pushesDeferred == 2)
        #expect(counters.pushesDropped == 1)
        #expect(counters.pushesDelivered == 4)
    }

    @Test("A silent push launches a terminated app in the background, but not one the user force-quit")
    func silentLaunch() async throws {
        let (trace, log, _) = try await Self.world(
            .ios17, modes: [.remoteNotification], behaviour: KeepAliveBehaviour()
        ) {
            world, app in
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.home()
            try await world.at(20)
            await world.phone.memoryPressure(app)
            try await world.at(100)
            await world.phone.deliverSilentPush(to: app)
            try await world.at(200)
            await world.phone.open(app)
            try await world.at(210)
            await world.phone.forceQuit(app)
            try await world.at(300)
            await world.phone.deliverSilentPush(to: app)
            try await world.at(400)
        }
        #expect(trace.contains("launched silent_push@100"))
        #expect(log.contains("launch push@100"))
        #expect(log.contains("silent@100"))
        #expect(trace.contains("relaunch denied@300"))
        #expect(trace.contains("pushDropped silent@300"))
    }
}
