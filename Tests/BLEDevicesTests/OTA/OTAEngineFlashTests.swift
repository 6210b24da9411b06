import BLE
import BLECompanion
import BLEDevices
import BLESimulation
import Testing

@Suite("OTA engine against the flash model, with faults")
struct OTAEngineFlashTests {
    let oldImage: FirmwareImage
    let newImage: FirmwareImage

    init() throws {
        oldImage = try .random(size: 4000, version: "1.0.0", seed: 10)
        newImage = try .random(size: 10_000, version: "1.1.0", seed: 11)
    }

    /// One engine run against `target` on `simulation`, killed at `killAfter` when given.
    static func runEngine(
        _ image: FirmwareImage, _ target: FlashLoopbackTarget, _ simulation: Simulation,
        configuration: OTAConfiguration = .init(), killAfter: Duration? = nil
    ) async -> OTAOutcome {
        let engine = OTAEngine(image: image, target: target, configuration: configuration, clock: simulation.clock)
        guard let killAfter else { return await engine.run() }
        return await withTaskGroup(of: OTAOutcome?.self) { group in
            group.addTask { await engine.run() }
            group.addTask {
                try? await simulation.clock.sleep(for: killAfter)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if let first { return first }
            return await group.next().flatMap { $0 } ?? .failed(.cancelled, OTASummary())
        }
    }

    func check(_ target: FlashLoopbackTarget, installed: Bool) throws {
        let running = try target.flash.activeImageBytes()
        #expect(running == (installed ? newImage.bytes : oldImage.bytes))
        #expect(target.flash.activeSHA256 == FirmwareDigest.sha256(running))
    }

    func scenario(
        _ faults: FlashLoopbackTarget.Faults, configuration: OTAConfiguration = .init(), seed: UInt64 = 1
    ) async throws -> (OTAOutcome, FlashLoopbackTarget) {
        let simulation = Simulation()
        let target = try FlashLoopbackTarget(
            storage: MemoryFlashStorage(), factoryImage: oldImage, clock: simulation.clock, faults: faults, seed: seed)
        let image = newImage
        let outcome = try await simulation.run {
            await Self.runEngine(image, target, simulation, configuration: configuration)
        }
        return (outcome, target)
    }

    @Test("Without faults the image goes over once and the device swaps to it")
    func clean() async throws {
        let (outcome, target) = try await scenario(.none)
        #expect(outcome.failure == nil)
        #expect(outcome.summary.packetsSent == 41)
        #expect(outcome.summary.packetsResent == 0)
        #expect(target.flash.statistics.packetsStored == 41)
        try check(target, installed: true)
    }

    @Test("Dropped packets are resent from the number the device reports")
    func droppedPackets() async throws {
        let (outcome, target) = try await scenario(.init(drop: 0.1), seed: 3)
        #expect(outcome.failure == nil)
        #expect(target.counters.drops > 0)
        #expect(outcome.summary.packetsResent > 0)
        try check(target, installed: true)
    }

    @Test("Corrupted packets fail their CRC, write nothing, and are resent")
    func corruptedPackets() async throws {
        let (outcome, target) = try await scenario(.init(corrupt: 0.1), seed: 4)
        #expect(outcome.failure == nil)
        #expect(target.counters.corruptions > 0)
        #expect(target.flash.statistics.packetsRejected > 0)
        try check(target, installed: true)
    }

    @Test("With every resend report lost, windowed acknowledgements still find the gaps")
    func lostReportsWindowed() async throws {
        let (outcome, target) = try await scenario(
            .init(drop: 0.15, reportLoss: 1), configuration: .init(acknowledgementWindow: 8), seed: 5)
        #expect(outcome.failure == nil)
        #expect(target.counters.reportsLost > 0)
        try check(target, installed: true)
    }

    @Test("Link losses: the engine reconnects and resumes from the device's next packet")
    func linkLoss() async throws {
        let (outcome, target) = try await scenario(.init(linkLoss: 0.03), seed: 6)
        #expect(outcome.failure == nil)
        #expect(target.counters.linkLosses > 0)
        #expect(outcome.summary.recoveries == target.counters.linkLosses)
        try check(target, installed: true)
    }

    @Test("Device restarts and power cuts mid-write: the persisted staging resumes")
    func deviceRestarts() async throws {
        let (outcome, target) = try await scenario(.init(deviceRestart: 0.05, powerCut: 0.08), seed: 7)
        #expect(outcome.failure == nil)
        #expect(target.counters.deviceRestarts > 0)
        #expect(target.counters.powerCuts > 0)
        try check(target, installed: true)
    }

    @Test("A killed app's next run resumes from the packet the device reports")
    func appRestart() async throws {
        let simulation = Simulation()
        let target = try FlashLoopbackTarget(
            storage: MemoryFlashStorage(), factoryImage: oldImage, clock: simulation.clock)
        let image = newImage
        let (first, second) = try await simulation.run {
            // 41 packets of 0.7 ms after a 15 ms start: about half are sent by 30 ms.
            let first = await Self.runEngine(image, target, simulation, killAfter: .milliseconds(30))
            target.appRestarted()
            let second = await Self.runEngine(image, target, simulation)
            return (first, second)
        }
        #expect(first.failure == .cancelled)
        try #require(second.failure == nil)
        let resumedAt = try #require(second.summary.resumedFromPacket)
        #expect(resumedAt > 0)
        #expect(resumedAt == first.summary.packetsSent)
        #expect(second.summary.packetsSent == 41 - resumedAt)
        try check(target, installed: true)
    }

    @Test("A refused update (battery too low) leaves the old image")
    func refusedUpdate() async throws {
        let simulation = Simulation()
        let target = try FlashLoopbackTarget(
            storage: MemoryFlashStorage(), factoryImage: oldImage, clock: simulation.clock)
        target.flash.batteryLevel = 10
        let image = newImage
        let outcome = try await simulation.run { await Self.runEngine(image, target, simulation) }
        #expect(outcome.failure == .refused(.batteryTooLow(level: 10, minimum: 20)))
        try check(target, installed: false)
    }

    @Test("An image larger than the slot is refused and the old image stays")
    func oversizedImage() async throws {
        let simulation = Simulation()
        let target = try FlashLoopbackTarget(
            storage: MemoryFlashStorage(), factoryImage: oldImage, flashConfiguration: .init(slotCapacity: 8192),
            clock: simulation.clock)
        let image = newImage
        let outcome = try await simulation.run { await Self.runEngine(image, target, simulation) }
        #expect(outcome.failure == .refused(.imageTooLarge(size: 10_000, capacity: 8192)))
        try check(target, installed: false)
    }
}
