import BLE
import BLEController
import BLEHost
import BLETransport
import BLEVirtualHCI
import BLEWire

/// How fast the simulation runs an idle connection: two hosts connect, then nothing is sent
/// for `duration` of virtual time while the controllers keep the link alive with empty packets
/// every interval (Core 5.4 Vol 6 Part B §4.5.1). Reports the connection events run and the
/// wall time taken.
public enum IdleLinkBenchmark {
    public struct Result: Sendable {
        public var duration: Duration
        public var intervalUnits: UInt16
        public var connectionEvents: Int
        public var stillConnected: Bool
        public var wallTime: Duration
    }

    public static func run(intervalUnits: UInt16 = 12, duration: Duration = .seconds(3600)) async throws -> Result {
        let parameters = {
            var parameters = AirtimeBenchmark.Parameters()
            parameters.intervalUnits = intervalUnits
            return parameters
        }()
        let radio = VirtualRadio()
        let peripheralPort = await radio.addController(at: .origin)
        let centralPort = await radio.addController(at: AirPosition(x: 1, y: 0, z: 0))
        let simulation = radio.simulation
        // The link stays as the benchmark sets it up (no negotiation of the hosts' own).
        var configuration = HostConfiguration()
        configuration.linkPolicy = .none
        let peripheral = Host(
            transport: PipeTransport.attached(to: peripheralPort), clock: simulation.clock,
            executor: simulation.executor, configuration: configuration)
        let central = Host(
            transport: PipeTransport.attached(to: centralPort), clock: simulation.clock, executor: simulation.executor,
            configuration: configuration)
        return try await simulation.run {
            let session = try await AirtimeBenchmark.Session.establish(
                parameters: parameters, peripheral: peripheral, central: central, simulation: simulation)
            let before = await centralPort.withController { $0.connectionEventCount }
            let wallStart = ContinuousClock.now
            try await simulation.clock.sleep(for: duration)
            let wall = wallStart.duration(to: .now)
            let after = await centralPort.withController { $0.connectionEventCount }
            let connected = await central.connection(session.centralHandle) != nil
            await central.stop()
            await peripheral.stop()
            return Result(
                duration: duration, intervalUnits: intervalUnits, connectionEvents: after - before,
                stillConnected: connected, wallTime: wall)
        }
    }
}
