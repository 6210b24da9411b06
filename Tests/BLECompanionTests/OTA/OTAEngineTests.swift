import BLE
import BLECompanion
import BLESimulation
import Testing

@Suite("OTA engine against a scripted device")
struct OTAEngineTests {
    static func image(size: Int = 1000, seed: UInt64 = 1) throws -> FirmwareImage {
        var generator = SeededRandomGenerator(seed: seed)
        return try FirmwareImage(
            bytes: (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }, version: "2.0.0")
    }

    /// Runs one engine on a fresh simulation; `during` runs beside it (reading progress, aborting).
    static func run(
        _ script: ScriptedDevice.Script, image: FirmwareImage, configuration: OTAConfiguration = .init(),
        during: (@Sendable (OTAEngine<ScriptedDevice, VirtualClock>) async -> Void)? = nil
    ) async throws -> (OTAOutcome, ScriptedDevice.Record) {
        let simulation = Simulation()
        let device = ScriptedDevice(script: script, clock: simulation.clock)
        let engine = OTAEngine(image: image, target: device, configuration: configuration, clock: simulation.clock)
        let outcome = try await simulation.run {
            await withTaskGroup(of: OTAOutcome?.self) { group in
                group.addTask { await engine.run() }
                group.addTask {
                    await during?(engine)
                    return nil
                }
                var outcome: OTAOutcome?
                for await result in group where result != nil { outcome = result }
                return outcome ?? .failed(.cancelled, OTASummary())
            }
        }
        return (outcome, device.record.withLock { $0 })
    }

    @Test("Sends every packet once, in order, then commits")
    func cleanTransfer() async throws {
        let image = try Self.image()
        let (outcome, device) = try await Self.run(.init(), image: image)
        #expect(outcome == .succeeded(outcome.summary))
        #expect(device.received == image.bytes)
        #expect(device.committed)
        #expect(outcome.summary.packetsSent == 10)
        #expect(outcome.summary.packetsResent == 0)
        #expect(outcome.summary.resumedFromPacket == 0)
        // One status when everything is sent, before the commit.
        #expect(device.statusCalls == 1)
    }

    @Test("Rewinds to the packet a resend report names")
    func resendReport() async throws {
        let image = try Self.image()
        let (outcome, device) = try await Self.run(.init(dropOnce: [3]), image: image)
        #expect(outcome.failure == nil)
        #expect(device.received == image.bytes)
        #expect(outcome.summary.rewinds >= 1)
        #expect(outcome.summary.packetsResent >= 1)
    }

    @Test("A lost last packet (no report follows it) is found by the final status and resent")
    func lostLastPacket() async throws {
        let image = try Self.image()
        let (outcome, device) = try await Self.run(.init(dropOnce: [9], reportsGaps: false), image: image)
        #expect(outcome.failure == nil)
        #expect(device.received == image.bytes)
        #expect(device.statusCalls == 2)
    }

    @Test("Windowed acknowledgements ask the status every W packets and rewind on a gap")
    func windowedAcknowledgements() async throws {
        let image = try Self.image(size: 2000)
        let configuration = OTAConfiguration(acknowledgementWindow: 4)
        let (outcome, device) = try await Self.run(
            .init(dropOnce: [5], reportsGaps: false), image: image, configuration: configuration)
        #expect(outcome.failure == nil)
        #expect(device.received == image.bytes)
        // 20 packets + 1 resend: a status after every 4th send that is not the last, then the final one.
        #expect(outcome.summary.packetsSent > 20)
        #expect(device.statusCalls >= 5)
    }

    @Test("A refusal ends the run with the device's reason and sends nothing")
    func refusal() async throws {
        let refusal = OTARefusal.batteryTooLow(level: 5, minimum: 20)
        let (outcome, device) = try await Self.run(.init(startAnswer: .refused(refusal)), image: try Self.image())
        #expect(outcome.failure == .refused(refusal))
        #expect(device.sends == 0)
    }

    @Test("The device already running this image is a success without a transfer")
    func alreadyInstalled() async throws {
        let (outcome, device) = try await Self.run(.init(startAnswer: .alreadyInstalled), image: try Self.image())
        #expect(outcome.failure == nil)
        #expect(outcome.summary.alreadyInstalled)
        #expect(device.sends == 0)
    }

    @Test("Idle timeout: a device that stops answering ends the run on the injected clock")
    func idleTimeout() async throws {
        let configuration = OTAConfiguration(idleTimeout: .seconds(5))
        let (outcome, _) = try await Self.run(
            .init(statusHangs: true), image: try Self.image(), configuration: configuration)
        #expect(outcome.failure == .idleTimeout(.seconds(5)))
        #expect(outcome.summary.elapsed >= .seconds(5))
        #expect(outcome.summary.elapsed < .seconds(6))
    }

    @Test("Overall timeout: a transfer slower than the limit ends at the limit")
    func overallTimeout() async throws {
        let configuration = OTAConfiguration(idleTimeout: .seconds(5), overallTimeout: .seconds(3))
        let (outcome, device) = try await Self.run(
            .init(packetTime: .milliseconds(500)), image: try Self.image(), configuration: configuration)
        #expect(outcome.failure == .overallTimeout(.seconds(3)))
        #expect(outcome.summary.elapsed == .seconds(3))
        #expect(!device.committed)
    }

    @Test("Abort stops the transfer and tells the device to drop its staging")
    func abort() async throws {
        let (outcome, device) = try await Self.run(.init(), image: try Self.image(size: 5000)) { engine in
            for await progress in engine.progress where progress.bytesSent >= 1000 {
                engine.abort()
                break
            }
        }
        #expect(outcome.failure == .aborted)
        #expect(device.aborts == 1)
        #expect(!device.committed)
        #expect(outcome.summary.packetsSent < 50)
    }

    @Test("A link loss is followed by a reconnect and a resume from the device's next packet")
    func linkLossResume() async throws {
        let image = try Self.image()
        let (outcome, device) = try await Self.run(.init(linkLossAtSend: 4), image: image)
        #expect(outcome.failure == nil)
        #expect(device.received == image.bytes)
        #expect(device.reconnects == 1)
        #expect(outcome.summary.recoveries == 1)
    }

    @Test("Reconnects that keep failing end the run at the recovery limit")
    func recoveryLimit() async throws {
        let configuration = OTAConfiguration(maximumRecoveries: 3)
        let (outcome, _) = try await Self.run(
            .init(reconnectFails: true, linkLossAtSend: 2), image: try Self.image(), configuration: configuration)
        #expect(outcome.failure == .recoveryLimit(last: .linkLost, recoveries: 3))
    }

    @Test("A device that never keeps a packet ends the run at the transmission limit, not in an endless loop")
    func transmissionLimit() async throws {
        let configuration = OTAConfiguration(maximumTransmissionFactor: 3)
        let (outcome, device) = try await Self.run(
            .init(dropsAll: true), image: try Self.image(), configuration: configuration)
        #expect(outcome.failure == .transmissionLimit(packetsSent: 30))
        #expect(device.sends == 30)
        #expect(!device.committed)
    }

    @Test("A resend report naming a packet past the image is a protocol violation")
    func impossibleReport() async throws {
        let (outcome, _) = try await Self.run(.init(bogusReport: 4000), image: try Self.image())
        #expect(outcome.failure == .protocolViolation("resend from packet 4000 of 10"))
    }

    @Test("Resume checks the held prefix by CRC: a matching prefix is kept")
    func resumeKeepsMatchingPrefix() async throws {
        let image = try Self.image()
        let (outcome, device) = try await Self.run(.init(preStaged: Array(image.bytes[0..<400])), image: image)
        #expect(outcome.failure == nil)
        #expect(outcome.summary.resumedFromPacket == 4)
        #expect(outcome.summary.packetsSent == 6)
        #expect(outcome.summary.prefixMismatches == 0)
        #expect(device.received == image.bytes)
    }

    @Test("Resume checks the held prefix by CRC: a different prefix is dropped and the image sent from 0")
    func resumeDropsWrongPrefix() async throws {
        let image = try Self.image()
        let wrong = Array(try Self.image(seed: 99).bytes[0..<400])
        let (outcome, device) = try await Self.run(.init(preStaged: wrong), image: image)
        #expect(outcome.failure == nil)
        #expect(outcome.summary.prefixMismatches == 1)
        #expect(outcome.summary.packetsSent == 10)
        #expect(device.aborts == 1)
        #expect(device.received == image.bytes)
    }

    @Test("Progress ends at the whole image with a rate and no time left")
    func progress() async throws {
        let image = try Self.image(size: 3000)
        let collected = ProgressLog()
        let (outcome, _) = try await Self.run(.init(), image: image) { engine in
            for await progress in engine.progress { collected.add(progress) }
        }
        #expect(outcome.failure == nil)
        let reports = collected.all
        #expect(reports.count >= 30)
        let sent = reports.map(\.bytesSent)
        #expect(sent == sent.sorted())
        let last = try #require(reports.last)
        #expect(last.bytesSent == 3000)
        #expect(last.bytesAcknowledged == 3000)
        #expect(last.bytesPerSecond > 0)
        #expect(last.estimatedTimeRemaining == .zero)
        let middle = reports[reports.count / 2]
        #expect(middle.estimatedTimeRemaining.map { $0 > .zero } == true)
    }
}

import BLELocking

final class ProgressLog: Sendable {
    private let reports = Locked<[OTAProgress]>([])
    func add(_ progress: OTAProgress) { reports.withLock { $0.append(progress) } }
    var all: [OTAProgress] { reports.withLock { $0 } }
}
