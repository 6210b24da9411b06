import BLEController
import BLELocking
import BLESimulation
import Logging
import NIOCore
import Synchronization

/// One client's socket, as the controller, the worker and the socket's handler see it.
///
/// The client's input reaches the controller only while the client is attached, and that is
/// decided on the simulation thread, where the controller runs: bytes read before the client was
/// released but handed over after it are discarded there (counted), so no other client's stream
/// ever carries them, and nothing the controller says after the release reaches this socket.
///
/// Everything one turn produces for the client — the answers to one chunk of its input, or
/// what one event of the air produced — goes out in one socket write and one hop between threads
/// (`write`, `endTurn`): a write and a hop per packet made the served path slow enough, under
/// load, for hosts to time out.
final class ClientLink: Sendable {
    let channel: any Channel
    /// The client's address, for logs.
    let peer: String
    private let listener: Int
    /// The controller's simulation, whose thread ends the turns.
    private let simulation: Simulation
    private let statistics: SlotStatistics
    private let limits: VirtualControllerServer.ClientLimits
    private let logger: Logger
    /// What the simulation thread keeps for this client (the lock makes the class Sendable; it
    /// is only taken there, never contended).
    private let simulationSide = Locked(SimulationSide())
    /// Set once the socket is being closed: further input is discarded without a hop.
    private let closing = Atomic<Bool>(false)
    /// Octets written toward the client that the socket has not taken yet.
    private let unreadOutput = Atomic<Int>(0)
    /// Input octets discarded because the client had gone (for the release's log line).
    private let discarded = Atomic<Int>(0)

    init(
        channel: any Channel, listener: Int, simulation: Simulation, statistics: SlotStatistics,
        limits: VirtualControllerServer.ClientLimits, logger: Logger
    ) {
        self.channel = channel
        self.listener = listener
        self.simulation = simulation
        self.statistics = statistics
        self.limits = limits
        self.logger = logger
        peer =
            switch channel.remoteAddress {
            case .some(let address) where address.protocol == .unix: "a UNIX socket client"
            case .some(let address):
                if let ip = address.ipAddress, let port = address.port {
                    address.protocol == .inet6 ? "[\(ip)]:\(port)" : "\(ip):\(port)"
                } else {
                    address.description
                }
            case .none: "an unknown peer"
            }
    }

    // MARK: Simulation thread

    /// The controller now takes this client's input (on the simulation thread).
    func attach() { simulationSide.withLock { $0.attached = true } }

    /// The controller takes no more of this client's input (on the simulation thread). Output
    /// it produced before still goes out at the end of its turn.
    func detach() { simulationSide.withLock { $0.attached = false } }

    /// Hands one chunk of the client's input to `port`'s controller; `consumed` runs on the
    /// socket's event loop once the controller has handled every packet the chunk completed
    /// (after the answers, in the same hop) — or at once if the client is no longer attached,
    /// the chunk then discarded and counted.
    func forward(_ bytes: [UInt8], to port: VirtualControllerPort, consumed: @escaping @Sendable () -> Void) {
        port.perform { [self] controller in
            guard simulationSide.withLock({ $0.attached }) else {
                discard(bytes.count)
                channel.eventLoop.execute(consumed)
                return
            }
            controller.receive(h4: bytes)
            statistics.update { $0.inputOctetsConsumed += bytes.count }
            // Host packets are handled `commandLatency` after they arrive, in order; this runs
            // right after the chunk's last one (ties keep their scheduling order) and ends the
            // chunk's turn: its answers and its release go out together.
            let queue = controller.air.queue
            let due = queue.now.advanced(by: controller.configuration.commandLatency)
            simulationSide.withLock { $0.openChunks.append(due) }
            queue.schedule(at: due) { [self] in
                simulationSide.withLock { $0.chunkHandled(consumed) }
                endTurn()
            }
        }
    }

    /// A packet from the controller (on the simulation thread; `now`, the air's time). Packets
    /// are gathered and written together when their turn ends: the packets answering a chunk of
    /// input when its last command has been handled, any other (from a connection event, an
    /// advertising report) right after the event that produced it — before the simulation runs
    /// the next one, so other clients' turns never hold it back. A client that leaves more than
    /// `unreadOutputLimit` octets unread is not reading: it is closed rather than let grow the
    /// process.
    func write(_ bytes: [UInt8], now: VirtualInstant) {
        let count = bytes.count
        let unread = unreadOutput.wrappingAdd(count, ordering: .relaxed).newValue
        guard unread <= limits.unreadOutputLimit else {
            unreadOutput.wrappingSubtract(count, ordering: .relaxed)
            closeForUnreadOutput(unread)
            return
        }
        let endAfterThisEvent = simulationSide.withLock {
            $0.add(output: bytes, now: now, allocator: channel.allocator)
        }
        // An action submitted on the simulation thread runs as soon as the current event ends.
        if endAfterThisEvent { simulation.perform { [self] _ in endTurn() } }
    }

    /// The turn is over: its output is written and its consumed chunks are reported, in one hop
    /// to the socket's event loop (NIO runs the tasks of one thread in the order they came, so
    /// turns reach the socket in order).
    private func endTurn() {
        let turn = simulationSide.withLock { $0.takeTurn() }
        guard turn.output != nil || !turn.consumed.isEmpty else { return }
        if turn.output != nil {
            statistics.update {
                $0.outputWrites += 1
                $0.outputPackets += turn.packets
            }
        }
        let channel = self.channel
        channel.eventLoop.execute { [self] in
            if let output = turn.output {
                let count = output.readableBytes
                channel.writeAndFlush(output).whenComplete { [self] _ in
                    unreadOutput.wrappingSubtract(count, ordering: .relaxed)
                }
            }
            for consumed in turn.consumed { consumed() }
        }
    }

    private func closeForUnreadOutput(_ unread: Int) {
        guard !closing.exchange(true, ordering: .relaxed) else { return }
        statistics.update { $0.clientsClosedForUnreadOutput += 1 }
        logger.warning(
            "controller \(listener + 1): closing \(peer): \(unread) octets of events unread (over \(limits.unreadOutputLimit))"
        )
        channel.close(promise: nil)
    }

    // MARK: Any thread

    /// Whether the socket is being closed (its input is then discarded where it is read).
    var isClosing: Bool { closing.load(ordering: .relaxed) }

    /// Input of this client thrown away because it had gone: counted and kept for the log.
    func discard(_ octets: Int) {
        discarded.wrappingAdd(octets, ordering: .relaxed)
        statistics.update { $0.inputOctetsDiscarded += octets }
    }

    /// Input octets discarded so far (reset by reading).
    func takeDiscarded() -> Int { discarded.exchange(0, ordering: .relaxed) }

    /// Turns reading on (the listener accepts clients with reading off).
    func startReading() {
        channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in
            // A client that left before being attached: its departure is already queued.
        }
    }

    func close() {
        closing.store(true, ordering: .relaxed)
        channel.close(promise: nil)
    }
}

/// A client link's state on the simulation thread: whether its input reaches the controller, the
/// chunks whose commands are being handled, and the turn under way.
private struct SimulationSide {
    var attached = false
    /// When each chunk handed to the controller and not yet done is handled, oldest first.
    var openChunks: [VirtualInstant] = []
    var turn = Turn()
    /// Whether an action ending the turn after the current event is queued.
    var endQueued = false

    /// Handed whole from the simulation thread to the socket's event loop.
    struct Turn: Sendable {
        var output: ByteBuffer?
        var packets = 0
        var consumed: [@Sendable () -> Void] = []
    }

    /// Adds a packet to the turn; whether an action must end the turn after the current event
    /// (no chunk handled at this instant will end it, and none is queued yet).
    mutating func add(output bytes: [UInt8], now: VirtualInstant, allocator: ByteBufferAllocator) -> Bool {
        if turn.output == nil { turn.output = allocator.buffer(capacity: max(256, bytes.count)) }
        turn.output?.writeBytes(bytes)
        turn.packets += 1
        guard !openChunks.contains(now), !endQueued else { return false }
        endQueued = true
        return true
    }

    /// The oldest open chunk has been handled: its release joins the turn.
    mutating func chunkHandled(_ consumed: @escaping @Sendable () -> Void) {
        if !openChunks.isEmpty { openChunks.removeFirst() }
        turn.consumed.append(consumed)
    }

    mutating func takeTurn() -> Turn {
        endQueued = false
        defer { turn = Turn() }
        return turn
    }
}
