import BLEController
import BLELocking
import BLETransport
import BLEWire
import Logging
import NIOCore

/// One virtual controller served over one listener: the UART transport's single host
/// (Core 5.4 Vol 4 Part A §2), one client at a time.
///
/// Everything that touches the controller — attaching a client, releasing it — runs in order on
/// one worker task fed by a message stream, so a client that connects while the previous one
/// is being released simply waits its turn. Whether a client's input reaches the controller is
/// decided on the simulation thread (`ClientLink`), so the controller's input and output never
/// mix two clients.
final class ControllerSlot: Sendable {
    enum Message: Sendable {
        case accepted(ClientLink)
        case departed(ClientLink)
        case shutdown
    }

    let index: Int
    let port: VirtualControllerPort
    let statistics = SlotStatistics()
    private let limits: VirtualControllerServer.ClientLimits
    private let events: AsyncStream<VirtualControllerServer.Event>.Continuation
    private let logger: Logger
    private let messages: AsyncStream<Message>.Continuation
    private let worker: Task<Void, Never>

    init(
        index: Int, port: VirtualControllerPort, limits: VirtualControllerServer.ClientLimits,
        events: AsyncStream<VirtualControllerServer.Event>.Continuation, logger: Logger
    ) {
        self.index = index
        self.port = port
        self.limits = limits
        self.events = events
        self.logger = logger
        let (stream, messages) = AsyncStream.makeStream(of: Message.self)
        self.messages = messages
        let worker = SlotWorker(index: index, port: port, statistics: statistics, events: events, logger: logger)
        self.worker = Task { await worker.run(stream) }
    }

    /// The listener's child channel initializer: frames nothing (the controller parses the
    /// host's stream itself), reads one bounded chunk at a time once the client is attached.
    func accept(_ channel: any Channel) -> EventLoopFuture<Void> {
        let link = ClientLink(
            channel: channel, listener: index, simulation: port.simulation, statistics: statistics, limits: limits,
            logger: logger)
        let messages = self.messages
        let (events, index, logger) = (self.events, self.index, self.logger)
        let handler = ControllerClientHandler(
            link: link, port: port, limits: limits, statistics: statistics,
            departed: { messages.yield(.departed(link)) },
            inputHeld: {
                logger.notice("controller \(index + 1): \(link.peer) leaves its events unread; its input waits")
                events.yield(.inputHeld(listener: index))
            })
        let chunk = max(1, limits.readChunkSize)
        let buffer = max(4096, limits.socketBufferSize)
        return channel.eventLoop.makeCompletedFuture {
            let options = channel.syncOptions
            // One bounded chunk per read, so the chunks in flight bound the octets in flight.
            try options?.setOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: chunk))
            try options?.setOption(.maxMessagesPerRead, value: 1)
            try options?.setOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(buffer))
            try options?.setOption(.socketOption(.so_sndbuf), value: SocketOptionValue(buffer))
            try channel.pipeline.syncOperations.addHandler(handler)
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
    let statistics: SlotStatistics
    let events: AsyncStream<VirtualControllerServer.Event>.Continuation
    let logger: Logger

    init(
        index: Int, port: VirtualControllerPort, statistics: SlotStatistics,
        events: AsyncStream<VirtualControllerServer.Event>.Continuation, logger: Logger
    ) {
        self.index = index
        self.port = port
        self.statistics = statistics
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
                    // The newest client takes over (as Bumble's tcp-server transport does), but
                    // only once the old one's state is gone: its input cut off, the controller
                    // reset and the Reset's completion swallowed.
                    logger.notice("controller \(index + 1): \(previous.peer) replaced by \(link.peer)")
                    current = nil
                    previous.close()
                    statistics.update { $0.clientsReplaced += 1 }
                    await release(previous, .replaced)
                }
                if link.isClosing {
                    // It left (or was closed) while waiting its turn: nothing to attach.
                    continue
                }
                current = link
                await attach(link)
            case .departed(let link):
                guard let attached = current, attached === link else { continue }
                current = nil
                await release(link, .disconnected)
            case .shutdown:
                // A controller never attached is left untouched; a released one already sends
                // nowhere and holds no socket.
                closing = true
                if let attached = current {
                    current = nil
                    attached.close()
                    await release(attached, .serverClosed)
                }
            }
        }
    }

    /// Points the controller's output at the client and lets its input in (on the simulation
    /// thread, in one step), then starts reading the client.
    private func attach(_ link: ClientLink) async {
        let events = self.events
        let index = self.index
        let logger = self.logger
        logger.info("controller \(index + 1): host connected from \(link.peer)")
        await port.withController { controller in
            controller.restartTransport()
            let air = controller.air
            controller.onPacket = { bytes in link.write(bytes, now: air.now) }
            controller.onTransportFailure = { failure in
                // Vol 4 Part A §2: no resynchronisation; this client's stream is over.
                logger.warning("controller \(index + 1): closing \(link.peer): \(failure)")
                events.yield(.transportFailed(listener: index, failure))
                link.close()
            }
            link.attach()
        }
        statistics.update { $0.clientsAttached += 1 }
        link.startReading()
        events.yield(.attached(listener: index, peer: link.peer))
    }

    /// The client is gone: its input is cut off, the controller forgets the stream and is reset,
    /// as a chip whose host went away — its links drop (the peers time out), advertising and
    /// scanning stop, its ACL buffers are free (HCI_Reset, Core 5.4 Vol 4 Part E §7.3.2).
    /// Returns once the Reset has run, so the next client never sees its completion nor
    /// anything the old client asked for.
    private func release(_ link: ClientLink, _ reason: VirtualControllerServer.ReleaseReason) async {
        let done = OneShotSignal()
        let reset = H4Packet(command: HCI.Reset().packet).encoded
        await port.withController { controller in
            link.detach()
            controller.onPacket = { _ in }
            controller.onTransportFailure = { _ in }
            controller.restartTransport()
            controller.receive(h4: reset)
            // Same delay, scheduled later: runs right after the Reset (ties keep their order).
            controller.air.queue.schedule(after: controller.configuration.commandLatency) { done.signal() }
        }
        await done.wait()
        let discarded = link.takeDiscarded()
        if discarded > 0 {
            logger.notice("controller \(index + 1): discarded \(discarded) octets \(link.peer) sent before it went")
            events.yield(.inputDiscarded(listener: index, octets: discarded))
        }
        events.yield(.released(listener: index, reason))
    }
}

/// Resumes one waiter once.
final class OneShotSignal: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Void, Never>)
        case signalled
    }

    private let state = Locked(State.idle)

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
