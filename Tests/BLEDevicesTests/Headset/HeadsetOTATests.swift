import BLE
import BLECompanion
import BLEDevices
import Testing

@Suite("Headset OTA end to end on the virtual radio")
struct HeadsetOTATests {
    let newImage: FirmwareImage

    init() throws {
        newImage = try .random(size: 64 * 1024, version: "2.0.0", seed: 64)
    }

    @Test("The advertisement carries the name, the headset service and the MAC in manufacturer data")
    func advertisement() async throws {
        let mac = BluetoothAddress(0x0000_5E00_5341)
        let seen = try await HeadsetOTASetup.run(VirtualHeadsetConfiguration(name: "HS-1", macAddress: mac)) { setup in
            let discoveries = try await setup.central.scanForPeripherals(withServices: [HeadsetProtocol.serviceUUID])
            var first: Discovery?
            for await discovery in discoveries {
                first = discovery
                break
            }
            await setup.central.stopScan()
            return first?.advertisementData
        }
        #expect(seen?.localName == "HS-1")
        #expect(seen?.serviceUUIDs == [HeadsetProtocol.serviceUUID])
        #expect(VirtualHeadsetConfiguration.macAddress(in: seen?.manufacturerData) == mac)
        #expect(seen?.manufacturerData?.data == [0x41, 0x53, 0x00, 0x5E, 0x00, 0x00])
    }

    @Test("Firmware version and MAC address queries are answered")
    func queries() async throws {
        let (version, mac) = try await HeadsetOTASetup.run { setup in
            let link = try await setup.connect()
            let version = try await link.request(.firmwareVersionQuery)
            let mac = try await link.request(.macAddressQuery)
            return (version, mac)
        }
        #expect(version == .firmwareVersion("1.0.0"))
        #expect(mac == .macAddress(BluetoothAddress(0x0000_5E00_5340)))
    }

    @Test("Scripted gestures and heartbeat ticks reach the app")
    func eventsAndHeartbeats() async throws {
        let script = [
            ScriptedHeadsetEvent(after: .milliseconds(1500), .gesture(.swipeUp)),
            ScriptedHeadsetEvent(after: .milliseconds(100), .proximity(.near)),
        ]
        let configuration = VirtualHeadsetConfiguration(heartbeatPeriod: .seconds(1), events: .scripted(script))
        let received = try await HeadsetOTASetup.run(configuration) { setup in
            let link = try await setup.connect()
            var messages: [HeadsetDeviceMessage] = []
            for await incoming in link.incoming {
                messages.append(incoming.message)
                if messages.contains(.proximity(.near)), messages.filter({ $0.code == .heartbeat }).count >= 2 {
                    break
                }
            }
            return messages
        }
        #expect(received.contains(.gesture(.swipeUp)))
        let gesture = received.firstIndex(of: .gesture(.swipeUp)) ?? .max
        let proximity = received.firstIndex(of: .proximity(.near)) ?? .min
        #expect(gesture < proximity)
        let ticks = received.compactMap { message -> UInt32? in
            if case .heartbeat(let count) = message { return count }
            return nil
        }
        #expect(ticks.count >= 2)
        #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $1 == $0 + 1 })
    }

    @Test("A 64 KiB update succeeds and the headset runs the new image (SHA-256 checked)")
    func update() async throws {
        let image = newImage
        let (outcome, active, version) = try await HeadsetOTASetup.run { setup in
            let target = try await setup.target()
            let outcome = await setup.update(image, target: target)
            target.close()
            return (outcome, try setup.headset.flash.activeImageBytes(), setup.headset.flash.activeVersion)
        }
        #expect(outcome.failure == nil)
        #expect(outcome.summary.packetSize == 230)
        #expect(outcome.summary.packetCount == (64 * 1024 + 229) / 230)
        #expect(outcome.summary.packetsResent == 0)
        #expect(FirmwareDigest.sha256(active) == image.sha256)
        #expect(version == "2.0.0")
    }

    @Test("With 2 % of packets dropped or corrupted the update still succeeds, by selective resends")
    func faults() async throws {
        let image = newImage
        let configuration = VirtualHeadsetConfiguration(faultRate: 0.02, seed: 7)
        let (outcome, active, statistics) = try await HeadsetOTASetup.run(configuration) { setup in
            let target = try await setup.target()
            let outcome = await setup.update(image, target: target)
            target.close()
            return (outcome, try setup.headset.flash.activeImageBytes(), setup.headset.statistics)
        }
        #expect(outcome.failure == nil)
        #expect(statistics.packetsDropped + statistics.packetsCorrupted > 0)
        #expect(outcome.summary.packetsResent > 0)
        // The headset names each missing packet (0F); the app resends those alone.
        #expect(outcome.summary.selectiveResendRequests > 0)
        #expect(outcome.summary.packetsResent <= 2 * (statistics.packetsDropped + statistics.packetsCorrupted))
        #expect(FirmwareDigest.sha256(active) == image.sha256)
    }

    @Test("A low battery refuses the update with a typed failure; the old image stays")
    func lowBattery() async throws {
        let image = newImage
        let configuration = VirtualHeadsetConfiguration(batteryLevel: 10)
        let (outcome, version) = try await HeadsetOTASetup.run(configuration) { setup in
            let target = try await setup.target()
            let outcome = await setup.update(image, target: target)
            target.close()
            return (outcome, setup.headset.flash.activeVersion)
        }
        guard case .refused(.batteryTooLow(let level, _)) = outcome.failure else {
            Issue.record("expected a battery refusal, got \(String(describing: outcome.failure))")
            return
        }
        #expect(level == 10)
        #expect(version == "1.0.0")
        #expect(outcome.summary.packetsSent == 0)
    }

    @Test("OTA start with a version that is not MAJOR.MINOR.PATCH is refused as a version format error")
    func badVersion() async throws {
        let image = newImage
        let (answer, version) = try await HeadsetOTASetup.run { setup in
            let target = try await setup.target()
            var parameters = OTASessionParameters(image: image, packetSize: 230)
            parameters.version = "2.0"
            let answer = try await target.start(parameters)
            target.close()
            return (answer, setup.headset.flash.activeVersion)
        }
        #expect(answer == .refused(.versionFormat("2.0")))
        #expect(version == "1.0.0")
    }

    @Test("An update interrupted by a disconnection resumes from the headset's next packet")
    func interruptedAndResumed() async throws {
        let image = newImage
        let (first, second, active) = try await HeadsetOTASetup.run { setup in
            let target = try await setup.target(reconnects: false)
            let engine = OTAEngine(
                image: image, target: target, configuration: OTAConfiguration(maximumRecoveries: 0),
                clock: setup.simulation.clock)
            let peripheral = target.link.peripheral
            let central = setup.central
            // Drop the link once a third of the image is out.
            let cutter = Task(executorPreference: setup.simulation.executor) {
                for await progress in engine.progress where progress.bytesSent >= image.size / 3 {
                    await central.cancelPeripheralConnection(peripheral)
                    break
                }
            }
            let first = await engine.run()
            cutter.cancel()
            target.close()
            let resumed = try await setup.target()
            let second = await setup.update(image, target: resumed)
            resumed.close()
            return (first, second, try setup.headset.flash.activeImageBytes())
        }
        #expect(first.failure != nil)
        #expect(second.failure == nil)
        let resumedAt = try #require(second.summary.resumedFromPacket)
        #expect(resumedAt > 0)
        #expect(second.summary.bytesTransmitted < image.size)
        #expect(FirmwareDigest.sha256(active) == image.sha256)
    }

    @Test("A link loss mid-transfer is survived in one run: the target reconnects by MAC and the engine resumes")
    func reconnectWithinRun() async throws {
        let image = newImage
        let (outcome, active) = try await HeadsetOTASetup.run { setup in
            let target = try await setup.target(reconnects: true)
            let engine = OTAEngine(image: image, target: target, clock: setup.simulation.clock)
            let peripheral = target.link.peripheral
            let central = setup.central
            let cutter = Task(executorPreference: setup.simulation.executor) {
                for await progress in engine.progress where progress.bytesSent >= image.size / 2 {
                    await central.cancelPeripheralConnection(peripheral)
                    break
                }
            }
            let outcome = await engine.run()
            cutter.cancel()
            target.close()
            return (outcome, try setup.headset.flash.activeImageBytes())
        }
        #expect(outcome.failure == nil)
        #expect(outcome.summary.recoveries >= 1)
        // Resumed, not restarted: less than the image plus the half already sent went out.
        #expect(outcome.summary.bytesTransmitted < image.size * 3 / 2)
        #expect(FirmwareDigest.sha256(active) == image.sha256)
    }
}
