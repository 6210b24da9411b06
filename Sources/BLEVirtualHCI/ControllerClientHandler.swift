import BLEController
import NIOCore

/// The listener's per-client handler: reads the client's octets only as fast as the controller
/// takes them, and tells the slot when the socket closes.
///
/// Back-pressure: at most `ClientLimits.inputChunksInFlight` chunks (each at most
/// `ClientLimits.readChunkSize` octets, one per read) are handed to the controller and not yet
/// consumed; while that many are out, or while the client leaves its events unread (the channel
/// is not writable), the handler holds the socket's next read, so the kernel's buffers fill and
/// the client's writes wait — a flood costs the process a bounded amount of memory, and the
/// simulation thread the other controllers share is never buried under one client's input. A
/// host that follows HCI command flow control (Num_HCI_Command_Packets, Core 5.4 Vol 4 Part E
/// §4.4) never meets this limit.
final class ControllerClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let link: ClientLink
    private let port: VirtualControllerPort
    private let limits: VirtualControllerServer.ClientLimits
    private let statistics: SlotStatistics
    private let departed: @Sendable () -> Void
    private let inputHeld: @Sendable () -> Void
    private var context: ChannelHandlerContext?
    private var chunksInFlight = 0
    private var octetsInFlight = 0
    /// Chunks read unasked (see `channelRead`), oldest first from `waitingHead`.
    private var waiting: [[UInt8]] = []
    private var waitingHead = 0
    private var octetsWaiting = 0
    /// A read asked for (by auto-read) and held back.
    private var readHeld = false
    /// Whether the client was already reported for leaving its events unread.
    private var reportedUnread = false

    init(
        link: ClientLink, port: VirtualControllerPort, limits: VirtualControllerServer.ClientLimits,
        statistics: SlotStatistics, departed: @escaping @Sendable () -> Void,
        inputHeld: @escaping @Sendable () -> Void
    ) {
        self.link = link
        self.port = port
        self.limits = limits
        self.statistics = statistics
        self.departed = departed
        self.inputHeld = inputHeld
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    private func mayRead(_ context: ChannelHandlerContext) -> Bool {
        chunksInFlight < maxChunks && waitingHead == waiting.count && context.channel.isWritable
    }

    func read(context: ChannelHandlerContext) {
        if mayRead(context) {
            context.read()
            return
        }
        if !readHeld {
            readHeld = true
            statistics.update { $0.readsHeld += 1 }
        }
        reportIfUnread(context)
    }

    /// Reports, once per client, that its input waits because it leaves its events unread.
    private func reportIfUnread(_ context: ChannelHandlerContext) {
        guard readHeld, !context.channel.isWritable, !reportedUnread else { return }
        reportedUnread = true
        inputHeld()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(unwrapInboundIn(data).readableBytesView)
        let count = bytes.count
        statistics.update { $0.inputOctetsRead += count }
        if link.isClosing {
            // Closed by the server (replaced, released, not reading): nobody takes this input.
            link.discard(count)
            return
        }
        guard chunksInFlight < maxChunks, waitingHead == waiting.count else {
            // A read not asked for: NIO drains the socket when the peer closes (at most the
            // receive buffer). It waits here, so the controller still gets one bounded chunk
            // at a time.
            waiting.append(bytes)
            octetsWaiting += count
            let octets = octetsWaiting
            statistics.update { $0.peakInputOctetsWaiting = max($0.peakInputOctetsWaiting, octets) }
            return
        }
        forward(bytes, context: context)
    }

    private var maxChunks: Int { max(1, limits.inputChunksInFlight) }

    private func forward(_ bytes: [UInt8], context: ChannelHandlerContext) {
        let count = bytes.count
        chunksInFlight += 1
        octetsInFlight += count
        let (chunks, octets) = (chunksInFlight, octetsInFlight)
        statistics.update {
            $0.inputChunks += 1
            $0.peakInputChunksInFlight = max($0.peakInputChunksInFlight, chunks)
            $0.peakInputOctetsInFlight = max($0.peakInputOctetsInFlight, octets)
        }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        // The link reports on this channel's event loop, after writing the turn's output.
        link.forward(bytes, to: port) { handler.value.consumed(count) }
    }

    /// The controller took a chunk: the next waiting one goes, or reading resumes if it was
    /// held for this.
    private func consumed(_ octets: Int) {
        chunksInFlight -= 1
        octetsInFlight -= octets
        if let context, waitingHead < waiting.count {
            let next = waiting[waitingHead]
            waiting[waitingHead] = []
            waitingHead += 1
            octetsWaiting -= next.count
            if waitingHead == waiting.count {
                waiting.removeAll()
                waitingHead = 0
            }
            forward(next, context: context)
            return
        }
        resumeIfHeld()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        resumeIfHeld()
        context.fireChannelWritabilityChanged()
    }

    private func resumeIfHeld() {
        guard readHeld, let context else { return }
        guard mayRead(context) else {
            reportIfUnread(context)
            return
        }
        readHeld = false
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The client is gone: what waits here would reach a controller being released.
        let left = octetsWaiting
        if left > 0 { link.discard(left) }
        waiting.removeAll()
        waitingHead = 0
        octetsWaiting = 0
        departed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension ControllerClientHandler: Sendable {}
