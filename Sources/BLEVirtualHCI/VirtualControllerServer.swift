import BLEController
import BLETransport
import BLEWire
import Foundation
import Logging
import NIOCore
import NIOPosix

/// Serves virtual controllers over HCI, so any host stack (Bumble, Android's, ours) can drive
/// them: each listener (`tcp-server:HOST:PORT` or `unix:PATH`) carries one controller's UART
/// transport, H4 with no handshake (Core 5.4 Vol 4 Part A §2).
///
/// Policy, per controller:
/// - One client at a time, and no client ever sees another's traffic. A new client takes over
///   from the current one (as Bumble's tcp-server transport hands the stream to the newest
///   connection; a host that restarts is never locked out by its own stale socket), but only
///   once the old one is wholly gone: its socket is closed, its input cut off on the simulation
///   thread (what it sent and the controller had not yet taken is discarded, counted and
///   logged), the controller reset (HCI_Reset, Core 5.4 Vol 4 Part E §7.3.2: links dropped,
///   advertising and scanning stopped, ACL buffers free) and the Reset's completion swallowed.
///   Only then is the new client's stream attached and read.
/// - A client that disconnects releases the controller the same way, so the next client starts
///   clean.
/// - Input is read only as fast as the controller takes it (`ClientLimits`): a bounded number
///   of bounded chunks between a socket and its controller, and no reading while the client
///   leaves its events unread, so a flood costs bounded memory and the other controllers on the
///   same air are served meanwhile. A client leaving more than `unreadOutputLimit` octets
///   unread is closed.
/// - A stream the controller cannot frame (it reports `onTransportFailure`) closes that client
///   only; other listeners run on.
/// - Listens only on the addresses given (`_` in a tcp-server moniker means every interface,
///   as in Bumble).
///
/// - A UNIX listener's path must be free or hold a stale socket (one nobody listens on), which is
///   removed; a regular file, a directory, a symbolic link or a live socket there is an error
///   (`TransportOpenError.socketPath`) and is left untouched.
///
/// Call `close()` when done: it closes listeners and clients, releases the controllers and
/// removes the UNIX socket files it bound (if they are still there).
public actor VirtualControllerServer {
    /// One listening socket and the controller behind it.
    public struct Listener: Sendable {
        /// The listener's number, from 0, in the order `listen` was called (the number client
        /// events carry).
        public let index: Int
        /// Where it listens, with the port the system chose when 0 was asked for.
        public let moniker: TransportMoniker
        public let port: VirtualControllerPort
    }

    /// Why a controller was released.
    public enum ReleaseReason: Sendable, Hashable {
        case disconnected
        case replaced
        case serverClosed
    }

    /// What happens to clients, in order per listener.
    public enum Event: Sendable, Hashable {
        /// A client's stream now reaches the controller.
        case attached(listener: Int, peer: String)
        /// The controller could not frame the client's stream; the client is being closed.
        case transportFailed(listener: Int, VirtualController.TransportFailure)
        /// The client leaves its events unread: its input is no longer read until it takes
        /// them (once per client).
        case inputHeld(listener: Int)
        /// Input the client sent and the controller had not taken when the client went: thrown
        /// away (before `released`).
        case inputDiscarded(listener: Int, octets: Int)
        /// The client is gone and the controller has been reset, ready for the next one.
        case released(listener: Int, ReleaseReason)
    }

    /// Client events of every listener (the newest 1024 are kept if nobody reads).
    public nonisolated let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation
    private let group: any EventLoopGroup
    private let logger: Logger
    private let limits: ClientLimits

    private struct Bound {
        let listener: Listener
        let channel: any Channel
        let slot: ControllerSlot
        /// The socket file a UNIX listener bound (removed on close only if still there).
        let socketFile: UnixSocketPath.Identity?
    }

    /// The monikers a server can listen on.
    private enum ListenAddress {
        case tcp(host: String, port: UInt16)
        case unix(path: String)
    }

    private var bound: [Bound] = []
    private var nextIndex = 0
    private var isClosed = false

    /// - Parameters:
    ///   - limits: what one client may cost the process (input in flight, output unread).
    ///   - logger: hears clients come and go, the streams a controller could not frame and the
    ///     input discarded; silent unless given.
    public init(
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, limits: ClientLimits = ClientLimits(),
        logger: Logger = Logger(label: "ble.controller-server", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.group = group
        self.limits = limits
        self.logger = logger
        (events, eventSink) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(1024))
    }

    /// The listeners, in the order they were opened.
    public var listeners: [Listener] { bound.map(\.listener) }

    /// What listener `index`'s clients did so far (zeros for no such listener).
    public func statistics(of index: Int) -> ListenerStatistics {
        bound.first { $0.listener.index == index }?.slot.statistics.current ?? ListenerStatistics()
    }

    /// Starts serving `port`'s controller on `moniker` (`tcp-server:HOST:PORT` or `unix:PATH`).
    @discardableResult
    public func listen(
        on moniker: TransportMoniker, serving port: VirtualControllerPort
    ) async throws(TransportOpenError) -> Listener {
        let address: ListenAddress
        switch moniker {
        case .tcpServer(let host, let port): address = .tcp(host: host, port: port)
        case .unix(let path): address = .unix(path: path)
        case .virtual, .tcpClient, .serial, .hciSocket: throw .unsupportedRole(moniker)
        }
        guard !isClosed else { throw .listenFailed(moniker, "the server is closed") }
        // Two listeners would fight over the controller's one host interface.
        guard !bound.contains(where: { $0.listener.port === port }) else {
            throw .listenFailed(moniker, "this controller is already served")
        }
        let index = nextIndex
        nextIndex += 1
        if case .unix(let path) = address {
            // Only a stale socket is removed; anything else at the path is someone's and stays.
            do throws(UnixSocketPathError) {
                try UnixSocketPath.prepareForListening(path)
            } catch {
                throw .socketPath(moniker, error)
            }
        }
        let slot = ControllerSlot(index: index, port: port, limits: limits, events: eventSink, logger: logger)
        // The listener and all its clients on one event loop: clients are then attached in the
        // order they were accepted (children spread over several loops would run their
        // initializers in any order, and an older client could replace a newer one).
        let loop = group.next()
        let bootstrap = ServerBootstrap(group: loop, childGroup: loop)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Reading starts once the controller answers to this client (see ControllerSlot).
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { channel in slot.accept(channel) }
        let channel: any Channel
        let boundMoniker: TransportMoniker
        var socketFile: UnixSocketPath.Identity?
        do {
            switch address {
            case .tcp(let host, let requested):
                channel = try await bootstrap.bind(host: host == "_" ? "0.0.0.0" : host, port: Int(requested)).get()
                let actual = channel.localAddress?.port.flatMap(UInt16.init(exactly:)) ?? requested
                boundMoniker = .tcpServer(host: host, port: actual)
            case .unix(let path):
                channel = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: false).get()
                socketFile = UnixSocketPath.identity(of: path)
                boundMoniker = moniker
            }
        } catch {
            await slot.shutdown()
            throw .listenFailed(moniker, "\(error)")
        }
        guard !isClosed else {
            // Closed while binding: nothing will close this listener later.
            try? await channel.close()
            if case .unix(let path) = address, let socketFile { UnixSocketPath.remove(path, boundAs: socketFile) }
            await slot.shutdown()
            throw .listenFailed(moniker, "the server is closed")
        }
        let listener = Listener(index: index, moniker: boundMoniker, port: port)
        bound.append(Bound(listener: listener, channel: channel, slot: slot, socketFile: socketFile))
        return listener
    }

    /// Closes every listener and client, releases the controllers, removes UNIX socket files.
    public func close() async {
        guard !isClosed else { return }
        isClosed = true
        for entry in bound {
            try? await entry.channel.close()
            await entry.slot.shutdown()
            if case .unix(let path) = entry.listener.moniker, let socketFile = entry.socketFile {
                UnixSocketPath.remove(path, boundAs: socketFile)
            }
        }
        eventSink.finish()
    }
}
