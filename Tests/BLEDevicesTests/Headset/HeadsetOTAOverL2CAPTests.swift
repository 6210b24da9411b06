import BLE
import BLECompanion
import BLEDevices
import Testing

/// The same OTA engine and headset protocol over an L2CAP channel instead of GATT: frames go as
/// SDUs of the channel's MTU, paced by its credits (Core 5.4 Vol 3 Part A §4.22, §10.1).
@Suite("Headset OTA over an L2CAP credit based channel on the virtual radio")
struct HeadsetOTAOverL2CAPTests {
    @Test("A 64 KiB update over an L2CAP channel succeeds with larger packets; the headset runs the new image")
    func updateOverChannel() async throws {
        let image = try FirmwareImage.random(size: 64 * 1024, version: "2.0.0", seed: 64)
        let (outcome, active, version, over) = try await HeadsetOTASetup.run { setup in
            let psm = try await setup.headset.link.serveChannels()
            let gatt = try await setup.connect()
            let channel = try await gatt.peripheral.openL2CAPChannel(psm)
            let link = await DeviceLink.open(
                over: channel, of: gatt.peripheral, speaking: HeadsetProtocol.self,
                configuration: .virtual(setup.simulation))
            // The protocol answers over the channel as over GATT.
            let version = try await link.request(.firmwareVersionQuery)
            #expect(version == .firmwareVersion("1.0.0"))
            let target = HeadsetOTATarget(link: link, taskExecutor: setup.simulation.executor)
            let outcome = await setup.update(image, target: target)
            target.close()
            let statistics = await link.statistics
            return (outcome, try setup.headset.flash.activeImageBytes(), setup.headset.flash.activeVersion, statistics)
        }
        #expect(outcome.failure == nil, "\(outcome)")
        // One SDU carries one frame, sized to fill two K-frames of the MPS 247 exactly
        // (2 × 247 − 2 = 492 octets: frame 8, packet header 6, 478 of firmware), where a Write
        // Command of ATT_MTU 247 carries 230.
        #expect(outcome.summary.packetSize == 478)
        #expect(outcome.summary.packetCount == (64 * 1024 + 477) / 478)
        #expect(outcome.summary.packetsResent == 0)
        #expect(FirmwareDigest.sha256(active) == image.sha256)
        #expect(version == "2.0.0")
        #expect(over.flowControlWaits == 0)
    }
}
