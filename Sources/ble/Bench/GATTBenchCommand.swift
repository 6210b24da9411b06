import ArgumentParser
import BLE
import BLEBenchmarks
import BLEWire
import BLEController
import BLESimulation
import BLETransport
import Foundation

/// `ble bench gatt`: GATT throughput and round trips between a peripheral manager and a
/// central manager on the virtual radio, in wall time and virtual time.
struct GATTBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract: "Notifications, write round trips and writes without response through the public API.",
        discussion: """
            A PeripheralManager and a CentralManager, each with its own host and virtual controller,
            connect with the profile's link (ideal: LE 2M, LL 251, ATT MTU 247, 7.5 ms, rule A),
            subscribe, then: stream --count notifications of ATT_MTU − 3 octets (updateValue with its
            back-pressure), time --round-trips Write Requests one after the other, and stream --count
            writes without response (canSendWriteWithoutResponse flow control). Every value is checked
            on arrival (order and content). The virtual radio is unpaced: wall figures say how fast
            this stack runs, virtual figures how fast the air would carry the traffic.
            Example: ble bench gatt --count 100000 --profile ideal
            """)

    @Option(help: "Notifications and writes without response to stream.") var count: Int = 50_000
    @Option(name: .customLong("round-trips"), help: "Write requests to time.") var roundTrips: Int = 2_000
    @Option(help: "Air-time profile of the link.") var profile: AirTimeProfile = .ideal
    @Flag(help: "Print the result as JSON.") var json = false
    @Option(
        name: .customLong("transport"),
        help: ArgumentHelp(
            "The central's controller: virtual (default: both devices on one in-process virtual radio) or an HCI "
                + "transport moniker (tcp-client:HOST:PORT, unix:PATH, serial:DEVICE[,SPEED], hci-socket:INDEX, …).",
            valueName: "MONIKER"))
    var transport = "virtual"
    @Option(
        name: .customLong("peer-transport"),
        help: ArgumentHelp(
            "The peripheral's controller: virtual, or an HCI transport moniker (with --transport one too).",
            valueName: "MONIKER"))
    var peerTransport = "virtual"

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard (1...10_000_000).contains(count) else { throw ValidationError("--count must be 1…10000000") }
        guard (1...1_000_000).contains(roundTrips) else { throw ValidationError("--round-trips must be 1…1000000") }
        _ = try monikers()
    }

    /// The central's and the peripheral's transports: both virtual, or both HCI transports (an
    /// in-process virtual controller cannot reach a controller in another process).
    func monikers() throws -> (central: TransportMoniker, peripheral: TransportMoniker)? {
        func parse(_ text: String, _ option: String) throws -> TransportMoniker {
            do {
                return try TransportMoniker(parsing: text)
            } catch {
                throw ValidationError("--\(option) \(text): \(error)")
            }
        }
        let central = try parse(transport, "transport")
        let peripheral = try parse(peerTransport, "peer-transport")
        switch (central, peripheral) {
        case (.virtual, .virtual): return nil
        case (.virtual, _), (_, .virtual):
            throw ValidationError("--transport and --peer-transport must both be virtual or both HCI transports")
        default: return (central, peripheral)
        }
    }

    func run() async throws {
        var parameters = GATTBenchmark.Parameters()
        parameters.profile = profile
        parameters.notifications = count
        parameters.writesWithoutResponse = count
        parameters.roundTrips = roundTrips
        let result: GATTBenchmark.Result
        if let (central, peripheral) = try monikers() {
            parameters.requiresLinkSettings = false
            let centralTransport = try await Self.open(central, option: "transport")
            let peripheralTransport = try await Self.open(peripheral, option: "peer-transport")
            result = try await GATTBenchmark.run(
                parameters, peripheral: .transport(peripheralTransport), central: .transport(centralTransport))
        } else {
            result = try await GATTBenchmark.run(parameters)
        }
        print(json ? try Self.json(result, over: transportLabel) : Self.text(result, over: transportLabel))
    }

    /// What the two hosts ran over, for the report.
    var transportLabel: String {
        transport == "virtual" ? "virtual radio unpaced" : "central on \(transport), peripheral on \(peerTransport)"
    }

    static func open(_ moniker: TransportMoniker, option: String) async throws -> any HCITransport {
        do {
            return try await moniker.openHostTransport()
        } catch {
            throw CommandFailure("--\(option) \(moniker): \(error)")
        }
    }

    static func text(_ r: GATTBenchmark.Result, over label: String = "virtual radio unpaced") -> String {
        let p = r.parameters
        let rows = [
            ("notifications", r.notifications, r.notificationBackPressure, "updateValue false"),
            ("write without response", r.writesWithoutResponse, r.writeBackPressure, "not ready"),
        ]
        var lines = [
            "ble bench gatt — profile \(p.profile), \(p.valueLength)-octet values, \(label)",
            pad("", 24) + pad("values", 10) + pad("wall MB/s", 12) + pad("wall s", 10) + pad("virtual kbit/s", 16)
                + pad("predicted", 12) + "back-pressure",
        ]
        for (name, t, pressure, label) in rows {
            lines.append(
                pad(name, 24) + pad("\(t.values)", 10) + pad(format(t.wallMegabytesPerSecond), 12)
                    + pad(format(AirtimeBenchCommand.seconds(t.wallTime), digits: 3), 10)
                    + pad(t.virtualKbps.map { format($0) } ?? "–", 16) + pad(t.virtualKbps == nil ? "–" : format(t.predictedKbps), 12)
                    + "\(pressure) × \(label)")
        }
        let trips = r.roundTrips
        lines.append(
            "write request round trip (\(trips.count) samples): median \(micro(trips.wallMedian)) µs, "
                + "p90 \(micro(trips.wallP90)) µs, p99 \(micro(trips.wallP99)) µs wall"
                + (trips.virtualMedian.map { "; median \(milli($0)) ms virtual" } ?? ""))
        if let s = r.scheduling {
            func per(_ statistics: SimulationExecutor.Statistics, _ count: Int) -> String {
                let n = Double(max(1, count))
                return "\(format(Double(statistics.jobs) / n)) jobs, \(format(Double(statistics.actions) / n)) actions, "
                    + "\(format(Double(statistics.events) / n)) air events"
            }
            lines.append("simulation thread per value: notification \(per(s.notifications, r.notifications.values))")
            lines.append("  write round trip \(per(s.roundTrips, trips.count))")
            lines.append("  write without response \(per(s.writesWithoutResponse, r.writesWithoutResponse.values))")
        }
        return lines.joined(separator: "\n")
    }

    /// The `--json` object: per stream its values, octets and rates, the write round trip's
    /// percentiles, and the simulation's work per value when it was counted.
    struct JSONResult: Encodable {
        struct Stream: Encodable {
            var values: Int
            var octets: Int
            var wallSeconds: Double
            var wallMBps: Double
            @NullWhenAbsent var virtualKbps: Double?
            var predictedKbps: Double
            var backPressure: Int
        }

        struct RoundTrip: Encodable {
            var samples: Int
            @NullWhenAbsent var wallMedianMicroseconds: Double?
            @NullWhenAbsent var wallP90Microseconds: Double?
            @NullWhenAbsent var wallP99Microseconds: Double?
            @NullWhenAbsent var virtualMedianMilliseconds: Double?
        }

        /// Jobs, actions and air events of the simulation thread per value.
        struct Work: Encodable {
            var jobs: Double
            var actions: Double
            var events: Double
        }

        struct Scheduling: Encodable {
            var notification: Work
            var writeRoundTrip: Work
            var writeWithoutResponse: Work
        }

        var over: String
        var profile: String
        var valueLength: Int
        var notifications: Stream
        var writeWithoutResponse: Stream
        var writeRoundTrip: RoundTrip
        /// Left out when not counted (a run over HCI transports).
        var simulationPerValue: Scheduling?
    }

    static func json(_ r: GATTBenchmark.Result, over label: String = "virtual radio unpaced") throws -> String {
        func stream(_ t: GATTBenchmark.Throughput, _ pressure: Int) -> JSONResult.Stream {
            JSONResult.Stream(
                values: t.values, octets: t.octets,
                wallSeconds: AirtimeBenchCommand.seconds(t.wallTime).rounded(digits: 6),
                wallMBps: t.wallMegabytesPerSecond.rounded(digits: 2), virtualKbps: t.virtualKbps?.rounded(digits: 2),
                predictedKbps: t.predictedKbps.rounded(digits: 2), backPressure: pressure)
        }
        func work(_ statistics: SimulationExecutor.Statistics, _ count: Int) -> JSONResult.Work {
            let n = Double(max(1, count))
            return JSONResult.Work(
                jobs: (Double(statistics.jobs) / n).rounded(digits: 3),
                actions: (Double(statistics.actions) / n).rounded(digits: 3),
                events: (Double(statistics.events) / n).rounded(digits: 3))
        }
        func microseconds(_ duration: Duration?) -> Double? {
            duration.map { (AirtimeBenchCommand.seconds($0) * 1e6).rounded(digits: 1) }
        }
        let trips = r.roundTrips
        return try JSONOutput.line(
            JSONResult(
                over: label, profile: "\(r.parameters.profile)", valueLength: r.parameters.valueLength,
                notifications: stream(r.notifications, r.notificationBackPressure),
                writeWithoutResponse: stream(r.writesWithoutResponse, r.writeBackPressure),
                writeRoundTrip: JSONResult.RoundTrip(
                    samples: trips.count, wallMedianMicroseconds: microseconds(trips.wallMedian),
                    wallP90Microseconds: microseconds(trips.wallP90), wallP99Microseconds: microseconds(trips.wallP99),
                    virtualMedianMilliseconds: trips.virtualMedian.map {
                        (AirtimeBenchCommand.seconds($0) * 1e3).rounded(digits: 3)
                    }),
                simulationPerValue: r.scheduling.map { s in
                    JSONResult.Scheduling(
                        notification: work(s.notifications, r.notifications.values),
                        writeRoundTrip: work(s.roundTrips, trips.count),
                        writeWithoutResponse: work(s.writesWithoutResponse, r.writesWithoutResponse.values))
                }))
    }

    static func micro(_ duration: Duration?) -> String {
        duration.map { format(AirtimeBenchCommand.seconds($0) * 1e6, digits: 1) } ?? "null"
    }

    static func milli(_ duration: Duration?) -> String {
        duration.map { format(AirtimeBenchCommand.seconds($0) * 1e3, digits: 3) } ?? "null"
    }

    static func format(_ value: Double, digits: Int = 2) -> String { AirtimeBenchCommand.format(value, digits: digits) }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
