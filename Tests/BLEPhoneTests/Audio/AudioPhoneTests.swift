import BLEController
import BLESimulation
import Testing

@testable import BLEPhone

/// The audio session on the phone, on virtual time: the `audio` keep-alive, the session
/// deactivated at suspension, notifications on the app's executor (phone-rules.md "Keep-alive"
/// and "AVAudioSession").
@Suite("Audio session: on the phone")
struct AudioPhoneTests {
    static let bundle = "com.example.player"

    /// The app's audio trace as "what@seconds" (seconds since the world's start).
    static func audioTrace(_ world: PhoneWorld, _ app: AppIdentifier?) async -> [String] {
        let start = world.log.start.withLock { $0 }
        return await world.phone.trace.compactMap { entry in
            guard app == nil || entry.app == app else { return nil }
            let time = seconds(since: start, to: entry.time)
            switch entry.event {
            case .audio(let event): return "\(event.record.type) \(event.record.words)@\(time)"
            case .stateChanged(_, let to) where to == .suspended: return "suspended@\(time)"
            default: return nil
            }
        }
    }

    static func name(_ notification: AVAudioSession.Notification) -> String {
        switch notification {
        case .interruptionBegan(let reason): "interruption began \(reason.rawValue)"
        case .interruptionEnded(let resume): "interruption ended \(resume)"
        case .routeChange(let reason, _): "route \(reason.rawValue)"
        }
    }

    static func context(_ world: PhoneWorld, _ app: AppIdentifier) async throws -> AppContext {
        guard let instance = await world.phone.instance(of: app) else { throw AudioTestFailure("not running") }
        return instance.context
    }

    @Test(
        "The audio mode holds a background app while its session is active and a player plays, and lets go at the clip's end: suspended suspensionDelay later",
        arguments: PhoneProfile.all)
    func keepAlive(profile: PhoneProfile) async throws {
        let radio = VirtualRadio()
        let trace = try await radio.simulation.run {
            let world = await PhoneWorld.make(profile, radio: radio)
            let app = await world.install(Self.bundle, modes: [.audio])
            await world.phone.open(app)
            try await world.at(5)
            let context = try await Self.context(world, app)
            try await context.audioSession.setCategory(.playback)
            let player = AVAudioPlayer(clip: AudioClip(name: "song", duration: .seconds(60)), context: context)
            #expect(await player.play())
            try await world.at(10)
            await world.phone.home()
            try await world.at(64)
            #expect(await world.phone.state(of: app) == .background)
            try await world.at(100)
            return await Self.audioTrace(world, app)
        }
        #expect(trace.contains("audioKeepAliveStarted audio mode keeps the app running (active and playing)@5"))
        #expect(trace.contains("audioPlaybackEnded player 1 stops: finished@65"))
        #expect(trace.contains("audioKeepAliveEnded audio mode no longer holds the app@65"))
        #expect(trace.filter { $0.hasPrefix("suspended") } == ["suspended@66"])
    }

    @Test(
        "Without the audio mode, background playback stops at suspension (suspensionDelay after leaving the screen)",
        arguments: PhoneProfile.all)
    func noModeStopsAtSuspension(profile: PhoneProfile) async throws {
        let radio = VirtualRadio()
        let trace = try await radio.simulation.run {
            let world = await PhoneWorld.make(profile, radio: radio)
            let app = await world.install(Self.bundle)
            await world.phone.open(app)
            try await world.at(5)
            let context = try await Self.context(world, app)
            try await context.audioSession.setCategory(.playback)
            #expect(await AVAudioPlayer(clip: AudioClip(name: "song", duration: .seconds(60)), context: context).play())
            try await world.at(10)
            await world.phone.home()
            try await world.at(30)
            return await Self.audioTrace(world, app)
        }
        #expect(!trace.contains { $0.hasPrefix("audioKeepAliveStarted") })
        #expect(trace.contains("suspended@11"))
        #expect(trace.contains("audioPlaybackEnded player 1 stops: suspended@11"))
        // iOS 10+: the session goes too (phone-rules.md); before, it stayed active.
        let deactivated = trace.contains("audioDeactivated audio session deactivated by the system: app suspended@11")
        #expect(deactivated == profile.deactivatesAudioSessionOnSuspension)
    }

    @Test(
        "rejectSilentAudio: a looping silent clip does not hold the app (rejection traced); it is suspended as if it did not play",
        arguments: [AudioReviewPolicy.rejectSilentAudio, .allowSilentAudio])
    func silentAudio(policy: AudioReviewPolicy) async throws {
        let radio = VirtualRadio()
        let (trace, state) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            await world.phone.setAudioReviewPolicy(policy)
            let app = await world.install(Self.bundle, modes: [.audio])
            await world.phone.open(app)
            try await world.at(5)
            let context = try await Self.context(world, app)
            try await context.audioSession.setCategory(.playback, options: .mixWithOthers)
            let silence = AudioClip(name: "silence", duration: .seconds(1), isSilent: true)
            #expect(await AVAudioPlayer(clip: silence, context: context, numberOfLoops: -1).play())
            try await world.at(10)
            await world.phone.home()
            try await world.at(3_600)
            return (await Self.audioTrace(world, app), await world.phone.state(of: app))
        }
        switch policy {
        case .rejectSilentAudio:
            #expect(trace.contains { $0.hasPrefix("audioSilenceRejected") && $0.hasSuffix("@5") })
            #expect(!trace.contains { $0.hasPrefix("audioKeepAliveStarted") })
            #expect(state == .suspended)
        case .allowSilentAudio:
            #expect(!trace.contains { $0.hasPrefix("audioSilenceRejected") })
            #expect(state == .background)
        }
    }

    @Test(
        "Interruption notifications run on the app's executor: a suspended app gets the call's began and ended when it runs again, in order"
    )
    func notificationsWhileSuspended() async throws {
        let radio = VirtualRadio()
        let log = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios6, radio: radio)
            let app = await world.install(Self.bundle)
            await world.phone.open(app)
            try await world.at(5)
            let context = try await Self.context(world, app)
            let log = world.log
            await context.audioSession.addNotificationHandler { notification in log.add(Self.name(notification)) }
            // iOS 6 keeps the session of a suspended app active: the call interrupts it.
            try await context.audioSession.setCategory(.ambient)
            try await context.audioSession.setActive(true)
            await world.phone.home()
            try await world.at(20)
            await world.phone.beginAudioInterruption(.phoneCall)
            try await world.at(40)
            await world.phone.endAudioInterruption(.shouldResume)
            try await world.at(50)
            #expect(await world.phone.state(of: app) == .suspended)
            await world.phone.open(app)
            try await world.at(51)
            return world.log.all
        }
        #expect(
            log.filter { $0.hasPrefix("interruption") } == [
                "interruption began default@50", "interruption ended true@50",
            ])
    }

    @Test(
        "iOS 10+: the session deactivated at suspension is told as an interruption (appWasSuspended) when the app runs again; the ducked music comes back at suspension"
    )
    func deactivatedAtSuspension() async throws {
        let radio = VirtualRadio()
        let (log, trace) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install(Self.bundle)
            await world.phone.startMusic()
            await world.phone.open(app)
            try await world.at(5)
            let context = try await Self.context(world, app)
            let log = world.log
            await context.audioSession.addNotificationHandler { notification in log.add(Self.name(notification)) }
            try await context.audioSession.setCategory(.playback, options: .duckOthers)
            try await context.audioSession.setActive(true)
            #expect(await world.phone.isMusicDucked)
            await world.phone.home()
            try await world.at(30)
            await world.phone.open(app)
            try await world.at(31)
            return (world.log.all, await Self.audioTrace(world, nil))
        }
        #expect(trace.contains("music music ducked@5"))
        #expect(trace.contains("audioDeactivated audio session deactivated by the system: app suspended@6"))
        #expect(trace.contains("music music restored@6"))
        #expect(
            log.filter { $0.hasPrefix("interruption") } == [
                "interruption began app_was_suspended@30"
            ])
    }

    @Test(
        "A route change reaches the app: the headset over A2DP connected, then gone (oldDeviceUnavailable, the music paused); currentRoute follows"
    )
    func routeChange() async throws {
        let radio = VirtualRadio()
        let (log, routes, music) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install(Self.bundle)
            await world.phone.startMusic()
            await world.phone.open(app)
            try await world.at(1)
            let context = try await Self.context(world, app)
            let log = world.log
            await context.audioSession.addNotificationHandler { notification in
                if case .routeChange(let reason, _) = notification { log.add(reason.rawValue) }
            }
            try await context.audioSession.setCategory(.ambient)
            var routes: [AVAudioSession.Port] = []
            await world.phone.connectAudioRoute(.bluetoothA2DP(name: "Headset"))
            routes += await context.audioSession.currentRoute.outputs.map(\.portType)
            try await world.at(2)
            await world.phone.connectAudioRoute(.builtInSpeaker)
            routes += await context.audioSession.currentRoute.outputs.map(\.portType)
            try await world.at(3)
            return (world.log.all, routes, await world.phone.musicState)
        }
        #expect(log.filter { $0.contains("device") } == ["new_device_available@1", "old_device_unavailable@2"])
        #expect(routes == [.bluetoothA2DP, .builtInSpeaker])
        #expect(music == .stopped)
    }
}

struct AudioTestFailure: Error {
    let description: String
    init(_ description: String) { self.description = description }
}
