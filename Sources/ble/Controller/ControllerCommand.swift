import ArgumentParser
import BLEController
import BLETransport
import BLEVirtualHCI
import BLEWire
import Dispatch
import Foundation

/// `ble controller`: virtual controllers on one virtual air, each served over HCI (H4 over TCP
/// or a UNIX socket, Core 5.4 Vol 4 Part A §2), for any host stack to drive.
struct ControllerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controller",
        abstract: "Serve virtual controllers on one virtual air over HCI (H4 over TCP or UNIX sockets).",
        discussion: """
            Each --listen adds one controller to a virtual air paced to the wall clock and serves it \
            on that address as plain H4 with no handshake (what Bumble's tcp-client: and unix: \
            transports and Android's HCI-over-TCP speak). One host per controller: a new connection \
            replaces the current one once the old one is closed, its unread input discarded and the \
            controller reset (no host ever sees another's traffic), and a host that disconnects \
            leaves its controller reset for the next. A host's input is read only as fast as its \
            controller takes it, so a flooding host costs bounded memory and the other controllers \
            stay served. Stop with Ctrl-C or SIGTERM.

            Example: ble controller --listen tcp-server:127.0.0.1:9001 --listen tcp-server:127.0.0.1:9002
            """)

    @Option(
        name: .customLong("listen"),
        help: "Where a controller listens: tcp-server:HOST:PORT (port 0: any free port) or unix:PATH. Repeatable.")
    var listen: [String] = []

    @Option(
        help: ArgumentHelp(
            "Air-time profile whose scheduling (end rule, packets-per-event cap) the controllers use.",
            valueName: "NAME"))
    var profile: AirTimeProfile?

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        _ = try Self.monikers(listen)
    }

    func run() async throws {
        let monikers = try Self.monikers(listen)
        var configuration = VirtualController.Configuration()
        configuration.logger = logging.logger("ble.controller")
        if let profile {
            let timing = profile.linkTiming()
            configuration.scheduling = LinkLayerScheduling(
                endRule: timing.endRule, maxPacketsPerEvent: timing.maxPacketsPerEvent)
        }
        let terminated = StopSignals()
        let radio = VirtualRadio(pacing: .paced(rate: 1))
        let server = VirtualControllerServer(logger: logging.logger("ble.controller-server"))
        let log = Task { await Self.log(server.events) }
        do {
            for (index, moniker) in monikers.enumerated() {
                // One metre apart on a line: every controller hears every other.
                let port = await radio.addController(
                    at: AirPosition(x: Double(index), y: 0, z: 0), configuration: configuration)
                let listener = try await server.listen(on: moniker, serving: port)
                let address = await port.withController { $0.publicAddress }
                Self.printFlushed("controller \(index + 1) listening on \(listener.moniker), address \(address)")
            }
        } catch {
            await server.close()
            await log.value
            throw error
        }
        let signal = await terminated.next()
        Self.printFlushed("received \(StopSignals.name(signal)), closing listeners", to: .standardError)
        await server.close()
        await log.value
    }

    static func monikers(_ texts: [String]) throws -> [TransportMoniker] {
        guard !texts.isEmpty else {
            throw ValidationError("give at least one --listen tcp-server:HOST:PORT or unix:PATH")
        }
        return try texts.map { text in
            let moniker: TransportMoniker
            do {
                moniker = try TransportMoniker(parsing: text)
            } catch {
                throw ValidationError("--listen \(text): \(error)")
            }
            switch moniker {
            case .tcpServer, .unix: return moniker
            case .virtual, .tcpClient, .serial, .hciSocket:
                throw ValidationError("--listen \(text): a controller listens on tcp-server:HOST:PORT or unix:PATH")
            }
        }
    }

    /// One line per client event, on standard error (standard output carries the listeners).
    static func log(_ events: AsyncStream<VirtualControllerServer.Event>) async {
        for await event in events {
            let line =
                switch event {
                case .attached(let index, let peer): "controller \(index + 1): host connected from \(peer)"
                case .transportFailed(let index, let failure):
                    "controller \(index + 1): closing the host's connection: \(failure)"
                case .inputHeld(let index):
                    "controller \(index + 1): the host leaves its events unread; its input waits until it reads them"
                case .inputDiscarded(let index, let octets):
                    "controller \(index + 1): discarded \(octets) octets the departed host had sent"
                case .released(let index, let reason):
                    switch reason {
                    case .disconnected: "controller \(index + 1): host disconnected; controller reset"
                    case .replaced: "controller \(index + 1): host replaced by a new connection; controller reset"
                    case .serverClosed: "controller \(index + 1): host disconnected by the server; controller reset"
                    }
                }
            printFlushed(line, to: .standardError)
        }
    }

    enum Stream { case standardOutput, standardError }

    /// Prints a line and flushes it at once: the line announcing a listener is what scripts
    /// wait for, and a pipe would otherwise hold it back.
    static func printFlushed(_ line: String, to stream: Stream = .standardOutput) {
        let handle: FileHandle =
            switch stream {
            case .standardOutput: .standardOutput
            case .standardError: .standardError
            }
        handle.write(Data((line + "\n").utf8))
    }
}
