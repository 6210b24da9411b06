import ArgumentParser
import BLE
import BLEWire
import Logging
import BLETransport
import Foundation

/// `--transport MONIKER`: where the command's host reaches its controller. `virtual` (the
/// default) is an in-process virtual radio with a neighbourhood of sample devices; any other
/// moniker (`tcp-client:HOST:PORT`, `unix:PATH`, …) is a controller over HCI.
///
/// One struct for every option about the radio, so that new ones (a capture file, …) reach
/// every command at once.
struct RadioOptions: ParsableArguments {
    @Option(
        name: .customLong("transport"),
        help: ArgumentHelp(
            "Where the controller is: virtual (an in-process virtual radio with sample devices), or one of "
                + TransportMoniker.Scheme.allCases.filter { $0 != .virtual }.map(\.usage).joined(separator: ", ")
                + ".",
            valueName: "MONIKER"))
    var transport = "virtual"

    @Option(
        name: .customLong("capture"),
        help: ArgumentHelp(
            "Record every HCI packet between this command's host and its controller, both ways, into a btsnoop "
                + "file (datalink 1002, H4; read it with `ble decode --btsnoop`, Wireshark or btmon).",
            valueName: "FILE"))
    var capture: String?

    @OptionGroup var logging: LoggingOptions
    @OptionGroup var link: LinkPolicyOption

    func validate() throws {
        _ = try moniker()
    }

    /// The parsed moniker; a bad one is a validation error naming the accepted forms.
    func moniker() throws -> TransportMoniker {
        do {
            return try TransportMoniker(parsing: transport)
        } catch {
            throw ValidationError("--transport \(transport): \(error)")
        }
    }

    /// How virtual time runs when the transport is the virtual radio.
    enum VirtualPacing {
        /// As fast as the work allows (`ble read` is over in milliseconds of wall time).
        case unpaced
        /// Following the wall clock: for commands that run until a signal, where unpaced time
        /// would race ahead while they wait.
        case wallClock
    }

    /// Runs `body` with a ready radio: on the virtual radio, inside its simulation with the
    /// sample neighbourhood advertising; otherwise with the transport opened. A transport that
    /// cannot be opened ends the command with its typed error as a one-line message. On the
    /// virtual radio the command's controller has `ownAddress` as its public address (default
    /// `VirtualNeighbourhood.commandAddress`).
    func withRadio<T: Sendable>(
        pacing: VirtualPacing = .unpaced, ownAddress: BluetoothAddress? = nil,
        _ body: @escaping @Sendable (RadioSession) async throws -> T
    ) async throws -> T {
        let moniker = try moniker()
        switch moniker {
        case .virtual:
            let radio = VirtualRadio(pacing: pacing == .wallClock ? .paced(rate: 1) : .virtual)
            let simulation = radio.simulation
            return try await simulation.run {
                let neighbourhood = try await VirtualNeighbourhood.start(on: radio)
                var controller = VirtualController.Configuration(
                    publicAddress: ownAddress ?? VirtualNeighbourhood.commandAddress)
                controller.logger = logging.logger("ble.controller")
                let session = RadioSession(
                    radio: try captured(
                        .virtual(radio, position: VirtualNeighbourhood.commandPosition, controller: controller)),
                    clock: simulation.clock, executor: simulation.executor, virtualRadio: radio,
                    hostConfiguration: link.applied(to: logging.hostConfiguration), logLevel: logging.level)
                let result: T
                do {
                    result = try await body(session)
                } catch {
                    await neighbourhood.close()
                    closeCapture(of: session.radio)
                    throw error
                }
                await neighbourhood.close()
                closeCapture(of: session.radio)
                return result
            }
        case .tcpClient, .tcpServer, .unix, .serial, .hciSocket:
            let transport: any HCITransport
            do {
                transport = try await moniker.openHostTransport(logger: logging.logger("ble.transport"))
            } catch {
                throw CommandFailure("--transport \(moniker): \(error)")
            }
            let radio = try captured(.transport(transport))
            defer { closeCapture(of: radio) }
            return try await body(
                RadioSession(
                    radio: radio, clock: ContinuousClock(), executor: nil, virtualRadio: nil,
                    hostConfiguration: link.applied(to: logging.hostConfiguration), logLevel: logging.level))
        }
    }

    /// The radio recording into `--capture`'s file, when given.
    private func captured(_ radio: Radio) throws -> Radio {
        do {
            return try radio.capturing(toFile: capture)
        } catch {
            throw CommandFailure("--capture \(capture ?? ""): \(error)")
        }
    }

    /// Closes the capture file; a write error is worth a warning, not a failed command.
    private func closeCapture(of radio: Radio) {
        if let error = radio.capture?.close() {
            FileHandle.standardError.write(Data("warning: capture: \(error)\n".utf8))
        }
    }
}

/// What a command's body runs with: the radio for its manager, the clock its timeouts read
/// (virtual time on the virtual radio) and where its own tasks must run (the simulation's
/// executor, so that the simulation sees them).
struct RadioSession: Sendable {
    let radio: Radio
    let clock: any Clock<Duration>
    let executor: (any TaskExecutor)?
    /// The virtual radio when the transport is `virtual`, nil otherwise.
    let virtualRadio: VirtualRadio?
    /// The settings of the command's host: its logger (`--log-level`, `-v`).
    let hostConfiguration: HostConfiguration
    /// `--log-level` (or `-v`), nil when the command stays silent.
    let logLevel: Logger.Level?

    /// A logger for one part of the command's stack, at the command's level.
    func logger(_ label: String) -> Logger { LoggingOptions.logger(label, level: logLevel) }

    /// Starts a task where the radio's work runs.
    @discardableResult
    func spawn<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> Task<T, Never> {
        Task(executorPreference: executor, operation: operation)
    }

    /// Sleeps on the radio's clock; false when cancelled.
    func sleep(for duration: Duration) async -> Bool {
        do {
            try await clock.sleep(for: duration)
            return true
        } catch {
            return false
        }
    }
}
