import BLEController
import BLELocking
import BLESimulation
import BLEWire
import Testing

@testable import BLEHost

/// A host on a scripted controller, run on a simulation: virtual time passes only when nothing
/// is runnable, so `settle()` lets everything in flight finish and timeouts cost nothing.
struct HostHarness: Sendable {
    let simulation: Simulation
    let controller: ScriptedController
    let host: Host
    let events: EventLog

    /// Lets every runnable task finish (virtual time moves by 1 µs only when all are idle).
    func settle() async throws {
        try await simulation.clock.sleep(for: .microseconds(1))
    }

    static func run(
        script: ScriptedController.Script = .init(), configuration: HostConfiguration = HostConfiguration(),
        _ body: @escaping @Sendable (HostHarness) async throws -> Void
    ) async throws {
        let simulation = Simulation()
        let controller = ScriptedController(script: script)
        // A scripted controller answers only what its test scripts: the host negotiates nothing
        // by itself here (link negotiation has its own tests on the virtual radio).
        var configuration = configuration
        configuration.linkPolicy = .none
        let host = Host(
            transport: controller.transport, clock: simulation.clock, executor: simulation.executor,
            configuration: configuration)
        let events = EventLog()
        let harness = HostHarness(simulation: simulation, controller: controller, host: host, events: events)
        try await simulation.run {
            let collector = Task(executorPreference: simulation.executor) {
                for await event in host.events { events.append(event) }
            }
            try await host.start()
            try await body(harness)
            await host.stop()
            await collector.value
        }
    }
}

/// Host events seen so far.
final class EventLog: Sendable {
    private let events = Locked<[HostEvent]>([])
    func append(_ event: HostEvent) { events.withLock { $0.append(event) } }
    var all: [HostEvent] { events.withLock { $0 } }

    var disconnections: [(ConnectionHandle, HCIStatus)] {
        all.compactMap { if case .disconnected(let handle, let reason) = $0 { (handle, reason) } else { nil } }
    }
}
