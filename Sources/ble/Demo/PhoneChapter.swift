import BLE
import BLEController
import BLEDevices
import BLEPhone
import BLESimulation
import BLETransport
import BLECompanion
import Foundation

/// The demo's second chapter: the same kind of headset and its app on a simulated iPhone (the
/// iOS 17 profile), where the app's real code meets the rules iOS applies in the background —
/// suspension, queued events, Bluetooth wakes, a background task's budget, a kill under memory
/// pressure and the relaunch by state restoration, and a force-quit after which nothing
/// relaunches it (docs/phone-runtime.md; the facts in the reference's phone-rules.md).
struct PhoneChapter {
    /// The foreground-only app and the one with `bluetooth-central` and state restoration.
    static let lite = AppIdentifier("com.example.headset.lite")
    static let full = AppIdentifier(HeadsetAppConfiguration.bundleIdentifier)

    let timelinePath: String?

    struct Figures {
        var queuedAtReopen = 0
        var deliveredInOrder = true
        var wakes = 0
        var jobRuns = 0
        var appTimerFirings = 0
        var relaunches = 0
        var denied = 0
        /// E: the firmware file shared to the app.
        var sheetApps: [String] = []
        var firmwareVersion = ""
        var firmwareUpdatesStarted = 0
        var firmwareUpdatesCompleted = 0
        var headsetVersion = ""
        /// F: overnight update checks while charging, and when the first ran.
        var updateChecks = 0
        var firstCheckAt: VirtualInstant?
        var wall = Duration.zero
        var end = VirtualInstant.zero
    }

    func tell() async throws {
        if let timelinePath {
            do { try FileAccess.checkReplaceable(timelinePath) } catch { throw CommandFailure("cannot write \(error)") }
        }
        let radio = VirtualRadio()
        let simulation = radio.simulation
        let log = StoryLog(simulation: simulation)
        print("")
        print("Chapter 2 — the app on a simulated iPhone (iOS 17 rules, virtual time)\n")
        let wallStart = ContinuousClock.now
        let (figures, trace) = try await simulation.run {
            try await Self.story(radio: radio, log: log)
        }
        let wall = wallStart.duration(to: .now)
        print("")
        print("Summary of chapter 2")
        print("  foreground-only   \(figures.queuedAtReopen) events waited while suspended, delivered in order: "
            + "\(figures.deliveredInOrder ? "yes" : "NO")")
        print("  bluetooth-central \(figures.wakes) wakes in 10 min; the device-driven job ran \(figures.jobRuns) times, "
            + "the app's own 30 s timer \(figures.appTimerFirings) times (20 had it kept running)")
        print("  restoration       \(figures.relaunches) relaunch after the memory-pressure kill; "
            + "\(figures.denied) relaunch denied after the force-quit")
        print("  Open in…          the share sheet offered \(figures.sheetApps.joined(separator: ", ")); firmware "
            + "\(figures.firmwareVersion) confirmed by the user, \(figures.firmwareUpdatesCompleted) of "
            + "\(figures.firmwareUpdatesStarted) update completed, the headset now runs \(figures.headsetVersion)")
        let checkTime =
            figures.firstCheckAt.map {
                HeartRateDemo.format(HeartRateDemo.seconds(VirtualInstant.zero.duration(to: $0)), digits: 1) + " s"
            } ?? "never"
        print("  overnight         \(figures.updateChecks) BGProcessing update check(s) once locked on the charger, "
            + "the first at \(checkTime)")
        print("  time              \(HeartRateDemo.format(HeartRateDemo.seconds(VirtualInstant.zero.duration(to: figures.end)), digits: 1)) s virtual "
            + "in \(HeartRateDemo.format(HeartRateDemo.seconds(wall), digits: 3)) s of wall time")
        if let timelinePath {
            let picture = PhoneTimelineSVG().render(trace, end: figures.end)
            do {
                try FileAccess.writeAtomically(Array(picture.utf8), to: timelinePath)
            } catch {
                throw CommandFailure("cannot write \(error)")
            }
            print("Wrote the phone's timeline (a band per app state, its Bluetooth events) to \(timelinePath).")
        } else {
            print("(ble demo --timeline FILE.svg draws the phone's timeline.)")
        }
    }

    static func story(radio: VirtualRadio, log: StoryLog) async throws -> (Figures, [PhoneTraceEntry]) {
        let clock = radio.simulation.clock
        var figures = Figures()
        let headset = try await VirtualHeadset.start(
            on: radio, configuration: VirtualHeadsetConfiguration(heartbeatPeriod: .seconds(5)))
        log.say("headset: advertising, a heartbeat every 5 s")
        // The apps' containers (a shared file is copied into Documents/Inbox), removed at the end.
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent(
            "swift-ble-demo-phone-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: storage) }
        let phone = await Phone(profile: .ios17, radio: radio, position: AirPosition(x: 2), storageRoot: storage)
        let liteObserver = HeadsetAppObserver()
        let fullObserver = HeadsetAppObserver()
        var lite = HeadsetAppConfiguration.foregroundOnly()
        lite.declaration.bundleIdentifier = Self.lite.bundleIdentifier
        var full = HeadsetAppConfiguration.bluetoothCentral().checkingForUpdates()
        full.heartbeatPeriodSeconds = 60
        full.jobEveryTicks = 1
        full.syncsInBackground = true
        let (liteApp, fullApp) = (lite, full)
        await phone.install(liteApp.declaration) { HeadsetPhoneApp(context: $0, configuration: liteApp, observer: liteObserver) }
        await phone.install(fullApp.declaration) { HeadsetPhoneApp(context: $0, configuration: fullApp, observer: fullObserver) }
        func at(_ seconds: Int) async throws { try await clock.sleep(until: VirtualInstant.zero.advanced(by: .seconds(seconds))) }

        // A. A foreground-only app misses the headset's events until it is opened again.
        try await at(1)
        await phone.open(Self.lite)
        log.say("phone: the user opens the lite app (no background modes); it connects and subscribes")
        try await at(20)
        log.say("lite app: \(liteObserver.counts.heartbeats) heartbeats so far; the user goes to the home screen")
        await phone.home()
        try await at(22)
        log.say("lite app: \(await phone.state(of: Self.lite)) — no code runs, its events wait in the phone")
        let seenBefore = liteObserver.counts.heartbeats
        try await at(80)
        figures.queuedAtReopen = await phone.trace.filter {
            if case .eventQueued = $0.event { $0.app == Self.lite } else { false }
        }.count
        await phone.open(Self.lite)
        try await at(81)
        figures.deliveredInOrder = liteObserver.counts.heartbeatsOutOfOrder == 0
        log.say(
            "phone: the user opens it again: \(figures.queuedAtReopen) queued events delivered in order; "
                + "heartbeats seen \(seenBefore) → \(liteObserver.counts.heartbeats)")
        await phone.forceQuit(Self.lite)
        log.say("phone: the user swipes the lite app away")

        // B. With bluetooth-central, the heartbeat wakes the app; its own timer stands while suspended.
        try await at(100)
        await phone.open(Self.full)
        log.say("phone: the user opens the headset app (bluetooth-central, state restoration); it asks for a "
            + "heartbeat every 60 s")
        try await at(120)
        await phone.home()
        log.say("phone: home — the app begins a background task \"sync\" and keeps it as long as iOS allows")
        try await at(150)
        let expired = fullObserver.counts.expiredTasks
        log.say("headset app: the task's expiration handler ran (\(expired)) 5 s before the 30 s budget; the app is "
            + "\(await phone.state(of: Self.full))")
        let before = (fullObserver.counts, await phone.counters.wakes)
        try await at(750)
        let after = fullObserver.counts
        figures.wakes = await phone.counters.wakes - before.1
        figures.jobRuns = after.jobRuns - before.0.jobRuns
        figures.appTimerFirings = after.appTimerFirings - before.0.appTimerFirings
        log.say("headset app: 10 min in the background: \(figures.wakes) wakes by the heartbeat, the device-driven "
            + "job ran \(figures.jobRuns) times, the app's own timer \(figures.appTimerFirings) times")

        // C. Killed under memory pressure, relaunched by state restoration when the headset notifies.
        await phone.memoryPressure(Self.full)
        log.say("phone: memory pressure — the suspended app is purged (no callback); the system keeps its link")
        try await at(830)
        figures.relaunches = await phone.counters.relaunches
        log.say("phone: the next heartbeat relaunched it in the background (\(figures.relaunches)); "
            + "restorations: \(fullObserver.counts.restorations), heartbeats handled since: "
            + "\(fullObserver.counts.heartbeats - after.heartbeats)")

        // D. After a force-quit nothing relaunches it (TN3115).
        await phone.forceQuit(Self.full)
        log.say("phone: the user swipes the headset app away")
        try await at(960)
        figures.denied = await phone.counters.relaunchesDenied
        log.say("phone: heartbeats kept coming; relaunches denied: \(figures.denied) — the app stays closed")

        // E. A new firmware arrives by mail: "Open in…" the headset app, recognised, confirmed.
        try await at(1000)
        await phone.open(Self.full)
        log.say("phone: the user opens the headset app again (a user launch; it reconnects)")
        try await at(1030)
        let firmware = IntelHexImage.encoded(HeadsetDemo.firmwareBytes(count: 48 * 1024, seed: 21), at: 0x0800_0000)
        let sheet = try await phone.share(Array(firmware.utf8), named: "headset-2.1.0.hex")
        figures.sheetApps = sheet.apps.map(\.bundleIdentifier)
        log.say(
            "mail: headset-2.1.0.hex (Intel HEX) shared; the share sheet lists "
                + figures.sheetApps.joined(separator: ", "))
        try await phone.openIn(Self.full, from: sheet)
        try await at(1032)
        if let prompt = await phone.prompts.first {
            log.say("headset app: \"\(prompt.alert.title)\" \(prompt.alert.message)")
            try await phone.respondToPrompt(prompt.id, choosing: HeadsetPhoneApp.updateAction)
            log.say("phone: the user taps \(HeadsetPhoneApp.updateAction)")
        } else {
            log.say("headset app: no prompt was shown")
        }
        try await at(1200)
        figures.firmwareVersion = fullObserver.counts.lastFirmwareVersion?.description ?? "none"
        figures.firmwareUpdatesStarted = fullObserver.counts.firmwareUpdatesStarted
        figures.firmwareUpdatesCompleted = fullObserver.counts.firmwareUpdatesCompleted
        figures.headsetVersion = headset.flash.activeVersion.description
        log.say(
            "headset app: \(figures.firmwareUpdatesCompleted) update completed over the phone's Bluetooth; "
                + "the headset runs \(figures.headsetVersion)")

        // F. Overnight on the charger: the BGProcessing update check runs while the phone is locked.
        await phone.home()
        await phone.lock()
        await phone.updateConditions { $0.charging = true }
        log.say("phone: home, locked, on the charger for the night (Wi-Fi on); the hour that follows:")
        try await at(1200 + 3600)
        figures.updateChecks = fullObserver.counts.updateChecks
        figures.firstCheckAt = await phone.trace.first {
            if case .scheduledTask(.started) = $0.event, $0.app == Self.full { true } else { false }
        }?.time
        log.say("phone: \(figures.updateChecks) update check(s) ran on power (BGProcessingTask, locked and charging)")
        figures.end = clock.now
        let trace = await phone.trace
        await headset.stop()
        await headset.manager.close()
        return (figures, trace)
    }
}
