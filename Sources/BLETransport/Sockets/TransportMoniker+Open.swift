import Logging
import NIOCore
import NIOPosix

extension TransportMoniker {
    /// Opens the host's side of the transport this moniker names: a link to a controller
    /// carrying H4 (Core 5.4 Vol 4 Part A §2).
    ///
    /// `tcp-client:` and `unix:` connect; `tcp-server:` listens and waits for a controller to
    /// connect; `serial:` opens a tty in raw mode; `hci-socket:` opens the Linux HCI user
    /// channel of an adapter. `virtual` throws `.requiresVirtualRadio` (attach with
    /// `PipeTransport.attached(to:)`).
    ///
    /// `logger` hears how the link ended (framing errors, the controller hanging up) and the
    /// writes that failed; silent unless given.
    public func openHostTransport(
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "ble.transport", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws(TransportOpenError) -> any HCITransport {
        switch self {
        case .virtual: throw .requiresVirtualRadio
        case .tcpClient(let host, let port):
            return try await TCPClientTransport.connect(host: host, port: port, group: group, logger: logger)
        case .tcpServer(let host, let port):
            return try await TCPServerTransport.listen(host: host, port: port, group: group, logger: logger)
        case .unix(let path): return try await UNIXClientTransport.connect(path: path, group: group, logger: logger)
        case .serial(let line):
            do throws(SerialLineError) {
                return try await SerialTransport.open(line, group: group, logger: logger)
            } catch {
                throw .serial(error)
            }
        case .hciSocket(let index):
            do throws(HCISocketError) {
                return try await HCISocketTransport.open(index: index, group: group, logger: logger)
            } catch {
                throw .hciSocket(error)
            }
        }
    }
}
