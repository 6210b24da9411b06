import BLE
import BLECompanion
import BLELocking
import BLESimulation

/// OTA goodput through the public API alone: a phone (`CentralManager`) updates a virtual
/// headset on a fresh virtual radio, on the link its `LinkPolicy` negotiates, and the sending
/// phase is timed on the virtual clock — from the first data packet to the start of the commit
/// (after the status answer confirming the last packet). Flash time is excluded (the flash model
/// takes none).
///
/// The prediction to compare with is the air-time model's rule B for the negotiated link
/// (`ble bench ota` prints both).
public enum HeadsetOTABenchmark {
    public struct Parameters: Sendable {
        public var imageSize = 512 * 1024
        /// OTA packets the headset faults (drops or corrupts), 0…1.
        public var faultRate = 0.0
        /// The connection interval asked for (a multiple of 1.25 ms); the event may last as long.
        public var interval: Duration = .milliseconds(15)
        public var linkPolicy: LinkPolicy = .iphoneModern
        /// The phone's controller ACL buffers (and its host's transmit queue): the rule-B model
        /// fills an event with up to 10 writes at 15 ms, which needs that many buffers in flight.
        public var aclBuffers = 16
        /// Packets the headset holds past a gap (selective repeat); 0 is go-back-N.
        public var reorderBufferCapacity = 64

        public init() {}
    }

    public struct Result: Sendable {
        /// The link the phone's policy negotiated, as the phone saw it when the transfer began.
        public var link: LinkParameters
        public var outcome: OTAOutcome
        /// The sending phase on the virtual clock.
        public var sendingTime: Duration
        public var imageSize: Int

        /// Firmware octets per second of the sending phase, in kbit/s (each image byte once).
        public var firmwareKbps: Double {
            Double(imageSize * 8) / Self.seconds(sendingTime) / 1000
        }

        /// The same counted as the Write Command values that carried it (frame and packet header
        /// included), comparable with a prediction for Write Commands of ATT_MTU − 3 octets.
        public var writeKbps: Double {
            let packet = outcome.summary.packetSize
            guard packet > 0 else { return 0 }
            return firmwareKbps * Double(packet + HeadsetProtocol.otaDataHeaderLength + DeviceFrame.overhead)
                / Double(packet)
        }

        static func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case setup(String)

        public var description: String {
            switch self {
            case .setup(let what): "OTA benchmark setup failed: \(what)"
            }
        }
    }

    /// Runs one update of a random image on a fresh virtual radio.
    public static func run(_ parameters: Parameters = Parameters()) async throws -> Result {
        var generator = SeededRandomGenerator(seed: 99)
        let image = try FirmwareImage(
            bytes: (0..<parameters.imageSize).map { _ in UInt8.random(in: 0...255, using: &generator) },
            version: "3.0.0")
        let radio = VirtualRadio()
        let simulation = radio.simulation
        return try await simulation.run {
            let headset = try await VirtualHeadset.start(
                on: radio,
                configuration: VirtualHeadsetConfiguration(
                    flash: .init(reorderBufferCapacity: parameters.reorderBufferCapacity), heartbeatPeriod: nil,
                    faultRate: parameters.faultRate, seed: 5))
            var controller = VirtualController.Configuration()
            controller.aclBufferCount = UInt8(clamping: parameters.aclBuffers)
            var host = HostConfiguration()
            host.transmitQueueLimit = parameters.aclBuffers
            host.linkPolicy = parameters.linkPolicy
            let phone = await CentralManager(
                radio: .virtual(radio, position: AirPosition(x: 2, y: 0, z: 0), controller: controller),
                configuration: host)
            do {
                let result = try await measure(
                    image, headset: headset, phone: phone, simulation: simulation, parameters)
                await phone.close()
                await headset.stop()
                await headset.manager.close()
                return result
            } catch {
                await phone.close()
                await headset.stop()
                await headset.manager.close()
                throw error
            }
        }
    }

    private static func measure(
        _ image: FirmwareImage, headset: VirtualHeadset, phone: CentralManager, simulation: Simulation,
        _ parameters: Parameters
    ) async throws -> Result {
        try await phone.powerOn()
        var found: Peripheral?
        for await discovery in try await phone.scanForPeripherals(withServices: [HeadsetProtocol.serviceUUID]) {
            found = discovery.peripheral
            break
        }
        await phone.stopScan()
        guard let peripheral = found else { throw Failure.setup("the headset was not found") }
        let units = UInt16(
            clamping: parameters.interval.components.attoseconds / 1_250_000_000_000_000
                + parameters.interval.components.seconds * 800)
        // The event may fill the interval (CE length in 0.625 ms units).
        try await phone.connect(
            peripheral,
            options: ConnectOptions(
                connectionParameters: ConnectionParameters(
                    connectionIntervalMin: units, connectionIntervalMax: units, supervisionTimeout: 400,
                    minCELength: units * 2, maxCELength: units * 2)))
        guard let link = await peripheral.linkParameters else { throw Failure.setup("not connected") }
        let deviceLink = try await DeviceLink.open(
            peripheral, speaking: HeadsetProtocol.self, configuration: .virtual(simulation))
        let target = HeadsetOTATarget(link: deviceLink, taskExecutor: simulation.executor)
        let engine = OTAEngine(image: image, target: target, clock: simulation.clock)
        let (outcome, sendingTime) = await runTimingSendingPhase(engine, on: simulation)
        target.close()
        guard let sendingTime else { throw Failure.setup("no sending phase: \(outcome)") }
        return Result(link: link, outcome: outcome, sendingTime: sendingTime, imageSize: image.size)
    }

    /// Runs `engine` and times its sending phase on the simulation's clock: from the first
    /// packet sent to the commit (flash time excluded), nil when it never got that far.
    public static func runTimingSendingPhase<Target: OTATarget>(
        _ engine: OTAEngine<Target, VirtualClock>, on simulation: Simulation
    ) async -> (outcome: OTAOutcome, sendingTime: Duration?) {
        let clock = simulation.clock
        let phases = Locked<(sending: VirtualInstant?, committing: VirtualInstant?)>((nil, nil))
        let watcher = Task(executorPreference: simulation.executor) {
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
        let (sending, committing) = phases.withLock { $0 }
        guard let sending, let committing else { return (outcome, nil) }
        return (outcome, sending.duration(to: committing))
    }
}
