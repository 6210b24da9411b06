import ArgumentParser
import BLE
import BLEWire

/// `ble scan`: active scanning (Core 5.4 Vol 3 Part C §9.2.6 general discovery; Vol 4 Part E
/// §7.8.10–§7.8.11), one line per discovery.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan for advertising devices and print one line per discovery.",
        discussion: """
            Each line shows the address, RSSI, local name, advertised service UUIDs, manufacturer \
            data (company identifier and octets in hex) and service data. On the virtual radio \
            (the default) the sample neighbourhood answers: HRS-1, LOG-2 and TAG-3; --duration is \
            then virtual time and the scan is over at once.

            Example: ble scan --duration 2 --service 180D --json
            """)

    @Option(help: "How long to scan, in seconds (virtual time on the virtual radio).")
    var duration: Double = 3

    @Option(
        name: .customLong("service"),
        help: ArgumentHelp("Report only devices advertising this service UUID. Repeatable.", valueName: "uuid"))
    var services: [String] = []

    @Flag(help: "Report every advertisement, not each device once.")
    var allowDuplicates = false

    @Flag(help: "Print one JSON object per discovery.")
    var json = false

    @OptionGroup var radio: RadioOptions

    func validate() throws {
        try checkSeconds(duration, option: "--duration")
        for service in services { _ = try parseUUID(service, what: "service UUID") }
    }

    func run() async throws {
        let filter = try services.map { try parseUUID($0, what: "service UUID") }
        let options = ScanOptions(allowDuplicates: allowDuplicates)
        let seconds = duration
        let json = self.json
        try await radio.withRadio { session in
            let central = await CentralManager(radio: session.radio, configuration: session.hostConfiguration)
            do {
                try await attempt("powering on") { try await central.powerOn() }
                let discoveries = try await attempt("scanning") {
                    try await central.scanForPeripherals(withServices: filter.isEmpty ? nil : filter, options: options)
                }
                let timer = session.spawn {
                    if await session.sleep(for: .seconds(seconds)) {
                        await central.stopScan()
                    }
                }
                for await discovery in discoveries {
                    Console.out(json ? try Self.json(discovery) : Self.line(discovery))
                }
                timer.cancel()
                // The scan also ends when the controller goes away: that is a failure.
                if let lost = await central.lostTransport { throw ControllerLost(error: lost) }
                await central.close()
            } catch {
                await central.close()
                throw error
            }
        }
    }

    static func line(_ discovery: Discovery) -> String {
        let data = discovery.advertisementData
        var parts = ["\(discovery.peripheral.address)", "RSSI \(discovery.rssi) dBm"]
        parts.append(data.localName.map { "name \(TerminalText.quoted($0))" } ?? "no name")
        if !data.serviceUUIDs.isEmpty {
            parts.append("services " + data.serviceUUIDs.map(\.description).joined(separator: ","))
        }
        if let manufacturer = data.manufacturerData {
            parts.append(
                "manufacturer \(Hex.prefixed(manufacturer.companyIdentifier, width: 4)) \(Hex.string(manufacturer.data))"
            )
        }
        for (uuid, value) in data.serviceData.sorted(by: { $0.key < $1.key }) {
            parts.append("service data \(uuid) \(Hex.string(value))")
        }
        if !data.isConnectable { parts.append("not connectable") }
        return parts.joined(separator: "  ")
    }

    /// The `--json` object of one discovery: every key present, `null` for what was not
    /// advertised.
    struct JSONDiscovery: Encodable {
        struct Manufacturer: Encodable {
            var company: UInt16
            var data: String
        }

        var address: String
        var addressType: String
        var rssi: Int
        @NullWhenAbsent var name: String?
        var connectable: Bool
        var services: [String]
        @NullWhenAbsent var manufacturerData: Manufacturer?
        /// Service data by service UUID.
        var serviceData: [String: String]
    }

    static func json(_ discovery: Discovery) throws -> String {
        let data = discovery.advertisementData
        let address = discovery.peripheral.address
        return try JSONOutput.line(
            JSONDiscovery(
                address: address.address.description, addressType: address.type.isRandom ? "random" : "public",
                rssi: discovery.rssi, name: data.localName, connectable: data.isConnectable,
                services: data.serviceUUIDs.map(\.description),
                manufacturerData: data.manufacturerData.map {
                    JSONDiscovery.Manufacturer(company: $0.companyIdentifier, data: Hex.string($0.data))
                },
                serviceData: Dictionary(
                    data.serviceData.map { ($0.key.description, Hex.string($0.value)) }, uniquingKeysWith: { a, _ in a })))
    }
}
