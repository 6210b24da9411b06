import BLE
import BLECompanion
import BLEController
import BLEDevices
import BLEPhone
import BLESimulation
import Foundation
import Testing

/// The headset app runs the firmware update itself: a firmware file shared to it ("Open in…"),
/// confirmed by the user, goes to a `VirtualHeadset` over the phone's Core Bluetooth (the OTA
/// engine on the headset protocol's binding, `DeviceChunkLink.phone`), and the headset restarts
/// on the new version. Every time is virtual.
@Suite("Headset app: firmware update over the phone's Bluetooth")
struct HeadsetPhoneOTAE2ETests {
    static let app = AppIdentifier(HeadsetAppConfiguration.bundleIdentifier)
    /// 16 KiB: a few hundred packets, quick on the virtual radio.
    static let image = Self.image(kibibytes: 16)

    static func image(kibibytes: Int) -> [UInt8] {
        (0..<kibibytes * 1024).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }

    struct Result: Sendable {
        var version: String
        var notes: [String]
        var backgroundTasks: [String]
        var backgroundTasksEnded: [String]
        /// Virtual time from the note "started" to the note "finished", when both were noted.
        var updateDuration: Duration?
        /// The app's state when the update finished.
        var stateAtFinish: AppState?
        /// Heartbeats the headset sent (`heartbeat` set).
        var heartbeatsSent: Int
    }

    /// A phone of `profile` with the headset app open and subscribed to a headset 2 m away; the
    /// file `name` shared to the app, the alert answered with `action`; `afterAnswer` runs right
    /// after the answer (a Home press, say); then `wait` of virtual time passes.
    func run(
        _ profile: PhoneProfile = .ios17, configuration: HeadsetAppConfiguration = .bluetoothCentral(),
        headset headsetConfiguration: VirtualHeadsetConfiguration = VirtualHeadsetConfiguration(heartbeatPeriod: nil),
        heartbeat: Duration? = nil,
        sharing name: String = "headset-2.0.0.bin", image: [UInt8] = Self.image, answer action: String,
        wait: Duration = .seconds(120), afterAnswer: @escaping @Sendable (Phone, VirtualRadio) async throws -> Void = { _, _ in }
    ) async throws -> (HeadsetAppObserver, Result) {
        let radio = VirtualRadio()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("headset-ota-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let observer = HeadsetAppObserver()
        let result = try await radio.simulation.run {
            let headset = try await VirtualHeadset.start(
                on: radio, position: AirPosition(x: 2, y: 0, z: 0),
                configuration: headsetConfiguration)
            let phone = await Phone(profile: profile, radio: radio, storageRoot: root)
            await phone.install(configuration.declaration) { context in
                HeadsetPhoneApp(context: context, configuration: configuration, observer: observer)
            }
            await phone.open(Self.app)
            try await radio.simulation.clock.sleep(for: .seconds(5))
            guard observer.counts.connections == 1 else {
                await headset.stop()
                throw E2EFailure("the headset app did not connect")
            }
            try await phone.openIn(Self.app, from: try await phone.share(image, named: name))
            try await radio.simulation.clock.sleep(for: .seconds(2))
            headset.setHeartbeat(heartbeat)
            try await phone.respondToPrompt(choosing: action)
            try await afterAnswer(phone, radio)
            try await radio.simulation.clock.sleep(for: wait)
            headset.setHeartbeat(nil)
            try await radio.simulation.clock.sleep(for: .seconds(2))
            let version = headset.flash.activeVersion
            await headset.stop()
            let trace = await phone.trace.filter { $0.app == Self.app }
            func noteTime(_ prefix: String) -> VirtualInstant? {
                trace.first { if case .note(let text) = $0.event { text.hasPrefix(prefix) } else { false } }?.time
            }
            let started = noteTime("firmware update to 2.0.0 started")
            let finished = noteTime("firmware update to 2.0.0 finished")
            var state: AppState?
            for entry in trace where finished.map({ entry.time <= $0 }) ?? false {
                if case .stateChanged(_, let to) = entry.event { state = to }
            }
            return Result(
                version: version,
                notes: trace.compactMap { if case .note(let text) = $0.event { text } else { nil } },
                backgroundTasks: trace.compactMap { entry in
                    if case .backgroundTaskBegan(_, let name?) = entry.event { name } else { nil }
                },
                backgroundTasksEnded: trace.compactMap { entry in
                    if case .backgroundTaskEnded(_, let name?) = entry.event { name } else { nil }
                },
                updateDuration: started.flatMap { start in finished.map { start.duration(to: $0) } },
                stateAtFinish: finished == nil ? nil : state, heartbeatsSent: headset.statistics.heartbeatsSent)
        }
        return (observer, result)
    }

    @Test("Update: the app sends the image over its own link; the headset ends on 2.0.0; one update completed")
    func updateInstalls() async throws {
        let (observer, result) = try await run(answer: HeadsetPhoneApp.updateAction)
        #expect(result.version == "2.0.0")
        #expect(observer.counts.firmwareUpdatesStarted == 1)
        #expect(observer.counts.firmwareUpdatesCompleted == 1)
        #expect(observer.counts.firmwareUpdatesFailed == 0)
        #expect(result.notes.contains { $0.hasPrefix("firmware update to 2.0.0 finished: installed") })
        // Around the update, a background task (UIApplication beginBackgroundTask(withName:)).
        #expect(result.backgroundTasks == ["firmware update"])
        #expect(result.stateAtFinish == .active)
        // 16 KiB over the virtual radio's link: seconds, well inside the run's 120 s.
        let duration = try #require(result.updateDuration)
        #expect(duration > .zero && duration < .seconds(60), "\(duration)")
    }

    @Test(
        "A Home press right after Update: an app without background modes runs on in its background task (UIApplication beginBackgroundTask) and completes"
    )
    func updateSurvivesHomePress() async throws {
        // 96 KiB: about 1.8 s on the link, longer than the 1 s between leaving the screen and
        // suspension (PhoneProfile.suspensionDelay), so only the task keeps the app running.
        let (observer, result) = try await run(
            configuration: .foregroundOnly(), image: Self.image(kibibytes: 96), answer: HeadsetPhoneApp.updateAction
        ) { phone, _ in await phone.home() }
        #expect(result.version == "2.0.0")
        #expect(observer.counts.firmwareUpdatesCompleted == 1)
        #expect(observer.counts.expiredTasks == 0)
        #expect(result.backgroundTasksEnded == ["firmware update"])
        // Finished in the background, inside the budget (30 s on iOS 17: phone-rules.md).
        #expect(result.stateAtFinish == .background)
        let duration = try #require(result.updateDuration)
        #expect(duration > .seconds(1) && duration < .seconds(30), "\(duration)")
    }

    @Test(
        "The headset walks out of range mid-update: the app connects again, the engine resumes from the headset's status, the update completes"
    )
    func updateSurvivesLinkLoss() async throws {
        let (observer, result) = try await run(image: Self.image(kibibytes: 96), answer: HeadsetPhoneApp.updateAction) {
            _, radio in
            try await radio.simulation.clock.sleep(for: .seconds(1))
            // The headset is the air's first radio: out of range past the supervision timeout.
            let headset = await radio.withAir { air -> AirRadioID? in
                guard let id = air.radioIDs.first else { return nil }
                air.move(id, to: AirPosition(x: 100_000, y: 0, z: 0))
                return id
            }
            let away = try #require(headset)
            try await radio.simulation.clock.sleep(for: .seconds(8))
            await radio.withAir { air in air.move(away, to: AirPosition(x: 2, y: 0, z: 0)) }
        }
        #expect(result.version == "2.0.0")
        #expect(observer.counts.connections == 2)
        #expect(observer.counts.firmwareUpdatesCompleted == 1)
        #expect(observer.counts.firmwareUpdatesFailed == 0)
        let finished = try #require(result.notes.first { $0.hasPrefix("firmware update to 2.0.0 finished") })
        #expect(finished.hasPrefix("firmware update to 2.0.0 finished: installed") && !finished.contains(" 0 recoveries"))
        // Stood through the outage (8 s), then went on.
        #expect(try #require(result.updateDuration) > .seconds(8))
    }

    @Test(
        "During the update the app stays the one reader: heartbeats sent meanwhile reach the app through the update's link"
    )
    func heartbeatsDuringUpdate() async throws {
        let (observer, result) = try await run(
            heartbeat: .milliseconds(100), answer: HeadsetPhoneApp.updateAction, wait: .seconds(10))
        #expect(observer.counts.firmwareUpdatesCompleted == 1)
        // Some heartbeats went out while the update ran (it takes about 0.5 s) …
        let duration = try #require(result.updateDuration)
        #expect(duration > .milliseconds(300))
        // … and every one reached the app, in order.
        #expect(result.heartbeatsSent > 0)
        #expect(observer.counts.heartbeats == result.heartbeatsSent)
        #expect(observer.counts.heartbeatsOutOfOrder == 0)
    }

    @Test("A headset that refuses (battery too low) ends the update as failed: counted and noted, the version stays")
    func refusedUpdateFails() async throws {
        let (observer, result) = try await run(
            headset: VirtualHeadsetConfiguration(batteryLevel: 5, heartbeatPeriod: nil),
            answer: HeadsetPhoneApp.updateAction, wait: .seconds(30))
        #expect(result.version == "1.0.0")
        #expect(observer.counts.firmwareUpdatesStarted == 1)
        #expect(observer.counts.firmwareUpdatesFailed == 1)
        #expect(observer.counts.firmwareUpdatesCompleted == 0)
        #expect(result.notes.contains { $0.hasPrefix("firmware update to 2.0.0 finished: failed: the device refused") })
        #expect(result.backgroundTasksEnded == ["firmware update"])
    }

    @Test("Cancel: nothing is sent; the headset stays on 1.0.0")
    func declineSendsNothing() async throws {
        let (observer, result) = try await run(answer: HeadsetPhoneApp.cancelAction, wait: .seconds(30))
        #expect(result.version == "1.0.0")
        #expect(observer.counts.firmwareUpdatesDeclined == 1)
        #expect(observer.counts.firmwareUpdatesStarted == 0)
        #expect(observer.counts.firmwareUpdatesCompleted == 0)
        #expect(result.backgroundTasks.isEmpty)
    }
}
