import ArgumentParser
import BLE
import BLEBenchmarks
import BLEController

/// `ble bench l2cap`: SDU throughput over an LE credit based channel on the virtual radio,
/// beside the air-time model's prediction.
struct L2CAPBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "l2cap",
        abstract: "SDUs over an L2CAP credit based channel through the public API, measured against the air-time model.",
        discussion: """
            A PeripheralManager publishes a PSM, a CentralManager connects with the profile's link \
            (ideal: LE 2M, LL 251, 7.5 ms, rule A) and opens a channel, then writes --count SDUs \
            of --frames K-frames each (the SDU fills them: frames × MPS − 2 octets), paced by the \
            peer's credits (Core 5.4 Vol 3 Part A §10.1). Every SDU is checked on arrival. The \
            prediction is the model's goodput for K-frames of MPS + 4 octets.
            Example: ble bench l2cap --count 5000 --profile ideal
            """)

    @Option(help: "SDUs to send.") var count: Int = 2_000
    @Option(help: "K-frames per SDU (1…8 with the default MTU 2048 and MPS 247).") var frames: Int = 8
    @Option(help: "Air-time profile of the link.") var profile: AirTimeProfile = .ideal
    @Flag(help: "Print the result as JSON.") var json = false
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard (1...10_000_000).contains(count) else { throw ValidationError("--count must be 1…10000000") }
        guard (1...8).contains(frames) else { throw ValidationError("--frames must be 1…8") }
    }

    func run() async throws {
        var parameters = L2CAPBenchmark.Parameters()
        parameters.profile = profile
        parameters.sdus = count
        parameters.framesPerSDU = frames
        let result = try await L2CAPBenchmark.run(parameters)
        print(json ? try Self.json(result) : Self.text(result))
    }

    /// The `--json` object.
    struct JSONResult: Encodable {
        var profile: String
        var sdus: Int
        var sduLength: Int
        var framesPerSDU: Int
        var mps: Int
        var octets: Int
        var wallSeconds: Double
        var wallMBps: Double
        @NullWhenAbsent var virtualKbps: Double?
        var predictedKbps: Double
        var violations: Int
    }

    static func json(_ r: L2CAPBenchmark.Result) throws -> String {
        let t = r.throughput
        return try JSONOutput.line(
            JSONResult(
                profile: "\(r.parameters.profile)", sdus: t.values, sduLength: r.sduLength,
                framesPerSDU: r.parameters.framesPerSDU, mps: r.mps, octets: t.octets,
                wallSeconds: AirtimeBenchCommand.seconds(t.wallTime).rounded(digits: 6),
                wallMBps: t.wallMegabytesPerSecond.rounded(digits: 2), virtualKbps: t.virtualKbps?.rounded(digits: 2),
                predictedKbps: t.predictedKbps.rounded(digits: 2), violations: r.violations))
    }

    static func format(_ value: Double, digits: Int = 2) -> String { AirtimeBenchCommand.format(value, digits: digits) }

    static func text(_ r: L2CAPBenchmark.Result) -> String {
        let t = r.throughput
        let measured = t.virtualKbps.map { format($0) } ?? "–"
        let ratio = t.virtualKbps.map { " (\(format($0 / t.predictedKbps * 100)) % of predicted)" } ?? ""
        return [
            "ble bench l2cap — profile \(r.parameters.profile), SDUs of \(r.sduLength) octets in "
                + "\(r.parameters.framesPerSDU) K-frames of MPS \(r.mps), virtual radio unpaced",
            "SDUs \(t.values), \(t.octets) octets; wall \(format(AirtimeBenchCommand.seconds(t.wallTime), digits: 3)) s, "
                + "\(format(t.wallMegabytesPerSecond)) MB/s",
            "virtual goodput \(measured) kbit/s, predicted \(format(t.predictedKbps)) kbit/s\(ratio)",
            "channel violations \(r.violations)",
        ].joined(separator: "\n")
    }
}
