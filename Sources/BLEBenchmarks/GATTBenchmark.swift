import BLE
import BLEController
import BLEHost
import BLESimulation
import BLEWire

/// The measurement behind `ble bench gatt`: a `PeripheralManager` and a `CentralManager`, set up
/// through the public API, exchange GATT traffic over one link, and the cost is measured in wall
/// time (how fast this stack runs) and, on the virtual radio, in virtual time (how fast the air
/// would carry it).
///
/// Three procedures, in this order, each checked value by value — every value carries its
/// sequence number and a pattern derived from it, and the receiver checks both, so only octets
/// that arrived in order and intact are counted:
/// - notifications (Core 5.4 Vol 3 Part G §4.10) of full-size values, `updateValue` honouring
///   its false / `.readyToUpdateSubscribers` back-pressure, received on the peripheral's value
///   stream;
/// - Write Characteristic Value round trips (§4.9.3): `writeValue(_:for:type: .withResponse)`,
///   answered by the peripheral manager's app with `respond(to:withResult:)`;
/// - Write Without Response (§4.9.1) with `canSendWriteWithoutResponse` and
///   `.readyToSendWriteWithoutResponse` flow control, received on `writeRequests`.
public enum GATTBenchmark {
    public struct Parameters: Sendable {
        /// The link the controllers and hosts set up: PHY, LL data length, interval, event
        /// length, end rule and ATT MTU (the controllers' scheduling is the profile's when
        /// `run(_:)` makes them).
        public var profile: AirTimeProfile = .ideal
        /// Notifications to stream.
        public var notifications = 20_000
        /// Write requests to time, one after the other.
        public var roundTrips = 1_000
        /// Writes without response to stream.
        public var writesWithoutResponse = 20_000
        /// Whether the profile's data length and PHY must be reached before measuring (the
        /// virtual radio grants them), or are only asked for: a real or foreign controller may
        /// refuse them (Bumble's has neither data length extension nor PHY update) and the
        /// benchmark then runs on the link it got.
        public var requiresLinkSettings = true

        public init() {}

        /// The value length of every notification and write: ATT_MTU − 3.
        public var valueLength: Int { profile.attMTU - 3 }
    }

    /// A one-way stream of values.
    public struct Throughput: Sendable {
        /// Values the receiver got, in order and intact, and their octets.
        public var values: Int
        public var octets: Int
        /// From the first send to the last arrival, on the wall clock.
        public var wallTime: Duration
        /// The same span in virtual time (nil off the virtual radio).
        public var virtualTime: Duration?
        /// Goodput in virtual time over whole connection intervals from the first arrival (as
        /// `AirtimeBenchmark` measures it), and the air-time model's prediction.
        public var virtualKbps: Double?
        public var predictedKbps: Double

        /// Payload megabytes (10⁶ octets) per wall-clock second.
        public var wallMegabytesPerSecond: Double { Double(octets) / 1e6 / GATTBenchmark.seconds(wallTime) }
    }

    /// Sequential request/response exchanges.
    public struct RoundTrips: Sendable {
        /// Wall-clock time of each exchange, in order.
        public var wallSamples: [Duration]
        /// Virtual time of each exchange (empty off the virtual radio).
        public var virtualSamples: [Duration]

        public var count: Int { wallSamples.count }
        /// The value at `fraction` (0…1) of the sorted samples (nearest rank).
        public static func percentile(_ fraction: Double, of samples: [Duration]) -> Duration? {
            guard !samples.isEmpty else { return nil }
            let sorted = samples.sorted()
            let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return sorted[min(sorted.count - 1, max(0, rank))]
        }

        public var wallMedian: Duration? { Self.percentile(0.5, of: wallSamples) }
        public var wallP90: Duration? { Self.percentile(0.9, of: wallSamples) }
        public var wallP99: Duration? { Self.percentile(0.99, of: wallSamples) }
        public var virtualMedian: Duration? { Self.percentile(0.5, of: virtualSamples) }
    }

    public struct Result: Sendable {
        public var parameters: Parameters
        public var notifications: Throughput
        public var roundTrips: RoundTrips
        public var writesWithoutResponse: Throughput
        /// Times `updateValue` returned false, and `canSendWriteWithoutResponse` was false.
        public var notificationBackPressure: Int
        public var writeBackPressure: Int
        /// On the virtual radio, what the simulation thread ran for each procedure (task jobs,
        /// actions, air events): deterministic, unlike wall time.
        public var scheduling: Scheduling?
    }

    /// The simulation thread's work per procedure (`SimulationExecutor.Statistics`).
    public struct Scheduling: Sendable {
        public var notifications: SimulationExecutor.Statistics
        public var roundTrips: SimulationExecutor.Statistics
        public var writesWithoutResponse: SimulationExecutor.Statistics
    }

    public enum Failure: Error, CustomStringConvertible {
        case setup(String)
        /// A value arrived out of order, altered, or not at all.
        case corrupted(String)

        public var description: String {
            switch self {
            case .setup(let what): "bench setup failed: \(what)"
            case .corrupted(let what): "bench data check failed: \(what)"
            }
        }
    }

    static let serviceUUID = BluetoothUUID(0xB0F0)
    static let dataUUID = BluetoothUUID(0xB0F1)

    /// Runs the benchmark on a new virtual radio whose two controllers schedule as the profile
    /// says (unpaced: virtual time jumps whenever everything waits).
    public static func run(_ parameters: Parameters) async throws -> Result {
        let radio = VirtualRadio()
        let timing = parameters.profile.linkTiming()
        var controller = VirtualController.Configuration()
        controller.scheduling = LinkLayerScheduling(
            endRule: timing.endRule, maxPacketsPerEvent: timing.maxPacketsPerEvent)
        return try await run(
            parameters, peripheral: .virtual(radio, controller: controller),
            central: .virtual(radio, position: AirPosition(x: 1, y: 0, z: 0), controller: controller))
    }

    /// Runs the benchmark between a peripheral manager on `peripheral` and a central manager on
    /// `central`. On a virtual radio it runs inside that radio's simulation and also reports
    /// virtual time.
    public static func run(_ parameters: Parameters, peripheral: Radio, central: Radio) async throws -> Result {
        let simulation = [peripheral, central].lazy.compactMap(\.simulation).first
        guard let simulation else {
            return try await measure(parameters, peripheral: peripheral, central: central, simulation: nil)
        }
        return try await simulation.run {
            try await measure(parameters, peripheral: peripheral, central: central, simulation: simulation)
        }
    }

    static func measure(_ parameters: Parameters, peripheral: Radio, central: Radio, simulation: Simulation?)
        async throws -> Result
    {
        let clock = simulation?.clock
        let session = try await Session.establish(
            parameters: parameters, peripheralRadio: peripheral, centralRadio: central)
        do {
            var mark = simulation?.executor.statistics
            func since() -> SimulationExecutor.Statistics? {
                guard let before = mark, let now = simulation?.executor.statistics else { return nil }
                mark = now
                return now - before
            }
            let (notifications, notificationBackPressure) = try await session.streamNotifications(clock: clock)
            let notifying = since()
            let roundTrips = try await session.timeWriteRequests(clock: clock)
            let tripping = since()
            let (writes, writeBackPressure) = try await session.streamWritesWithoutResponse(clock: clock)
            let writing = since()
            await session.close()
            let scheduling = notifying.flatMap { notifying in
                tripping.flatMap { tripping in
                    writing.map { Scheduling(notifications: notifying, roundTrips: tripping, writesWithoutResponse: $0) }
                }
            }
            return Result(
                parameters: parameters, notifications: notifications, roundTrips: roundTrips,
                writesWithoutResponse: writes, notificationBackPressure: notificationBackPressure,
                writeBackPressure: writeBackPressure, scheduling: scheduling)
        } catch {
            await session.close()
            throw error
        }
    }

    // MARK: Values

    /// The `index`-th value: its sequence number (4 octets, little-endian), then octets derived
    /// from it, so that a lost, repeated, reordered or altered value is caught.
    static func value(_ index: Int, length: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            let sequence = UInt32(truncatingIfNeeded: index)
            for position in 0..<min(4, length) {
                buffer[position] = UInt8(truncatingIfNeeded: sequence >> (8 * UInt32(position)))
            }
            let fill = UInt8(truncatingIfNeeded: index &* 31 &+ 7)
            for position in min(4, length)..<length { buffer[position] = fill &+ UInt8(truncatingIfNeeded: position) }
            initialized = length
        }
    }

    /// Whether `received` is exactly the `index`-th value.
    static func isValue(_ received: [UInt8], _ index: Int, length: Int) -> Bool {
        guard received.count == length else { return false }
        return received.withUnsafeBufferPointer { buffer in
            let sequence = UInt32(truncatingIfNeeded: index)
            for position in 0..<min(4, length)
            where buffer[position] != UInt8(truncatingIfNeeded: sequence >> (8 * UInt32(position))) {
                return false
            }
            let fill = UInt8(truncatingIfNeeded: index &* 31 &+ 7)
            for position in min(4, length)..<length {
                guard buffer[position] == fill &+ UInt8(truncatingIfNeeded: position) else { return false }
            }
            return true
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Goodput over whole connection intervals from the first arrival (the arrivals' virtual
    /// instants, in order), in kbit/s — the same window `AirtimeBenchmark` uses.
    static func goodputKbps(arrivals: [VirtualInstant], valueLength: Int, interval: Duration) -> Double? {
        guard let first = arrivals.first, let last = arrivals.last, arrivals.count > 1 else { return nil }
        let intervals = Int(first.duration(to: last).nanosecondsClamped / interval.nanosecondsClamped)
        let window = interval * max(1, intervals)
        let end = first.advanced(by: window)
        let inWindow = arrivals.lazy.filter { $0 < end }.count
        return Double(inWindow * valueLength * 8) / seconds(window) / 1000
    }
}

extension Radio {
    /// The simulation a virtual radio runs on.
    var simulation: Simulation? {
        switch self {
        case .virtual(let radio, _, _): radio.simulation
        case .transport: nil
        case .captured(let radio, _): radio.simulation
        }
    }
}
