import BLEController
import Logging
import NIOCore
import BLELocking
import Synchronization

/// One client's socket, as the controller, the worker and the socket's handler see it.
///
/// The client's input reaches the controller only while the client is attached, and that is
/// decided on the simulation thread, where the controller runs: bytes read before the client was
/// released but handed over after it are discarded there (counted), so no other client's stream
/// ever carries them, and nothing the controller says after the release reaches this socket.
final class ClientLink: Sendable {
    let channel: any Channel
    /// The client's address, for logs.
    let peer: String
    private let listener: Int
    private let statistics: SlotStatistics
    private let limits: VirtualControllerServer.ClientLimits
    private let logger: Logger
    /// Whether the controller takes this client's input: set and cleared on the simulation thread
    /// only (the lock makes the class Sendable; it is never contended).
    private let attached = Locked(false)
    /// Set once the socket is being closed: further input is discarded without a hop.
    private let closing = Atomic<Bool>(false)
    /// Octets written toward the client that the socket has not taken yet.
    private let unreadOutput = Atomic<Int>(0)
    /// Input octets discarded because the client had gone (for the release's log line).
    private let discarded = Atomic<Int>(0)

    init(
        channel: any Channel, listener: Int, statistics: SlotStatistics,
        limits: VirtualControllerServer.ClientLimits, logger: Logger
    ) {
        self.channel = channel
        self.listener = listener
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
    func attach() { attached.withLock { $0 = true } }

    /// The controller takes no more of this client's input (on the simulation thread).
    func detach() { attached.withLock { $0 = false } }

    /// Hands one chunk of the client's input to `port`'s controller; `consumed` runs (on the
    /// simulation thread) once the controller has handled every packet the chunk completed — or
    /// at once if the client is no longer attached, the chunk then discarded and counted.
    func forward(_ bytes: [UInt8], to port: VirtualControllerPort, consumed: @escaping @Sendable () -> Void) {
        port.perform { [self] controller in
            guard attached.withLock({ $0 }) else {
                discard(bytes.count)
                consumed()
                return
            }
            controller.receive(h4: bytes)
            statistics.update { $0.inputOctetsConsumed += bytes.count }
            // Host packets are handled `commandLatency` after they arrive, in order; this runs
            // right after the chunk's last one (ties keep their scheduling order).
            controller.air.queue.schedule(after: controller.configuration.commandLatency, consumed)
        }
    }

    /// A packet from the controller, in order (NIO keeps the order of writes from one thread).
    /// A client that leaves more than `unreadOutputLimit` octets unread is not reading: it is
    /// closed rather than let grow the process.
    func write(_ bytes: [UInt8]) {
        let count = bytes.count
        let unread = unreadOutput.wrappingAdd(count, ordering: .relaxed).newValue
        guard unread <= limits.unreadOutputLimit else {
            unreadOutput.wrappingSubtract(count, ordering: .relaxed)
            closeForUnreadOutput(unread)
            return
        }
        channel.writeAndFlush(ByteBuffer(bytes: bytes)).whenComplete { [self] _ in
            unreadOutput.wrappingSubtract(count, ordering: .relaxed)
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
