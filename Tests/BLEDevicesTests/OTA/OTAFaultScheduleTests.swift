import BLE
import BLECompanion
import BLEDevices
import BLELocking
import BLESimulation
import Testing

@Suite("OTA under 1,000 randomized fault schedules")
struct OTAFaultScheduleTests {
    /// What one schedule did, for the totals.
    struct Tally: Sendable {
        var schedules = 0
        var engineRuns = 0
        var successes = 0
        var failures: [String: Int] = [:]
        var endedOnNewImage = 0
        var endedOnOldImage = 0
        var drops = 0
        var corruptions = 0
        var linkLosses = 0
        var deviceRestarts = 0
        var powerCuts = 0
        var appKills = 0
        var packetsBuffered = 0
        var bufferOverflows = 0
        var selectiveReports = 0
        var goBackNSchedules = 0
        var virtualTime: Duration = .zero
    }

    /// Each schedule: a random image size, payload, acknowledgement window, staging-record
    /// interval and reorder buffer (none: v1 go-back-N; a few packets, so lost and delayed
    /// reports overflow it; or 64), random fault rates and report delay, one to four app runs
    /// (each may be killed at a random moment, the app restarted);
    /// after each run the device must run its old image or the complete new one, and after a
    /// reported success exactly the new one. Then, faults off, one more run must install it.
    @Test("1,000 seeded fault schedules never leave the device on anything but its old image or the complete new one")
    func randomizedSchedules() async throws {
        let simulation = Simulation()
        let tally = TallyBox()
        try await simulation.run {
            for seed in UInt64(1)...1000 {
                let start = simulation.clock.now
                try await Self.runSchedule(seed: seed, simulation: simulation, tally: tally)
                tally.withLock {
                    $0.schedules += 1
                    $0.virtualTime += start.duration(to: simulation.clock.now)
                }
            }
        }
        let totals = tally.withLock { $0 }
        #expect(totals.schedules == 1000)
        #expect(totals.endedOnNewImage + totals.endedOnOldImage == totals.engineRuns)
        // The schedules exercise every fault, and the engine gets through most of them.
        #expect(totals.drops > 0 && totals.corruptions > 0 && totals.linkLosses > 0)
        #expect(totals.deviceRestarts > 0 && totals.powerCuts > 0 && totals.appKills > 0)
        #expect(totals.successes > (totals.engineRuns - totals.appKills) / 2)
        // Both repeat strategies run: packets held past gaps, resent one by one, and overflows
        // that fall back to go-back-N; and schedules with no reorder buffer at all.
        #expect(totals.packetsBuffered > 0 && totals.selectiveReports > 0 && totals.bufferOverflows > 0)
        #expect(totals.goBackNSchedules > 0)
        print(
            "OTA fault schedules: \(totals.schedules) schedules, \(totals.engineRuns) faulty runs, "
                + "\(totals.successes) succeeded, failures \(totals.failures.sorted { $0.key < $1.key }), "
                + "faults: \(totals.drops) drops, \(totals.corruptions) corruptions, \(totals.linkLosses) link losses, "
                + "\(totals.deviceRestarts) device restarts (\(totals.powerCuts) power cuts), "
                + "\(totals.appKills) app kills; selective repeat: \(totals.packetsBuffered) packets buffered, "
                + "\(totals.selectiveReports) single-packet reports, \(totals.bufferOverflows) overflows, "
                + "\(totals.goBackNSchedules) schedules go-back-N only; virtual time \(totals.virtualTime)")
    }

    static func runSchedule(seed: UInt64, simulation: Simulation, tally: TallyBox) async throws {
        var random = SeededRandomGenerator(seed: seed &* 0x1000_0001)
        let oldImage = try FirmwareImage.random(
            size: Int.random(in: 200...3000, using: &random), version: "1.0.0", seed: seed)
        let newImage = try FirmwareImage.random(
            size: Int.random(in: 500...6000, using: &random), version: "2.0.\(seed % 256)", seed: seed &+ 77_777)
        let faults = FlashLoopbackTarget.Faults(
            drop: Double.random(in: 0...0.08, using: &random),
            corrupt: Double.random(in: 0...0.08, using: &random),
            reportLoss: Double.random(in: 0...0.5, using: &random),
            linkLoss: Double.random(in: 0...0.03, using: &random),
            statusTimeout: Double.random(in: 0...0.1, using: &random),
            deviceRestart: Double.random(in: 0...0.02, using: &random),
            powerCut: Double.random(in: 0...0.03, using: &random),
            reconnectFailure: Double.random(in: 0...0.3, using: &random),
            reportDelay: Int.random(in: 0...40, using: &random))
        let reorderBufferCapacity = [0, Int.random(in: 1...8, using: &random), 64].randomElement(using: &random) ?? 0
        let window = Bool.random(using: &random) ? Int.random(in: 2...16, using: &random) : nil
        let configuration = OTAConfiguration(
            acknowledgementWindow: window, idleTimeout: .seconds(10), overallTimeout: .seconds(120),
            maximumRecoveries: Int.random(in: 2...10, using: &random))
        let target = try FlashLoopbackTarget(
            storage: MemoryFlashStorage(), factoryImage: oldImage,
            flashConfiguration: .init(
                stagingRecordInterval: Int.random(in: 1...4, using: &random),
                reorderBufferCapacity: reorderBufferCapacity),
            clock: simulation.clock,
            payload: Int.random(in: 20...244, using: &random), faults: faults, seed: seed)

        let packetizer = try OTAPacketizer(image: newImage, packetSize: target.payload)
        let runs = Int.random(in: 1...4, using: &random)
        for run in 0..<runs {
            if run > 0 { target.appRestarted() }
            let kill: Duration? =
                Bool.random(using: &random) ? .milliseconds(Int.random(in: 1...60, using: &random)) : nil
            let outcome = await OTAEngineFlashTests.runEngine(
                newImage, target, simulation, configuration: configuration, killAfter: kill)
            // Whatever is staged is a prefix of the new image: nothing written out of order or bad.
            if case .receiving(let next, _) = target.flash.status() {
                let staged = try? target.flash.crc32OfStagedPackets(next)
                #expect(staged == nil || staged == packetizer.crc32OfPackets(next), "seed \(seed): staged bytes")
            }
            let running = try target.flash.activeImageBytes()
            let onNew = running == newImage.bytes
            #expect(onNew || running == oldImage.bytes, "seed \(seed): the device runs neither image")
            if outcome.failure == nil {
                #expect(
                    FirmwareDigest.sha256(running) == newImage.sha256, "seed \(seed): success without the new image")
            }
            tally.withLock { tally in
                tally.engineRuns += 1
                if onNew { tally.endedOnNewImage += 1 } else if running == oldImage.bytes { tally.endedOnOldImage += 1 }
                switch outcome.failure {
                case nil: tally.successes += 1
                case .cancelled: tally.appKills += 1
                case let failure?: tally.failures[Self.kind(failure), default: 0] += 1
                }
            }
        }

        let counters = target.counters
        tally.withLock { tally in
            tally.drops += counters.drops
            tally.corruptions += counters.corruptions
            tally.linkLosses += counters.linkLosses
            tally.deviceRestarts += counters.deviceRestarts
            tally.powerCuts += counters.powerCuts
            tally.packetsBuffered += counters.packetsBuffered
            tally.bufferOverflows += counters.bufferOverflows
            tally.selectiveReports += counters.selectiveReports
            if reorderBufferCapacity == 0 { tally.goBackNSchedules += 1 }
        }

        // The device reboots (whatever power state the last fault left), the faults stop, and a
        // new app run finishes the update from wherever it stands.
        target.restartDevice()
        let afterReboot = try target.flash.activeImageBytes()
        #expect(afterReboot == oldImage.bytes || afterReboot == newImage.bytes, "seed \(seed): after reboot")
        target.setFaults(.none)
        target.appRestarted()
        let final = await OTAEngineFlashTests.runEngine(newImage, target, simulation, configuration: configuration)
        #expect(final.failure == nil, "seed \(seed): the clean run failed: \(String(describing: final.failure))")
        #expect(try target.flash.activeImageBytes() == newImage.bytes, "seed \(seed): not installed")
    }

    static func kind(_ failure: OTAFailure) -> String {
        switch failure {
        case .refused: "refused"
        case .commitFailed: "commitFailed"
        case .recoveryLimit: "recoveryLimit"
        case .transmissionLimit: "transmissionLimit"
        case .idleTimeout: "idleTimeout"
        case .overallTimeout: "overallTimeout"
        case .aborted: "aborted"
        case .cancelled: "cancelled"
        case .payloadTooSmall: "payloadTooSmall"
        case .imageTooLarge: "imageTooLarge"
        case .protocolViolation: "protocolViolation"
        }
    }
}

/// The totals, shared by the schedules (a class, so the simulation's closure can hold it).
final class TallyBox: Sendable {
    private let tally = Locked(OTAFaultScheduleTests.Tally())

    func withLock<T>(_ body: (inout OTAFaultScheduleTests.Tally) -> T) -> T {
        tally.withLock { body(&$0) }
    }
}
