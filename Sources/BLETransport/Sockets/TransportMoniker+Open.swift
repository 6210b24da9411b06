import NIOCore
import NIOPosix

extension TransportMoniker {
    /// Opens the host's side of the transport this moniker names: a link to a controller
    /// carrying H4 (Core 5.4 Vol 4 Part A §2).
    ///
    /// `tcp-client:` and `unix:` connect; `tcp-server:` listens and waits for a controller to
    /// connect. `serial:` and `hci-socket:` are not implemented yet and throw
    /// `TransportOpenError.notBuilt`; `virtual` throws `.requiresVirtualRadio` (attach
    /// with `PipeTransport.attached(to:)`).
    public func openHostTransport(
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(TransportOpenError) -> any HCITransport {
        switch self {
        case .virtual: throw .requiresVirtualRadio
        case .tcpClient(let host, let port): try await TCPClientTransport.connect(host: host, port: port, group: group)
        case .tcpServer(let host, let port): try await TCPServerTransport.listen(host: host, port: port, group: group)
        case .unix(let path): try await UNIXClientTransport.connect(path: path, group: group)
        case .serial: throw .notBuilt(.serial)
        case .hciSocket: throw .notBuilt(.hciSocket)
        }
    }
}
