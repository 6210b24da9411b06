import ArgumentParser
import BLE
import BLEHost
import BLECompanion
import BLEDevices
import Foundation
import Logging

/// `ble headset`: a virtual headset (headset protocol v1, docs/headset-protocol.md) on any
/// radio, until stopped.
struct HeadsetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "headset",
        abstract: "Run a virtual headset (headset protocol v1) that takes OTA updates.",
        discussion: """
            Advertises its name, the headset service and its MAC address (manufacturer data), \
            answers firmware version and MAC queries, sends random gestures and sensor events and a \
            heartbeat tick every second, and takes firmware updates into a two-slot flash (in \
            memory, or in --state-dir so that an interrupted update resumes after a restart). \
            Prints a line per connection and update step. Runs until Ctrl-C or SIGTERM, or for \
            --duration seconds.

            Example: ble headset --transport tcp-client:127.0.0.1:9001 --fault-rate 0.01 --state-dir /tmp/hs
            """)

    @Option(
        help: ArgumentHelp(
            "The MAC address to advertise and report (default: on the virtual radio 00:00:5E:00:53:41, "
                + "which is also its controller's address; on a transport, the controller's own address).",
            valueName: "address"))
    var address: String?

    @Option(help: "The chance (0…1) that an incoming OTA data packet is dropped or corrupted.")
    var faultRate: Double = 0

    @Option(help: "Seeds fault injection and the random events.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Keep the firmware slots here, across runs.", valueName: "directory"))
    var stateDir: String?

    @Option(help: "Stop after this many seconds (virtual time on the virtual radio).")
    var duration: Double?

    @Option(help: "The battery level in percent (below 20 an update is refused).")
    var battery: Int = 80

    @OptionGroup var radio: RadioOptions

    /// Its address on the virtual radio, next to the neighbourhood's headset at …:40.
    static let virtualAddress = BluetoothAddress(0x0000_5E00_5341)

    func validate() throws {
        if let duration { try checkSeconds(duration, option: "--duration") }
        _ = try macAddress()
        guard (0...1).contains(faultRate) else {
            throw ValidationError("--fault-rate \(faultRate): expected a probability from 0 to 1")
        }
        guard (0...100).contains(battery) else { throw ValidationError("--battery \(battery): expected 0 to 100") }
    }

    func macAddress() throws -> BluetoothAddress? {
        guard let address else { return nil }
        guard let parsed = BluetoothAddress(address) else {
            throw ValidationError(
                "--address '\(address)' is not an address; expected six octets in hex: F0:F1:F2:F3:F4:F5")
        }
        return parsed
    }

    func run() async throws {
        let storage: any FlashStorage
        if let stateDir {
            do {
                storage = try DirectoryFlashStorage(directory: URL(fileURLWithPath: stateDir, isDirectory: true))
            } catch {
                throw CommandFailure("--state-dir \(stateDir): \(error)")
            }
        } else {
            storage = MemoryFlashStorage()
        }
        let chosen = try macAddress()
        let isVirtual = (try? radio.moniker()) == .virtual
        let seconds = duration
        let signals = StopSignals()
        let options = self
        try await radio.withRadio(
            pacing: seconds == nil ? .wallClock : .unpaced, ownAddress: chosen ?? Self.virtualAddress
        ) { session in
            let manager = try await attempt("starting the headset") {
                try await PeripheralManager(
                    radio: session.radio, configuration: session.hostConfiguration,
                    gap: GAPServiceConfiguration(deviceName: "HEADSET"))
            }
            do {
                try await attempt("powering on") { try await manager.powerOn() }
                let mac: BluetoothAddress
                if let chosen {
                    mac = chosen
                } else if !isVirtual, let own = await manager.address?.address {
                    mac = own
                } else {
                    mac = Self.virtualAddress
                }
                let headset = try await options.start(on: manager, mac: mac, storage: storage, session: session)
                Console.out("headset \(mac) advertising \"HEADSET\", firmware \(headset.flash.activeVersion)")
                let ending = await Self.serve(
                    headset, manager: manager, session: session, duration: seconds, signals: signals)
                await headset.stop()
                await manager.close()
                Console.err("stopping: \(try ending.get())")
            } catch {
                await manager.close()
                throw error
            }
        }
    }

    private func start(
        on manager: PeripheralManager, mac: BluetoothAddress, storage: any FlashStorage, session: RadioSession
    ) async throws -> VirtualHeadset {
        let configuration = VirtualHeadsetConfiguration(
            macAddress: mac, flash: FirmwareFlash.Configuration(stagingRecordInterval: 16), batteryLevel: battery,
            heartbeatPeriod: .seconds(1), events: .random(meanInterval: .seconds(5)), faultRate: faultRate,
            seed: seed)
        do {
            return try await VirtualHeadset.start(
                on: manager, configuration: configuration, storage: storage,
                link: DeviceLinkConfiguration(
                    clock: session.clock, taskExecutor: session.executor, logger: session.logger("ble.device-link")))
        } catch let error as FlashStorageError {
            throw CommandFailure("--state-dir: \(error)")
        }
    }

    /// Prints the headset's activity until a signal or the duration ends it (why, as a string),
    /// or the controller goes away (`ControllerLost`).
    private static func serve(
        _ headset: VirtualHeadset, manager: PeripheralManager, session: RadioSession, duration: Double?,
        signals: StopSignals
    ) async -> Result<String, ControllerLost> {
        let (stops, sink) = AsyncStream.makeStream(of: Result<String, ControllerLost>.self)
        let states = await manager.stateUpdates()
        let feeders = [
            session.spawn {
                let lost = await ControllerLost.awaitLoss(states) { await manager.lostTransport }
                if let lost { sink.yield(.failure(lost)) }
            },
            session.spawn {
                for await activity in headset.activity { Console.out(describe(activity)) }
            },
            session.spawn {
                for await signal in signals.stream {
                    sink.yield(.success("received \(StopSignals.name(signal))"))
                    return
                }
            },
            session.spawn {
                guard let duration, await session.sleep(for: .seconds(duration)) else { return }
                sink.yield(.success("\(GATTCommandError.format(duration)) s elapsed"))
            },
        ]
        var reason = Result<String, ControllerLost>.success("stopped")
        for await stop in stops {
            reason = stop
            break
        }
        for feeder in feeders { feeder.cancel() }
        return reason
    }

    static func describe(_ activity: VirtualHeadset.Activity) -> String {
        switch activity {
        case .connected(let central): "connected: \(central)"
        case .disconnected(let central): "disconnected: \(central)"
        case .otaStarted(let parameters, let answer):
            "OTA start: \(parameters.imageSize) bytes, version \(parameters.version), packets of "
                + "\(parameters.packetSize) → \(describe(answer))"
        case .otaCommitted(.installed): "OTA commit: verified, slots swapped"
        case .otaCommitted(.failed(let failure)): "OTA commit refused: \(failure)"
        case .otaAborted: "OTA aborted"
        case .resendRequested(let packet): "OTA: asked to resend from packet \(packet)"
        case .packetResendRequested(let packet): "OTA: asked to resend packet \(packet)"
        }
    }

    private static func describe(_ answer: OTAStartAnswer) -> String {
        switch answer {
        case .ready(let next): next == 0 ? "ready" : "resuming at packet \(next)"
        case .alreadyInstalled: "already installed"
        case .refused(let refusal): "refused: \(refusal)"
        }
    }
}
