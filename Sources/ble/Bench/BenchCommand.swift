import ArgumentParser
import BLEController
import BLE
import BLEBenchmarks
import BLEWire

/// `ble bench …`: measurements.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Measure throughput on the virtual radio.",
        subcommands: [
            AirtimeBenchCommand.self, GATTBenchCommand.self, L2CAPBenchCommand.self, IdleBenchCommand.self,
            OTABenchCommand.self, PhoneBenchCommand.self,
        ])
}

extension PHY: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument.uppercased() {
        case "1M": self = .le1M
        case "2M": self = .le2M
        case "S2": self = .codedS2
        case "S8": self = .codedS8
        default: return nil
        }
    }

    public static var allValueStrings: [String] { ["1M", "2M", "S2", "S8"] }
}

extension AirTimeProfile: ExpressibleByArgument {
    /// A profile by its name (case-insensitive); help and errors list every name.
    public init?(argument: String) {
        self.init(named: argument)
    }
}

/// `--rule`: how a connection event ends in the air-time model.
enum EventEndRuleOption: String, ExpressibleByArgument, CaseIterable, Encodable {
    /// Rule A: the event runs while packets fit (ideal).
    case a = "A"
    /// Rule B: a packet goes out only with room for a full-size reply after it.
    case b = "B"

    /// "A" or "B", either case, as before the option was typed.
    init?(argument: String) {
        self.init(rawValue: argument.uppercased())
    }

    var rule: LinkTiming.EndRule {
        switch self {
        case .a: .ruleA
        case .b: .ruleB
        }
    }
}

/// `--direction`: which way the stream goes.
enum StreamDirectionOption: String, ExpressibleByArgument, CaseIterable, Encodable {
    /// Write Commands, central → peripheral.
    case write
    /// Notifications, peripheral → central.
    case notify
}

/// `ble bench airtime`: streams between two of our hosts on the virtual radio and compares the
/// goodput measured in virtual time with the air-time model.
struct AirtimeBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "airtime",
        abstract: "Stream between two hosts on the virtual radio; compare goodput with the air-time model.",
        discussion: """
            Two hosts of ours, each on a virtual controller, connect with the given interval and
            event length, set the data length and PHY, exchange the ATT MTU, optionally encrypt,
            and stream full-size Write Commands (central → peripheral) or notifications
            (peripheral → central). Goodput is measured in virtual time over whole connection
            intervals and set beside the model's prediction and ceiling.
            Example: ble bench airtime --phy 2M --ll 251 --mtu 247 --interval 7.5 --rule B --encrypted
            """)

    @Option(help: "PHY: 1M, 2M, S2 or S8.") var phy: PHY = .le2M
    @Option(help: "LL data length (27–251 octets).") var ll: Int = 251
    @Option(help: "ATT MTU (23–517).") var mtu: Int = 247
    @Option(help: "Connection interval in ms (7.5–4000, a multiple of 1.25).") var interval: Double = 7.5
    @Option(name: .customLong("event-length"), help: "Event length in ms (a multiple of 0.625); default: the interval.")
    var eventLength: Double?
    @Option(help: "Event end rule: A (ideal) or B (room for a full reply).") var rule: EventEndRuleOption = .b
    @Flag(help: "Encrypt the link (air time includes the MIC).") var encrypted = false
    @Option(help: "write (Write Command, central → peripheral) or notify (peripheral → central).")
    var direction: StreamDirectionOption = .write
    @Option(help: "At most this many packet pairs per event.") var cap: Int?
    @Option(help: "Application octets to stream.") var bytes: Int = 500_000
    @Flag(help: "Print the result as JSON.") var json = false
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard (27...251).contains(ll) else { throw ValidationError("--ll must be 27…251, got \(ll)") }
        guard (23...517).contains(mtu) else { throw ValidationError("--mtu must be 23…517, got \(mtu)") }
        guard (7.5...4000).contains(interval), (interval / 1.25).rounded() == interval / 1.25 else {
            throw ValidationError("--interval must be 7.5…4000 ms in steps of 1.25 ms, got \(interval)")
        }
        if let eventLength {
            guard eventLength > 0, eventLength <= interval, (eventLength / 0.625).rounded() == eventLength / 0.625
            else { throw ValidationError("--event-length must be > 0, ≤ the interval, in steps of 0.625 ms") }
        }
        if let cap, cap < 1 { throw ValidationError("--cap must be at least 1") }
        guard bytes > 0, bytes <= 100_000_000 else { throw ValidationError("--bytes must be 1…100000000") }
    }

    func run() async throws {
        var parameters = AirtimeBenchmark.Parameters()
        parameters.phy = phy
        parameters.llOctets = ll
        parameters.attMTU = mtu
        parameters.intervalUnits = UInt16((interval / 1.25).rounded())
        parameters.eventLengthUnits = eventLength.map { UInt16(($0 / 0.625).rounded()) }
        parameters.rule = rule.rule
        parameters.encrypted = encrypted
        parameters.traffic = direction == .notify ? .notification : .writeWithoutResponse
        parameters.packetsPerEventCap = cap
        parameters.bytes = bytes
        let wallStart = ContinuousClock.now
        let result = try await AirtimeBenchmark.run(parameters)
        let wall = wallStart.duration(to: .now)
        print(json ? try Self.json(result, wall: wall) : Self.text(result, wall: wall))
    }

    static func text(_ r: AirtimeBenchmark.Result, wall: Duration) -> String {
        let p = r.parameters
        let eventMs = Double(p.eventLength.nanosecondsClamped) / 1e6
        let intervalMs = Double(p.interval.nanosecondsClamped) / 1e6
        let direction =
            p.traffic == .notification
            ? "notifications (peripheral → central)" : "write without response (central → peripheral)"
        return """
            ble bench airtime — \(p.phy), LL \(p.llOctets), ATT MTU \(p.attMTU), interval \(format(intervalMs)) ms, \
            event \(format(eventMs)) ms, \(p.rule)\(p.packetsPerEventCap.map { ", cap \($0)" } ?? ""), \
            \(p.encrypted ? "encrypted" : "unencrypted"), \(direction)
              delivered  \(r.deliveredOctets) octets in \(format(seconds(r.virtualTime))) s of virtual time \
            (\(format(seconds(wall))) s wall)
              measured   \(format(r.measuredKbps)) kbit/s over \(format(seconds(r.window))) s of whole intervals
              predicted  \(format(r.predictedKbps)) kbit/s (\(p.rule), \(r.predictedPacketsPerEvent) packets/event) \
              measured/predicted \(format(100 * r.measuredKbps / r.predictedKbps)) %
              ceiling    \(format(r.ceilingKbps)) kbit/s   measured/ceiling \(format(100 * r.measuredKbps / r.ceilingKbps)) %
            """
    }

    /// The `--json` object: the parameters and the figures, durations in milliseconds or seconds
    /// and rates in kbit/s to two decimals, ratios to five.
    struct JSONResult: Encodable {
        var phy: String
        var ll: Int
        var mtu: Int
        var intervalMs: Double
        var eventLengthMs: Double
        var rule: EventEndRuleOption
        var encrypted: Bool
        var direction: StreamDirectionOption
        @NullWhenAbsent var cap: Int?
        var deliveredOctets: Int
        var virtualSeconds: Double
        var wallSeconds: Double
        var measuredKbps: Double
        var predictedKbps: Double
        var ceilingKbps: Double
        var predictedPacketsPerEvent: Int
        var measuredOverPredicted: Double
        var measuredOverCeiling: Double
    }

    static func json(_ r: AirtimeBenchmark.Result, wall: Duration) throws -> String {
        let p = r.parameters
        return try JSONOutput.line(
            JSONResult(
                phy: "\(p.phy)", ll: p.llOctets, mtu: p.attMTU,
                intervalMs: (Double(p.interval.nanosecondsClamped) / 1e6).rounded(digits: 2),
                eventLengthMs: (Double(p.eventLength.nanosecondsClamped) / 1e6).rounded(digits: 2),
                rule: p.rule == .ruleA ? .a : .b, encrypted: p.encrypted,
                direction: p.traffic == .notification ? .notify : .write, cap: p.packetsPerEventCap,
                deliveredOctets: r.deliveredOctets, virtualSeconds: seconds(r.virtualTime).rounded(digits: 2),
                wallSeconds: seconds(wall).rounded(digits: 2), measuredKbps: r.measuredKbps.rounded(digits: 2),
                predictedKbps: r.predictedKbps.rounded(digits: 2), ceilingKbps: r.ceilingKbps.rounded(digits: 2),
                predictedPacketsPerEvent: r.predictedPacketsPerEvent,
                measuredOverPredicted: (r.measuredKbps / r.predictedKbps).rounded(digits: 5),
                measuredOverCeiling: (r.measuredKbps / r.ceilingKbps).rounded(digits: 5)))
    }

    static func seconds(_ duration: Duration) -> Double { Double(duration.nanosecondsClamped) / 1e9 }

    static func format(_ value: Double, digits: Int = 2) -> String {
        var text = String(value.rounded(digits: digits))
        if let dot = text.firstIndex(of: ".") {
            let decimals = text.distance(from: dot, to: text.endIndex) - 1
            if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
        } else {
            text += "." + String(repeating: "0", count: digits)
        }
        return text
    }

}

extension Double {
    /// Rounded to `digits` decimal places, for figures reported with that precision.
    func rounded(digits: Int) -> Double {
        let scale = (0..<digits).reduce(1.0) { scale, _ in scale * 10 }
        return (self * scale).rounded() / scale
    }
}

/// `ble bench idle`: how fast the simulation runs an idle connection.
struct IdleBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle", abstract: "Simulate an idle connection for a virtual duration; report the wall time.")

    @Option(help: "Connection interval in ms (a multiple of 1.25).") var interval: Double = 15
    @Option(help: "Virtual seconds to simulate.") var seconds: Double = 3600
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard (7.5...4000).contains(interval), (interval / 1.25).rounded() == interval / 1.25 else {
            throw ValidationError("--interval must be 7.5…4000 ms in steps of 1.25 ms")
        }
        guard seconds > 0, seconds <= 86_400 else { throw ValidationError("--seconds must be 0…86400") }
    }

    func run() async throws {
        let result = try await IdleLinkBenchmark.run(
            intervalUnits: UInt16((interval / 1.25).rounded()), duration: .milliseconds(Int64(seconds * 1000)))
        let wall = AirtimeBenchCommand.seconds(result.wallTime)
        print(
            "ble bench idle — \(AirtimeBenchCommand.format(seconds)) s of an idle connection at "
                + "\(AirtimeBenchCommand.format(interval)) ms: \(result.connectionEvents) connection events in "
                + "\(AirtimeBenchCommand.format(wall, digits: 3)) s of wall time"
                + (result.stillConnected ? "" : " (the link dropped!)"))
    }
}
