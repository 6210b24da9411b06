import ArgumentParser
import BLE
import BLETransport

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
    /// cannot be opened ends the command with its typed error as a one-line message.
    func withRadio<T: Sendable>(
        pacing: VirtualPacing = .unpaced, _ body: @escaping @Sendable (RadioSession) async throws -> T
    ) async throws -> T {
        let moniker = try moniker()
        switch moniker {
        case .virtual:
            let radio = VirtualRadio(pacing: pacing == .wallClock ? .paced(rate: 1) : .virtual)
            let simulation = radio.simulation
            return try await simulation.run {
                let neighbourhood = try await VirtualNeighbourhood.start(on: radio)
                let session = RadioSession(
                    radio: .virtual(
                        radio, position: VirtualNeighbourhood.commandPosition,
                        controller: VirtualController.Configuration(publicAddress: VirtualNeighbourhood.commandAddress)),
                    clock: simulation.clock, executor: simulation.executor)
                let result: T
                do {
                    result = try await body(session)
                } catch {
                    await neighbourhood.close()
                    throw error
                }
                await neighbourhood.close()
                return result
            }
        case .tcpClient, .tcpServer, .unix, .serial, .hciSocket:
            let transport: any HCITransport
            do {
                transport = try await moniker.openHostTransport()
            } catch {
                throw CommandFailure("--transport \(moniker): \(error)")
            }
            return try await body(RadioSession(radio: .transport(transport), clock: ContinuousClock(), executor: nil))
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
