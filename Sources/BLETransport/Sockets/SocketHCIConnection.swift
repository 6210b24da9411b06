import BLEWire
import Logging
import NIOCore
import Synchronization

/// The packets a socket transport hands its host, and how that stream ended.
///
/// Only the first ending counts: a local `close()` finishes the stream quietly; the peer hanging
/// up finishes it with `HCITransportError.closed`; a stream that cannot be framed finishes it
/// with `.malformedStream`.
final class H4PacketSink: Sendable {
    let packets: AsyncThrowingStream<H4Packet, any Error>
    private let continuation: AsyncThrowingStream<H4Packet, any Error>.Continuation
    private let ended = Atomic<Bool>(false)
    /// Where the transport logs how its stream ended and the writes that failed.
    let logger: Logger

    init(logger: Logger) {
        self.logger = logger
        (packets, continuation) = AsyncThrowingStream.makeStream(of: H4Packet.self, throwing: (any Error).self)
    }

    var hasEnded: Bool { ended.load(ordering: .acquiring) }

    func yield(_ packet: H4Packet) {
        continuation.yield(packet)
    }

    /// Ends the stream: quietly for nil, else by throwing `error`. Later endings are ignored.
    func end(throwing error: HCITransportError?) {
        guard ended.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        if let error {
            switch error {
            case .closed: logger.notice("the controller closed the link")
            case .malformedStream, .io: logger.warning("transport closed: \(error)")
            }
            continuation.finish(throwing: error)
        } else {
            continuation.finish()
        }
    }
}

/// Frames the octets read from a socket into H4 packets (Core 5.4 Vol 4 Part A §2). Reads may
/// end anywhere; the parser keeps the incomplete tail. The UART transport cannot resynchronise,
/// so the first unframeable octet ends the stream and closes the socket.
final class H4FramingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let sink: H4PacketSink
    private var parser = H4StreamParser()

    init(sink: H4PacketSink) {
        self.sink = sink
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        parser.feed(Array(buffer.readableBytesView))
        do {
            while let packet = try parser.next() {
                sink.yield(packet)
            }
        } catch {
            sink.end(throwing: .malformedStream(error.description))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The peer hung up (a local close has already ended the stream quietly).
        sink.end(throwing: .closed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        sink.end(throwing: .io("\(error)"))
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension H4FramingHandler: Sendable {}

/// One connected stream socket carrying H4 both ways: what the client transports (and the
/// host-side server transport) are made of.
final class SocketHCIConnection: Sendable {
    let channel: any Channel
    let sink: H4PacketSink

    init(channel: any Channel, sink: H4PacketSink) {
        self.channel = channel
        self.sink = sink
    }

    /// A bootstrap's channel initializer: frames what the socket reads into `sink`.
    static func initializer(
        sink: H4PacketSink
    ) -> @Sendable (any Channel) -> EventLoopFuture<Void> {
        { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(H4FramingHandler(sink: sink))
            }
        }
    }

    /// Sends one packet: its indicator, then the HCI packet (Core 5.4 Vol 4 Part A §2).
    func send(_ packet: H4Packet) async throws(HCITransportError) {
        try await write(packet.encoded)
    }

    /// Writes octets as they are, framed or not.
    func write(_ bytes: [UInt8]) async throws(HCITransportError) {
        guard !sink.hasEnded else { throw .closed }
        do {
            try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
        } catch let error as ChannelError where error == .ioOnClosedChannel || error == .alreadyClosed {
            sink.logger.notice("write of \(bytes.count) octets failed: the link is closed")
            throw .closed
        } catch {
            sink.logger.warning("write of \(bytes.count) octets failed: \(error)")
            throw .io("\(error)")
        }
    }

    /// Closes the socket; the packet stream finishes without an error.
    func close() async {
        sink.end(throwing: nil)
        // A socket the peer (or a framing error) already closed has nothing left to close.
        try? await channel.close()
    }
}
