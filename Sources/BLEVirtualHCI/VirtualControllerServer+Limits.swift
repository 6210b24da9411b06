import BLELocking

extension VirtualControllerServer {
    /// What one client may cost the process: the input held between its socket and its
    /// controller, and the output it leaves unread.
    public struct ClientLimits: Sendable, Hashable {
        /// Chunks of input read from the socket and not yet consumed by the controller; reading
        /// waits while this many are out.
        public var inputChunksInFlight: Int
        /// The most octets one read takes from the socket.
        public var readChunkSize: Int
        /// Octets of events and data written toward the client and not yet taken by its socket
        /// beyond which the client is closed as not reading (its input is already held once
        /// the socket's write buffer passes NIO's high-water mark).
        public var unreadOutputLimit: Int
        /// The kernel's send and receive buffers of a client's socket (SO_SNDBUF, SO_RCVBUF),
        /// fixed rather than left to grow to megabytes: they hold what a flooding client wrote
        /// and the answers it does not read. When a client closes, NIO drains what its receive
        /// buffer holds at once; that input waits in the handler (`peakInputOctetsWaiting`).
        public var socketBufferSize: Int

        public init(
            inputChunksInFlight: Int = 2, readChunkSize: Int = 4096, unreadOutputLimit: Int = 4 << 20,
            socketBufferSize: Int = 64 * 1024
        ) {
            self.inputChunksInFlight = inputChunksInFlight
            self.readChunkSize = readChunkSize
            self.unreadOutputLimit = unreadOutputLimit
            self.socketBufferSize = socketBufferSize
        }

        /// The most input octets ever held for one client between its socket and its controller.
        public var inputOctetsBound: Int { max(1, inputChunksInFlight) * max(1, readChunkSize) }
    }

    /// What one listener's clients did, counted since the listener opened.
    public struct ListenerStatistics: Sendable, Hashable {
        /// Clients whose stream reached the controller.
        public var clientsAttached = 0
        /// Clients closed because a newer one took the controller.
        public var clientsReplaced = 0
        /// Clients closed because they left more than `ClientLimits.unreadOutputLimit` unread.
        public var clientsClosedForUnreadOutput = 0
        /// Input octets read from clients' sockets.
        public var inputOctetsRead = 0
        /// Input octets the controller took (from a client attached at the time).
        public var inputOctetsConsumed = 0
        /// Input octets read from a client that had gone or was being closed, thrown away
        /// (each client's total is logged when it is released).
        public var inputOctetsDiscarded = 0
        /// The most input chunks and octets ever held between a socket and the controller.
        public var peakInputChunksInFlight = 0
        public var peakInputOctetsInFlight = 0
        /// The most input octets ever waiting in the handler beyond those in flight (read
        /// unasked when a client closed: at most its socket's receive buffer).
        public var peakInputOctetsWaiting = 0
        /// Times a read waited for the controller or for the client to take its events.
        public var readsHeld = 0
        /// Chunks of input handed to the controller (each one read).
        public var inputChunks = 0
        /// Socket writes toward clients: each carries every packet one simulation turn produced
        /// for its client (the commands of one chunk of input, one connection event …).
        public var outputWrites = 0
        /// Packets (events, ACL data) written toward clients.
        public var outputPackets = 0

        public init() {}
    }
}

/// A listener's statistics, updated from the socket's event loop and the simulation thread.
final class SlotStatistics: Sendable {
    private let value = Locked(VirtualControllerServer.ListenerStatistics())

    func update(_ body: (inout VirtualControllerServer.ListenerStatistics) -> Void) {
        value.withLock { body(&$0) }
    }

    var current: VirtualControllerServer.ListenerStatistics { value.withLock { $0 } }
}
