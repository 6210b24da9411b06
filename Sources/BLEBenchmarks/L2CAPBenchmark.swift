import BLE
import BLEController
import BLEHost
import BLESimulation
import BLEWire

/// The measurement behind `ble bench l2cap`: SDUs over an LE credit based channel (Core 5.4
/// Vol 3 Part A §4.22, §10.1) from a central to a peripheral manager, through the public API
/// (`publishL2CAPChannel`, `openL2CAPChannel`, `L2CAPChannel.write` and `incoming`), on the
/// link `GATTBenchmark` sets up for the profile. Every SDU is checked on arrival (sequence and
/// pattern).
///
/// The prediction: each SDU is `framesPerSDU` K-frames of the peer's MPS (its length is chosen
/// so: framesPerSDU × MPS − 2, the first frame carrying the SDU Length), so each K-frame is an
/// L2CAP PDU of MPS + 4 octets — on the air exactly a Write Command of ATT_MTU = MPS. The
/// air-time model's goodput for that traffic, scaled from its MPS − 3 application octets per
/// PDU to the SDU's octets per K-frame, is the channel's.
public enum L2CAPBenchmark {
    public struct Parameters: Sendable {
        public var profile: AirTimeProfile = .ideal
        /// SDUs to send.
        public var sdus = 2_000
        /// K-frames per SDU (the SDU fills them exactly).
        public var framesPerSDU = 8

        public init() {}
    }

    public struct Result: Sendable {
        public var parameters: Parameters
        /// The peer's MPS and the SDU length that followed.
        public var mps: Int
        public var sduLength: Int
        public var throughput: GATTBenchmark.Throughput
        /// K-frames the writer waited on for credits, and credit-related violations (0).
        public var violations: Int
    }

    /// Runs on a new virtual radio whose controllers schedule as the profile says.
    public static func run(_ parameters: Parameters) async throws -> Result {
        let radio = VirtualRadio()
        let timing = parameters.profile.linkTiming()
        var controller = VirtualController.Configuration()
        controller.scheduling = LinkLayerScheduling(endRule: timing.endRule, maxPacketsPerEvent: timing.maxPacketsPerEvent)
        let peripheral = Radio.virtual(radio, controller: controller)
        let central = Radio.virtual(radio, position: AirPosition(x: 1, y: 0, z: 0), controller: controller)
        return try await radio.simulation.run {
            try await measure(parameters, peripheral: peripheral, central: central, clock: radio.simulation.clock)
        }
    }

    /// The predicted goodput, kbit/s, of SDUs of `sduLength` in `frames` K-frames of `mps`.
    public static func predictedKbps(profile: AirTimeProfile, mps: Int, sduLength: Int, frames: Int) -> Double {
        let write = GoodputPrediction(link: profile.linkTiming(), attMTU: mps, traffic: .writeWithoutResponse)
        return write.goodput * (Double(sduLength) / Double(frames)) / Double(mps - 3)
    }

    static func measure(_ parameters: Parameters, peripheral: Radio, central: Radio, clock: VirtualClock) async throws -> Result {
        var gatt = GATTBenchmark.Parameters()
        gatt.profile = parameters.profile
        let session = try await GATTBenchmark.Session.establish(
            parameters: gatt, peripheralRadio: peripheral, centralRadio: central)
        do {
            let manager = session.manager
            let incoming = await manager.incomingL2CAPChannels()
            let psm = try await manager.publishL2CAPChannel(withEncryption: false)
            let channel = try await session.peripheral.openL2CAPChannel(psm)
            var accepted = incoming.makeAsyncIterator()
            guard let server = await accepted.next() else { throw GATTBenchmark.Failure.setup("no incoming channel") }
            let mps = channel.info.peerMPS
            let length = parameters.framesPerSDU * mps - 2
            guard length <= channel.outgoingMTU else {
                throw GATTBenchmark.Failure.setup("\(parameters.framesPerSDU) K-frames of \(mps) exceed the MTU \(channel.outgoingMTU)")
            }
            let count = parameters.sdus
            let receiver = Task(executorPreference: manager.stack.executor) {
                var arrivals: [VirtualInstant] = []
                arrivals.reserveCapacity(count)
                var index = 0
                for await sdu in server.incoming {
                    guard GATTBenchmark.isValue(sdu, index, length: length) else { break }
                    arrivals.append(clock.now)
                    index += 1
                    if index == count { break }
                }
                return (arrivals, ContinuousClock.now)
            }
            let wallStart = ContinuousClock.now
            let virtualStart = clock.now
            let writer = Task(executorPreference: manager.stack.executor) {
                for index in 0..<count { try await channel.write(GATTBenchmark.value(index, length: length)) }
            }
            let (arrivals, last) = await receiver.value
            try await writer.value
            guard arrivals.count == count else {
                throw GATTBenchmark.Failure.corrupted("\(arrivals.count) of \(count) SDUs arrived in order and intact")
            }
            let interval = parameters.profile.linkTiming().interval
            let throughput = GATTBenchmark.Throughput(
                values: count, octets: count * length, wallTime: wallStart.duration(to: last),
                virtualTime: arrivals.last.map { virtualStart.duration(to: $0) },
                virtualKbps: GATTBenchmark.goodputKbps(arrivals: arrivals, valueLength: length, interval: interval),
                predictedKbps: predictedKbps(profile: parameters.profile, mps: mps, sduLength: length, frames: parameters.framesPerSDU))
            let violations = await manager.hostStatistics.l2capChannelViolations
            await channel.close()
            await session.close()
            return Result(parameters: parameters, mps: mps, sduLength: length, throughput: throughput, violations: violations)
        } catch {
            await session.close()
            throw error
        }
    }
}
