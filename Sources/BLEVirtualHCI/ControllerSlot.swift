import BLEController
import BLETransport
import BLEWire
import Logging
import NIOCore
import Synchronization

/// One virtual controller served over one listener: the UART transport's single host
/// (Core 5.4 Vol 4 Part A §2), one client at a time.
///
/// Everything that touches the controller — attaching a client, releasing it — runs in order on
/// one worker task fed by a message stream, so a client that connects while the previous one
/// is being released simply waits its turn, and the controller's output never reaches the
/// wrong socket.
final class ControllerSlot: Sendable {
    enum Message: Sendable {
        case accepted(ClientLink)
        case departed(ClientLink)
        case shutdown
    }

    let index: Int
    let port: VirtualControllerPort
    private let messages: AsyncStream<Message>.Continuation
    private let worker: Task<Void, Never>

    init(
        index: Int, port: VirtualControllerPort, events: AsyncStream<VirtualControllerServer.Event>.Continuation,
        logger: Logger
    ) {
        self.index = index
        self.port = port
        let (stream, messages) = AsyncStream.makeStream(of: Message.self)
        self.messages = messages
        let worker = SlotWorker(index: index, port: port, events: events, logger: logger)
        self.worker = Task { await worker.run(stream) }
    }

    /// The listener's child channel initializer: frames nothing (the controller parses the
    /// host's stream itself), forwards octets once the client is attached.
    func accept(_ channel: any Channel) -> EventLoopFuture<Void> {
        let link = ClientLink(channel: channel)
        let messages = self.messages
        let port = self.port
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
                ControllerClientHandler(port: port) { messages.yield(.departed(link)) })
            if case .terminated = messages.yield(.accepted(link)) {
                // The server is closing: nobody will attach this client.
                link.close()
            }
        }
    }

    /// Closes the client, releases the controller and ends the worker.
    func shutdown() async {
        messages.yield(.shutdown)
        messages.finish()
        await worker.value
    }
}

/// The worker's state: the attached client, touched only by `run`.
private final class SlotWorker: Sendable {
    let index: Int
    let port: VirtualControllerPort
    let events: AsyncStream<VirtualControllerServer.Event>.Continuation
    let logger: Logger

    init(
        index: Int, port: VirtualControllerPort, events: AsyncStream<VirtualControllerServer.Event>.Continuation,
        logger: Logger
    ) {
        self.index = index
        self.port = port
        self.events = events
        self.logger = logger
    }

    func run(_ messages: AsyncStream<ControllerSlot.Message>) async {
        var current: ClientLink?
        var closing = false
        for await message in messages {
            switch message {
            case .accepted(let link):
                if closing {
                    logger.notice("controller \(index + 1): refused \(link.peer): the server is closing")
                    link.close()
                    continue
                }
                if let previous = current {
                    // The newest client takes over (as Bumble's tcp-server transport does).
                    logger.notice("controller \(index + 1): \(previous.peer) replaced by \(link.peer)")
                    current = nil
                    previous.close()
                    await release(.replaced)
                }
                current = link
                await attach(link)
            case .departed(let link):
                guard let attached = current, attached === link else { continue }
                current = nil
                await release(.disconnected)
            case .shutdown:
                // A controller never attached is left untouched; a released one already sends
                // nowhere and holds no socket.
                closing = true
                if let attached = current {
                    current = nil
                    attached.close()
                    await release(.serverClosed)
                }
            }
        }
    }

    /// Points the controller's output at the client, then starts reading the client: its
    /// octets reach the controller only once the controller answers to it.
    private func attach(_ link: ClientLink) async {
        let events = self.events
        let index = self.index
        let logger = self.logger
        logger.info("controller \(index + 1): host connected from \(link.peer)")
        await port.withController { controller in
            controller.restartTransport()
            controller.onPacket = { bytes in link.write(bytes) }
            controller.onTransportFailure = { failure in
                // Vol 4 Part A §2: no resynchronisation; this client's stream is over.
                logger.warning("controller \(index + 1): closing \(link.peer): \(failure)")
                events.yield(.transportFailed(listener: index, failure))
                link.close()
            }
        }
        link.startReading()
        events.yield(.attached(listener: index, peer: link.peer))
    }

    /// The client is gone: the controller forgets the stream and is reset, as a chip whose
    /// host went away — its links drop (the peers time out), advertising and scanning stop
    /// (HCI_Reset, Core 5.4 Vol 4 Part E §7.3.2). Returns once the Reset has run, so the next
    /// client never sees its completion.
    private func release(_ reason: VirtualControllerServer.ReleaseReason) async {
        let done = OneShotSignal()
        let reset = H4Packet(command: HCI.Reset().packet).encoded
        await port.withController { controller in
            controller.onPacket = { _ in }
            controller.onTransportFailure = { _ in }
            controller.restartTransport()
            controller.receive(h4: reset)
            // Same delay, scheduled later: runs right after the Reset (ties keep their order).
            controller.air.queue.schedule(after: controller.configuration.commandLatency) { done.signal() }
        }
        await done.wait()
        events.yield(.released(listener: index, reason))
    }
}

/// One client's socket, as the controller and the worker see it.
final class ClientLink: Sendable {
    let channel: any Channel
    /// The client's address, for logs.
    let peer: String

    init(channel: any Channel) {
        self.channel = channel
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

    /// Packets from the controller, in order (NIO keeps the order of writes from one thread).
    func write(_ bytes: [UInt8]) {
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
    }

    /// Turns reading on (the listener accepts clients with reading off).
    func startReading() {
        channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in
            // A client that left before being attached: its departure is already queued.
        }
    }

    func close() {
        channel.close(promise: nil)
    }
}

/// The listener's per-client handler: octets go to the controller as they come (its own H4
/// parser frames them across reads); the socket closing tells the slot.
private final class ControllerClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let port: VirtualControllerPort
    private let departed: @Sendable () -> Void

    init(port: VirtualControllerPort, departed: @escaping @Sendable () -> Void) {
        self.port = port
        self.departed = departed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        port.send(Array(unwrapInboundIn(data).readableBytesView))
    }

    func channelInactive(context: ChannelHandlerContext) {
        departed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension ControllerClientHandler: Sendable {}

/// Resumes one waiter once.
final class OneShotSignal: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Void, Never>)
        case signalled
    }

    private let state = Mutex(State.idle)

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state = .signalled }
            if case .waiting(let continuation) = state { return continuation }
            return nil
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let already = state.withLock { state -> Bool in
                if case .signalled = state { return true }
                state = .waiting(continuation)
                return false
            }
            if already { continuation.resume() }
        }
    }
}
