import BLESimulation
/// The virtual radio as a whole: a simulation, the air it runs, and the controllers on it.
///
/// Everything on the air (the `VirtualAir`, every `VirtualController`) belongs to the
/// simulation thread; this type is the thread-safe way in. Hosts reach a controller through
/// its `VirtualControllerPort` — HCI packets as bytes, exactly as over a wire.
public final class VirtualRadio: Sendable {
    public let simulation: Simulation
    private let world: SimulationConfined<World>

    /// The air and its controllers, touched only on the simulation thread.
    final class World {
        var air: VirtualAir?
        var controllers: [VirtualController] = []
    }

    public init(
        pacing: Simulation.Pacing = .virtual, propagation: PropagationModel = PropagationModel(), seed: UInt64 = 0x5EED
    ) {
        let simulation = Simulation(pacing: pacing)
        self.simulation = simulation
        world = SimulationConfined(World())
        let world = self.world
        simulation.perform { queue in
            world.value.air = VirtualAir(
                queue: queue, propagation: propagation, random: SeededRandomGenerator(seed: seed))
        }
    }

    /// Runs `body` on the simulation thread with the air, and returns its result.
    public func withAir<T: Sendable>(_ body: @escaping @Sendable (VirtualAir) -> T) async -> T {
        let world = self.world
        return await withCheckedContinuation { continuation in
            simulation.perform { _ in
                guard let air = world.value.air else { preconditionFailure("the air is created first") }
                continuation.resume(returning: body(air))
            }
        }
    }

    /// Adds a controller to the air and returns the port a host attaches to.
    public func addController(
        at position: AirPosition = .origin, configuration: VirtualController.Configuration = .init()
    ) async -> VirtualControllerPort {
        let world = self.world
        let simulation = self.simulation
        return await withCheckedContinuation { continuation in
            simulation.perform { _ in
                guard let air = world.value.air else { preconditionFailure("the air is created first") }
                let controller = VirtualController(air: air, position: position, configuration: configuration)
                world.value.controllers.append(controller)
                let port = VirtualControllerPort(
                    simulation: simulation, controller: SimulationConfined(controller), radio: controller.radio)
                continuation.resume(returning: port)
            }
        }
    }
}

/// A host's way into one virtual controller: H4 packets in, H4 packets out (Core 5.4 Vol 4
/// Part A §2). Thread-safe; the controller itself runs on the simulation thread.
public final class VirtualControllerPort: Sendable {
    public let simulation: Simulation
    /// The controller's radio on the air (for moving it, setting packet error rates).
    public let radio: AirRadioID
    private let controller: SimulationConfined<VirtualController>

    init(simulation: Simulation, controller: SimulationConfined<VirtualController>, radio: AirRadioID) {
        self.simulation = simulation
        self.controller = controller
        self.radio = radio
    }

    /// Bytes from the host (one or more H4 packets, or part of one).
    public func send(_ bytes: [UInt8]) {
        let controller = self.controller
        simulation.perform { _ in controller.value.receive(h4: bytes) }
    }

    /// Where the controller's packets (H4 bytes, one packet per call) go.
    public func setReceiver(_ receiver: @escaping @Sendable ([UInt8]) -> Void) {
        let controller = self.controller
        simulation.perform { _ in controller.value.onPacket = receiver }
    }

    /// Runs `body` on the simulation thread with the controller, without waiting for it: actions
    /// run in the order they were submitted, after those submitted before.
    public func perform(_ body: @escaping @Sendable (VirtualController) -> Void) {
        let controller = self.controller
        simulation.perform { _ in body(controller.value) }
    }

    /// Runs `body` on the simulation thread with the controller.
    public func withController<T: Sendable>(_ body: @escaping @Sendable (VirtualController) -> T) async -> T {
        let controller = self.controller
        return await withCheckedContinuation { continuation in
            simulation.perform { _ in continuation.resume(returning: body(controller.value)) }
        }
    }
}

/// A value that may only be used on the simulation thread. The simulation runs every action and
/// job on its one thread, so handing such a box to it is safe even though the value is not
/// Sendable.
final class SimulationConfined<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only inside `Simulation.perform` actions
    // and events, which the simulation thread runs one at a time.
    let value: Value
    init(_ value: Value) { self.value = value }
}
