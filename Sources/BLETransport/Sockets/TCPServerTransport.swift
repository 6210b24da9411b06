import BLELocking
import BLEWire
import Logging
import NIOCore
import NIOPosix

/// A host's link to a controller that connects to it: the host listens on TCP and the first
/// controller to connect carries H4 both ways (Core 5.4 Vol 4 Part A §2) — Bumble's
/// `tcp-server:` on the host side.
///
/// One controller per transport: later connections are closed at once. `send` waits for the
/// controller to connect; when it hangs up, `packets` finishes with `HCITransportError.closed`.
public final class TCPServerTransport: HCITransport {
    public let host: String
    /// The port listened on (the system's choice when 0 was asked for).
    public let boundPort: UInt16
    private let listener: any Channel
    private let acceptor: ControllerAcceptor

    public var packets: AsyncThrowingStream<H4Packet, any Error> { acceptor.sink.packets }

    private init(host: String, boundPort: UInt16, listener: any Channel, acceptor: ControllerAcceptor) {
        self.host = host
        self.boundPort = boundPort
        self.listener = listener
        self.acceptor = acceptor
    }

    /// Listens on `host:port` (`_` for every interface; port 0 lets the system pick).
    public static func listen(
        host: String, port: UInt16, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "ble.transport", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws(TransportOpenError) -> TCPServerTransport {
        let acceptor = ControllerAcceptor(logger: logger)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in acceptor.offer(channel) }
        let moniker = TransportMoniker.tcpServer(host: host, port: port)
        do {
            let listener = try await bootstrap.bind(host: host == "_" ? "0.0.0.0" : host, port: Int(port)).get()
            let bound = UInt16(listener.localAddress?.port ?? Int(port))
            return TCPServerTransport(host: host, boundPort: bound, listener: listener, acceptor: acceptor)
        } catch {
            throw .listenFailed(moniker, "\(error)")
        }
    }

    /// Waits until a controller has connected.
    public func waitForController() async throws(HCITransportError) {
        guard await acceptor.connection() != nil else { throw .closed }
    }

    public func send(_ packet: H4Packet) async throws(HCITransportError) {
        guard let connection = await acceptor.connection() else { throw .closed }
        try await connection.send(packet)
    }

    public func close() async {
        let connection = acceptor.close()
        try? await listener.close()
        if let connection { await connection.close() }
    }

    /// Writes octets unframed (tests of a peer's framing).
    func write(raw bytes: [UInt8]) async throws(HCITransportError) {
        guard let connection = await acceptor.connection() else { throw .closed }
        try await connection.write(bytes)
    }
}

/// Takes the first connection a listener accepts and refuses the rest.
private final class ControllerAcceptor: Sendable {
    enum State {
        case waiting([CheckedContinuation<SocketHCIConnection?, Never>])
        case connected(SocketHCIConnection)
        case closed
    }

    let sink: H4PacketSink
    private let state = Locked(State.waiting([]))

    init(logger: Logger) { sink = H4PacketSink(logger: logger) }

    /// A child channel's initializer: the first becomes the controller's link.
    func offer(_ channel: any Channel) -> EventLoopFuture<Void> {
        let connection = SocketHCIConnection(channel: channel, sink: sink)
        let waiters = state.withLock { state -> [CheckedContinuation<SocketHCIConnection?, Never>]? in
            guard case .waiting(let waiters) = state else { return nil }
            state = .connected(connection)
            return waiters
        }
        guard let waiters else { return channel.close() }
        let added = SocketHCIConnection.initializer(sink: sink)(channel)
        for waiter in waiters { waiter.resume(returning: connection) }
        return added
    }

    /// The controller's link once it has connected; nil once the transport is closed.
    func connection() async -> SocketHCIConnection? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> SocketHCIConnection?? in
                switch state {
                case .waiting(let waiters):
                    state = .waiting(waiters + [continuation])
                    return .none
                case .connected(let connection): return .some(connection)
                case .closed: return .some(nil)
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Stops accepting; returns the link to close, if any.
    func close() -> SocketHCIConnection? {
        let (waiters, connection) = state.withLock {
            state -> ([CheckedContinuation<SocketHCIConnection?, Never>], SocketHCIConnection?) in
            defer { state = .closed }
            switch state {
            case .waiting(let waiters): return (waiters, nil)
            case .connected(let connection): return ([], connection)
            case .closed: return ([], nil)
            }
        }
        for waiter in waiters { waiter.resume(returning: nil) }
        sink.end(throwing: nil)
        return connection
    }
}
