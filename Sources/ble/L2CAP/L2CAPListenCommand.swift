import ArgumentParser
import BLE
import BLEHost
import BLEWire

/// `ble l2cap listen [--encryption] [--psm PSM] [--echo]`: publishes a PSM
/// (`publishL2CAPChannel(withEncryption:)`), advertises, and prints every SDU centrals send
/// on their channels (or sends it back with --echo), until stopped.
struct L2CAPListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Publish an L2CAP PSM, advertise, and print (or echo) what centrals send on their channels.",
        discussion: """
            Prints the PSM and the address centrals reach it at, then one line per channel opened \
            or closed and per SDU received (length, hex, text; control characters escaped). With \
            --encryption, a central on an unencrypted link is refused with Insufficient Encryption \
            (Core 5.4 Vol 3 Part A §4.23). Runs until Ctrl-C or SIGTERM, or for --duration seconds.

            Example: ble l2cap listen --echo --transport tcp-client:127.0.0.1:9001
            """)

    @Flag(help: "Require an encrypted link.") var encryption = false
    @Option(help: "The PSM to publish (0x80…0xFF); default: the first free one.") var psm: String?
    @Flag(help: "Send every SDU back on its channel.") var echo = false
    @Option(help: "Stop after this many seconds (virtual time on the virtual radio).") var duration: Double?
    @OptionGroup var radio: RadioOptions

    func validate() throws {
        if let psm { _ = try L2CAPCommand.parsePSM(psm) }
        if let duration { try checkSeconds(duration, option: "--duration") }
    }

    func run() async throws {
        let wanted = try psm.map(L2CAPCommand.parsePSM)
        let (encryption, echo, seconds) = (self.encryption, self.echo, duration)
        let signals = StopSignals()
        try await radio.withRadio(pacing: seconds == nil ? .wallClock : .unpaced) { session in
            let manager = try await attempt("starting the peripheral") {
                try await PeripheralManager(
                    radio: session.radio, configuration: session.hostConfiguration,
                    gap: GAPServiceConfiguration(deviceName: "ble l2cap"))
            }
            do {
                try await attempt("powering on") { try await manager.powerOn() }
                let incoming = await manager.incomingL2CAPChannels()
                let psm = try await attempt("publishing the PSM") {
                    try await manager.publishL2CAPChannel(withEncryption: encryption, psm: wanted)
                }
                try await attempt("advertising") {
                    try await manager.startAdvertising(AdvertisementData(localName: "ble l2cap"))
                }
                let address = await manager.address.map { "\($0)" } ?? "?"
                Console.out(
                    "listening on PSM \(L2CAPCommand.format(psm)) at \(address)"
                        + (encryption ? ", encrypted links only" : "") + (echo ? ", echoing" : ""))
                let (stops, stop) = AsyncStream.makeStream(of: String.self)
                let tasks = [
                    session.spawn {
                        var count = 0
                        for await channel in incoming {
                            count += 1
                            let name = "channel \(count)"
                            Console.out("\(name) from \(channel.peerAddress), MTU \(channel.outgoingMTU)")
                            _ = session.spawn {
                                for await sdu in channel.incoming {
                                    Console.out(L2CAPCommand.render(sdu, from: name))
                                    if echo { try? await channel.write(sdu) }
                                }
                                Console.out("\(name) closed: \(await channel.closeReason.map { "\($0)" } ?? "closed")")
                            }
                        }
                        stop.yield("the peripheral manager closed")
                    },
                    session.spawn {
                        let signal = await signals.next()
                        stop.yield("received \(StopSignals.name(signal))")
                    },
                    session.spawn {
                        guard let seconds, await session.sleep(for: .seconds(seconds)) else { return }
                        stop.yield("\(GATTCommandError.format(seconds)) s elapsed")
                    },
                ]
                var reasons = stops.makeAsyncIterator()
                let reason = await reasons.next() ?? "stopped"
                for task in tasks { task.cancel() }
                Console.err("stopping: \(reason)")
                await manager.close()
            } catch {
                await manager.close()
                throw error
            }
        }
    }
}
