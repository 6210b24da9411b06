import ArgumentParser
import BLE
import BLEHost

/// `ble serve --gatt FILE.json`: a GATT server (Core 5.4 Vol 3 Part G) and its advertising from a
/// JSON description, answering centrals until stopped.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a GATT server and advertise it, as a JSON file describes (schema: docs/gatt-json.md).",
        discussion: """
            Publishes the file's services (primary, secondary, included), characteristics \
            (properties, permissions, values as hex or text, descriptors) and advertises its name, \
            service UUIDs, manufacturer and service data. Prints its address, then one line per \
            connection, read, write, subscription and pairing (--io sets what this side can show and \
            type; a passkey to type or a number to confirm comes from --passkey and --confirm, or \
            standard input). Runs until Ctrl-C or SIGTERM, or for \
            --duration seconds. A mistake in the file is reported with its path in the document \
            (e.g. services[1].characteristics[0].properties[2]) and exit status 1.

            Example: ble serve --gatt docs/examples/thermometer.json --transport tcp-client:127.0.0.1:9001
            """)

    @Option(name: .customLong("gatt"), help: ArgumentHelp("The GATT description.", valueName: "file.json"))
    var file: String

    @Option(help: "Stop after this many seconds (virtual time on the virtual radio).")
    var duration: Double?

    @OptionGroup var radio: RadioOptions
    @OptionGroup var pairing: PairingOptions

    func validate() throws {
        if let duration { try checkSeconds(duration, option: "--duration") }
    }

    func run() async throws {
        let document = try GATTDocument.load(path: file)
        let seconds = duration
        let signals = StopSignals()
        let pairing = self.pairing
        try await radio.withRadio(pacing: seconds == nil ? .wallClock : .unpaced) { session in
            let manager = try await attempt("starting the GATT server") {
                try await PeripheralManager(
                    radio: session.radio, configuration: pairing.applied(to: session.hostConfiguration),
                    gap: document.gap)
            }
            do {
                let server = try await GATTServerSession.start(document, manager: manager)
                let reason = try await server.serve(session: session, duration: seconds, signals: signals)
                Console.err("stopping: \(reason)")
                await manager.close()
            } catch {
                await manager.close()
                throw error
            }
        }
    }
}
