@testable import BLE
@testable import BLEBenchmarks
import BLECompanion
import BLEController
import BLEDevices
import BLELocking
import BLESimulation
import BLEWire
import Testing

/// OTA goodput in virtual time on the benchmark link: LE 2M, LL 251, ATT_MTU 247,
/// 15 ms interval, rule B, flash time excluded (the flash model takes no time).
///
/// Measured over the sending phase: from the first data packet to the start of the commit (after
/// the status answer confirming the last packet), on the virtual clock. "Firmware" counts each
/// image byte once (resends are cost, not goodput); "as writes" counts the Write Command values
/// that carried each packet once: 244 octets per 230 firmware octets (frame 8, packet header 6).
/// Both are compared with the rule-B prediction for 244-octet Write Commands, so firmware bytes
/// alone reach at most 230 / 244 = 94.3 % of it.
@Suite("Headset OTA goodput on a 2M, LL 251, MTU 247, 15 ms link")
struct OTAGoodputTests {
    static let link = LinkTiming(interval: .milliseconds(15), phy: .le2M, maxOctets: 251)
    /// Write Command values of 244 octets: one frame of 8 + 6 + 230 per write.
    static let prediction = GoodputPrediction(link: link, attMTU: 247, traffic: .writeWithoutResponse)

    struct Measurement: Sendable, CustomStringConvertible {
        var outcome: OTAOutcome
        /// From the first packet to the status answer confirming the last.
        var sendingTime: Duration
        var imageSize: Int

        var packetSize: Int { outcome.summary.packetSize }
        /// Firmware bytes per second of the sending phase, in kbit/s.
        var firmwareKbps: Double { Double(imageSize * 8) / GATTBenchmark.seconds(sendingTime) / 1000 }
        /// The same, counted as the Write Command values that carried it (frame and packet header).
        var writeKbps: Double {
            firmwareKbps * Double(packetSize + HeadsetProtocol.otaDataHeaderLength + DeviceFrame.overhead)
                / Double(packetSize)
        }
        var wholeRunKbps: Double {
            Double(imageSize * 8) / GATTBenchmark.seconds(outcome.summary.elapsed) / 1000
        }

        var description: String {
            let predicted = OTAGoodputTests.prediction.goodputB
            return "firmware \(Int(firmwareKbps)) kbit/s (\(percent(firmwareKbps / predicted)) of rule B "
                + "\(Int(predicted)) kbit/s), as writes \(Int(writeKbps)) kbit/s (\(percent(writeKbps / predicted))), "
                + "whole run \(Int(wholeRunKbps)) kbit/s, \(outcome.summary.packetsResent) of "
                + "\(outcome.summary.packetCount) packets resent, "
                + "\(outcome.summary.selectiveResendRequests) selective, "
                + "\(outcome.summary.rewinds) rewinds"
        }

        private func percent(_ ratio: Double) -> String { "\((ratio * 1000).rounded() / 10) %" }
    }

    static func measure(
        faultRate: Double, reorderBufferCapacity: Int = 64, size: Int = 512 * 1024
    ) async throws -> Measurement {
        let image = try FirmwareImage.random(size: size, version: "3.0.0", seed: 99)
        let configuration = VirtualHeadsetConfiguration(
            flash: .init(reorderBufferCapacity: reorderBufferCapacity), heartbeatPeriod: nil, faultRate: faultRate,
            seed: 5)
        // The rule-B model fills each event with 10 writes; the default virtual controller holds 8
        // (and reports them completed at the event's end), which would cap the link at 8 an event.
        var controller = VirtualController.Configuration()
        controller.aclBufferCount = 16
        var host = HostConfiguration()
        host.transmitQueueLimit = 16
        return try await HeadsetOTASetup.run(configuration, centralController: controller, centralHost: host) {
            setup in
            let units: UInt16 = 12  // 15 ms in 1.25 ms units
            let options = ConnectOptions(
                connectionParameters: HCI.ConnectionParameters(
                    connectionIntervalMin: units, connectionIntervalMax: units, supervisionTimeout: 400,
                    minCELength: units * 2, maxCELength: units * 2))
            let link = try await setup.connect(options: options)
            try await GATTBenchmark.Session.setDataLengthAndPHY(
                Self.link, central: setup.central, peripheral: link.peripheral, manager: setup.headset.manager)
            #expect(await link.peripheral.mtu == 247)
            let target = HeadsetOTATarget(link: link, taskExecutor: setup.simulation.executor)
            let engine = OTAEngine(image: image, target: target, clock: setup.simulation.clock)
            let clock = setup.simulation.clock
            let phases = Locked<(sending: VirtualInstant?, committing: VirtualInstant?)>((nil, nil))
            let watcher = Task(executorPreference: setup.simulation.executor) {
                for await progress in engine.progress {
                    let now = clock.now
                    phases.withLock { phases in
                        if progress.phase == .sending, progress.bytesSent > 0, phases.sending == nil {
                            phases.sending = now
                        }
                        if progress.phase == .committing, phases.committing == nil { phases.committing = now }
                    }
                }
            }
            let outcome = await engine.run()
            await watcher.value
            target.close()
            let (sending, committing) = phases.withLock { $0 }
            guard let sending, let committing else { throw TestFailure("no sending phase: \(outcome)") }
            return Measurement(outcome: outcome, sendingTime: sending.duration(to: committing), imageSize: size)
        }
    }

    @Test("Without faults the OTA keeps the link at the rule-B prediction for its writes")
    func clean() async throws {
        let measurement = try await Self.measure(faultRate: 0)
        print("OTA goodput, no faults: \(measurement)")
        #expect(measurement.outcome.failure == nil)
        // Measured 99.5 % as writes; the firmware share is at most 230 / 244 of that (framing).
        #expect(measurement.writeKbps >= 0.95 * Self.prediction.goodputB)
        #expect(measurement.firmwareKbps >= 0.93 * Self.prediction.goodputB)
    }

    /// Selective repeat: the headset holds up to 64 packets past a gap and asks for the missing
    /// one alone, so a fault costs about one resend instead of the ~36 packets queued behind it.
    @Test("With 1 % of OTA packets faulted, selective repeat resends only missing packets, keeping 85 % of the link")
    func onePercentErrors() async throws {
        let measurement = try await Self.measure(faultRate: 0.01)
        print("OTA goodput, 1 % packet errors: \(measurement)")
        #expect(measurement.outcome.failure == nil)
        let summary = measurement.outcome.summary
        #expect(summary.selectiveResendRequests > 0)
        // Resends stay near the faults (about 1 % of the packets), not a queue's worth each.
        #expect(summary.packetsResent <= summary.packetCount / 25)
        // Measured 98.3 % as writes, 92.6 % as firmware bytes alone: the 85 % holds
        // either way.
        #expect(measurement.writeKbps >= 0.85 * Self.prediction.goodputB)
        #expect(measurement.firmwareKbps >= 0.85 * Self.prediction.goodputB)
    }

    @Test("With 1 % of OTA packets faulted and no reorder buffer (v1 go-back-N), each fault costs the queue behind it")
    func onePercentErrorsGoBackN() async throws {
        let measurement = try await Self.measure(faultRate: 0.01, reorderBufferCapacity: 0)
        print("OTA goodput, 1 % packet errors, go-back-N: \(measurement)")
        #expect(measurement.outcome.failure == nil)
        #expect(measurement.outcome.summary.selectiveResendRequests == 0)
        #expect(measurement.outcome.summary.packetsResent > 0)
        // Measured 71.5 % as writes: the figure selective repeat replaces.
        #expect(measurement.writeKbps >= 0.6 * Self.prediction.goodputB)
        #expect(measurement.outcome.summary.packetsResent > measurement.outcome.summary.packetCount / 10)
    }
}
