import BLEController
import BLEHost
import BLETransport
import BLEVirtualHCI
import BLEWire

/// Where a manager's host runs (Core 5.4 Vol 4 Part A: a host reaches its controller through a
/// transport, as HCI packets).
///
/// Each manager has its own host and its own controller. On a shared `VirtualRadio`, a
/// `CentralManager` and a `PeripheralManager` therefore see each other over the virtual air,
/// and their hosts run on the simulation's executor and virtual clock — code that drives them
/// runs inside `radio.simulation.run { … }` so virtual time advances only when all of it waits.
public enum Radio: Sendable {
    /// A new controller on a shared virtual radio, at `position`.
    case virtual(
        VirtualRadio, position: AirPosition = .origin, controller: VirtualController.Configuration = .init())
    /// A real or foreign controller over a transport: the host runs on a thread of its own and
    /// the continuous clock.
    case transport(any HCITransport)
    /// `radio`, with every HCI packet between its host and controller recorded into a btsnoop
    /// file (`PacketCapture`) — on the virtual radio stamped with virtual time, on a transport
    /// with the wall clock. `radio.capturing(toFile:)` builds one from a command line's path.
    indirect case captured(Radio, into: PacketCapture)
}

/// A host and what it runs on: the executor of its actor and tasks, and the clock its timers
/// read (Design: "one serial executor per host", "time is injected").
package struct HostStack: Sendable {
    package let host: Host
    package let executor: any HostExecutor
    package let clock: any Clock<Duration>
    /// The thread started for a transport's host; it ends when nothing uses the stack any more.
    let ownedThread: OwnedThread?

    static func make(_ radio: Radio, configuration: HostConfiguration) async -> HostStack {
        await make(radio, configuration: configuration, captures: [])
    }

    private static func make(
        _ radio: Radio, configuration: HostConfiguration, captures: [PacketCapture]
    ) async -> HostStack {
        switch radio {
        case .captured(let inner, let capture):
            return await make(inner, configuration: configuration, captures: captures + [capture])
        case .virtual(let radio, let position, let controller):
            let port = await radio.addController(at: position, configuration: controller)
            let simulation = radio.simulation
            let transport = captures.reduce(PipeTransport.attached(to: port) as any HCITransport) {
                CapturingTransport(
                    wrapping: $0, capture: $1, timestamps: .virtual(simulation, from: $1.createdAt),
                    executor: simulation.executor)
            }
            let host = Host(
                transport: transport, clock: simulation.clock, executor: simulation.executor,
                configuration: configuration)
            return HostStack(host: host, executor: simulation.executor, clock: simulation.clock, ownedThread: nil)
        case .transport(let transport):
            let thread = SerialThreadExecutor()
            let clock = ContinuousClock()
            let captured = captures.reduce(transport) { CapturingTransport(wrapping: $0, capture: $1) }
            let host = Host(transport: captured, clock: clock, executor: thread, configuration: configuration)
            return HostStack(host: host, executor: thread, clock: clock, ownedThread: OwnedThread(thread))
        }
    }

    /// Starts a task on the host's executor, so that a simulation sees its work and advances
    /// virtual time only when it waits.
    @discardableResult
    func spawn(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task(executorPreference: executor, operation: operation)
    }

    /// Reads `stream` on the host's isolation and hands each element to `handle`, which runs
    /// there too: a call from it into an actor on the same executor (a manager, a peripheral)
    /// switches in place, where a reader without isolation would queue a job to go there and
    /// another to come back, for every element. Stops when the stream ends or `handle` returns
    /// false.
    @discardableResult
    func pump<Element: Sendable>(
        _ stream: EventStream<Element>, _ handle: nonisolated(nonsending) @escaping @Sendable (Element) async -> Bool
    ) -> Task<Void, Never> {
        let host = self.host
        return spawn { await Self.drain(stream, on: host, handle) }
    }

    private static func drain<Element: Sendable>(
        _ stream: EventStream<Element>, on host: isolated Host,
        _ handle: nonisolated(nonsending) @Sendable (Element) async -> Bool
    ) async {
        for await element in stream {
            guard await handle(element) else { return }
        }
    }

    /// Sleeps on the host's clock; false when cancelled.
    package func sleep(for duration: Duration) async -> Bool {
        do {
            try await clock.sleep(for: duration)
            return true
        } catch {
            return false
        }
    }
}

/// Ends a host's own thread once the last manager, peripheral or task using it is gone (a
/// thread cannot end while actors bound to it may still be called).
final class OwnedThread: Sendable {
    let executor: SerialThreadExecutor

    init(_ executor: SerialThreadExecutor) { self.executor = executor }

    deinit { executor.shutdown() }
}

extension HostStack {
    /// Runs `body` on the host in place, without a task switch. Only for code already on the
    /// host's executor — the managers and peripherals, which share it; it traps otherwise.
    func inPlace<Input, T>(passing input: Input, _ body: (isolated Host, Input) -> T) -> T {
        host.inPlace(passing: input, body)
    }
}
