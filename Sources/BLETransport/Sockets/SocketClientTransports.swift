import BLEWire
import Logging
import NIOCore
import NIOPosix

/// Why a transport could not be opened (as opposed to `HCITransportError`: why an open one
/// stopped).
public enum TransportOpenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The serial line could not be opened or set up.
    case serial(SerialLineError)
    /// The Linux HCI user channel could not be opened.
    case hciSocket(HCISocketError)
    /// `virtual` is the in-process radio: attach a host with `PipeTransport.attached(to:)` to a
    /// `VirtualRadio`'s controller port.
    case requiresVirtualRadio
    /// The moniker names a transport that cannot play this role (a server needs
    /// `tcp-server:` or `unix:`).
    case unsupportedRole(TransportMoniker)
    /// Connecting failed (refused, unreachable, no such socket file).
    case connectionFailed(TransportMoniker, String)
    /// Listening failed (address in use, not a local address, path too long).
    case listenFailed(TransportMoniker, String)
    /// Something that is not a stale socket stands at a UNIX listener's path; it is left alone.
    case socketPath(TransportMoniker, UnixSocketPathError)

    public var description: String {
        switch self {
        case .serial(let error): error.description
        case .hciSocket(let error): error.description
        case .requiresVirtualRadio:
            "the virtual transport is in-process: attach the host to a VirtualRadio controller port"
        case .unsupportedRole(let moniker): "\(moniker) cannot serve a controller (use tcp-server: or unix:)"
        case .connectionFailed(let moniker, let reason): "cannot connect to \(moniker): \(reason)"
        case .listenFailed(let moniker, let reason): "cannot listen on \(moniker): \(reason)"
        case .socketPath(let moniker, let error): "cannot listen on \(moniker): \(error)"
        }
    }
}

/// A host's link to a controller listening on TCP, carrying H4 (Core 5.4 Vol 4 Part A §2)
/// with no handshake — Bumble's `tcp-client:` and Android's HCI-over-TCP.
///
/// Packets from the controller are framed whatever the reads' sizes; a stream that cannot be
/// framed finishes `packets` with `HCITransportError.malformedStream` and closes the socket.
/// Usable from any executor: the socket runs on a SwiftNIO event loop.
public final class TCPClientTransport: HCITransport {
    public let host: String
    public let port: UInt16
    let connection: SocketHCIConnection

    public var packets: AsyncThrowingStream<H4Packet, any Error> { connection.sink.packets }

    private init(host: String, port: UInt16, connection: SocketHCIConnection) {
        self.host = host
        self.port = port
        self.connection = connection
    }

    /// Connects to a controller at `host:port`.
    public static func connect(
        host: String, port: UInt16, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "ble.transport", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws(TransportOpenError) -> TCPClientTransport {
        let sink = H4PacketSink(logger: logger)
        let bootstrap = ClientBootstrap(group: group).channelInitializer(SocketHCIConnection.initializer(sink: sink))
        do {
            let channel = try await bootstrap.connect(host: host, port: Int(port)).get()
            return TCPClientTransport(
                host: host, port: port, connection: SocketHCIConnection(channel: channel, sink: sink))
        } catch {
            throw .connectionFailed(.tcpClient(host: host, port: port), "\(error)")
        }
    }

    public func send(_ packet: H4Packet) async throws(HCITransportError) {
        try await connection.send(packet)
    }

    public func close() async {
        await connection.close()
    }

    /// Writes octets unframed (tests of a peer's framing).
    func write(raw bytes: [UInt8]) async throws(HCITransportError) {
        try await connection.write(bytes)
    }
}

/// A host's link to a controller listening on a UNIX-domain stream socket, carrying H4 as
/// `TCPClientTransport` does (Bumble's `unix:`).
public final class UNIXClientTransport: HCITransport {
    public let path: String
    let connection: SocketHCIConnection

    public var packets: AsyncThrowingStream<H4Packet, any Error> { connection.sink.packets }

    private init(path: String, connection: SocketHCIConnection) {
        self.path = path
        self.connection = connection
    }

    /// Connects to a controller listening at `path`.
    public static func connect(
        path: String, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "ble.transport", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws(TransportOpenError) -> UNIXClientTransport {
        let sink = H4PacketSink(logger: logger)
        let bootstrap = ClientBootstrap(group: group).channelInitializer(SocketHCIConnection.initializer(sink: sink))
        do {
            let channel = try await bootstrap.connect(unixDomainSocketPath: path).get()
            return UNIXClientTransport(path: path, connection: SocketHCIConnection(channel: channel, sink: sink))
        } catch {
            throw .connectionFailed(.unix(path: path), "\(error)")
        }
    }

    public func send(_ packet: H4Packet) async throws(HCITransportError) {
        try await connection.send(packet)
    }

    public func close() async {
        await connection.close()
    }

    /// Writes octets unframed (tests of a peer's framing).
    func write(raw bytes: [UInt8]) async throws(HCITransportError) {
        try await connection.write(bytes)
    }
}
