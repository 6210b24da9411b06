import ArgumentParser
import BLE
import BLEWire

/// `ble subscribe ADDRESS UUID`: enables notifications or indications through the Client
/// Characteristic Configuration (Core 5.4 Vol 3 Part G §4.10, §4.11) and prints each value.
struct SubscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Subscribe to a characteristic's notifications or indications; print one hex line per value.",
        discussion: """
            Notifications when the characteristic has the notify property, else indications. \
            Stops after --count values, after --duration seconds, or on Ctrl-C/SIGTERM, then \
            unsubscribes and disconnects. On the virtual radio, with --count or --duration time \
            is virtual (HRS-1 notifies 2A37 and LOG-2 indicates 9C5A0005-… once a second); \
            with neither it follows the wall clock.

            Example: ble subscribe 00:00:5E:00:53:10 2A37 --count 5
            """)

    @OptionGroup var device: DeviceArguments

    @Argument(help: ArgumentHelp("The characteristic's UUID (180D, or 8-4-4-4-12).", valueName: "uuid"))
    var characteristic: String

    @Option(help: "Stop after this many values.")
    var count: Int?

    @Option(help: "Stop after this many seconds (virtual time on the virtual radio).")
    var duration: Double?

    func validate() throws {
        _ = try parseUUID(characteristic)
        if let count, count < 1 { throw ValidationError("--count \(count): expected at least 1") }
        if let duration { try checkSeconds(duration, option: "--duration") }
    }

    /// Why the values stopped.
    enum Item: Sendable {
        case value([UInt8])
        case stop(String)
        /// The value stream ended: the link went down.
        case linkLost
    }

    func run() async throws {
        let uuid = try parseUUID(characteristic)
        let count = self.count
        let seconds = duration
        let signals = StopSignals()
        let pacing: RadioOptions.VirtualPacing = count == nil && seconds == nil ? .wallClock : .unpaced
        try await device.withPeripheral(pacing: pacing) { peripheral, session in
            let found = try await peripheral.characteristic(uuid)
            let values = try await attempt("subscribing to \(uuid.labelled)") {
                try await peripheral.values(for: found)
            }
            try await attempt("subscribing to \(uuid.labelled)") {
                try await peripheral.setNotifyValue(true, for: found)
            }
            let kind = found.properties.contains(.notify) ? "notifications" : "indications"
            Console.err("subscribed to \(uuid.labelled) (\(kind))")
            let (items, sink) = AsyncStream.makeStream(of: Item.self)
            let feeders = [
                session.spawn {
                    for await value in values { sink.yield(.value(value)) }
                    if !Task.isCancelled { sink.yield(.linkLost) }
                },
                session.spawn {
                    guard let seconds, await session.sleep(for: .seconds(seconds)) else { return }
                    sink.yield(.stop("\(GATTCommandError.format(seconds)) s elapsed"))
                },
                session.spawn {
                    for await signal in signals.stream {
                        sink.yield(.stop("received \(StopSignals.name(signal))"))
                        return
                    }
                },
            ]
            var received = 0
            var reason = ""
            var linkLost = false
            for await item in items {
                switch item {
                case .value(let value):
                    Console.out(Hex.string(value))
                    received += 1
                    if let count, received >= count { reason = "\(count) value\(count == 1 ? "" : "s") received" }
                case .stop(let why):
                    reason = why
                case .linkLost:
                    linkLost = true
                }
                if !reason.isEmpty || linkLost { break }
            }
            for feeder in feeders { feeder.cancel() }
            if linkLost {
                throw CommandFailure(
                    "the link to \(peripheral.address.address) went down after \(received) value"
                        + (received == 1 ? "" : "s"))
            }
            Console.err("stopping: \(reason)")
            if await peripheral.state == .connected { _ = try? await peripheral.setNotifyValue(false, for: found) }
        }
    }
}
