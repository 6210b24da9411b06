import BLEHost

/// What a protocol binding (the headset's OTA target, say) needs of the app's end of a device
/// protocol: messages out (events written without response under the bearer's flow control, and
/// requests with a timeout), the device's events and requests in, the chunk length the bearer
/// takes now (ATT_MTU − 3 for a Write Command, Core 5.4 Vol 3 Part F §3.4.5.3), and whether the
/// link is still up. `DeviceLink` is one, on BLE's `Peripheral`; `DeviceChunkLink` is one on any
/// other bearer (a phone app's Core Bluetooth, say), which feeds it the notifications it reads.
public protocol DeviceMessageLink<P>: Sendable {
    associatedtype P: DeviceProtocol

    /// Events and requests from the device, in arrival order; ends when the link closes.
    var incoming: EventStream<DeviceIncoming<P.ToApp>> { get }
    /// Whether frames can still go.
    var isUsable: Bool { get async }
    /// The chunk length to send whole frames of at most `limit` octets in.
    func preferredChunkLength(upTo limit: Int) async -> Int
    /// Sends an event (a message that needs no answer).
    func send(_ message: P.ToDevice) async throws(DeviceProtocolError)
    /// Sends a request and returns the device's response (`DeviceConnection.request`).
    func request(_ message: P.ToDevice, timeout: Duration?) async throws(DeviceProtocolError) -> P.ToApp
    /// Stops using the link: waiting requests throw `.linkClosed`, `incoming` ends.
    func close() async
}

extension DeviceLink: DeviceMessageLink {}

/// The app's end of a device protocol over a bearer the app drives itself: frames go out through
/// `transport` (which does the bearer's flow control), and the app hands each notification of
/// the device's characteristic to `receive(_:)` — the app stays the one reader of that
/// characteristic. The app closes the link when the bearer goes down.
public final class DeviceChunkLink<P: DeviceProtocol>: DeviceMessageLink {
    /// The conversation itself (framing, correlation, statistics).
    public let connection: DeviceConnection<P.ToDevice, P.ToApp>
    private let transport: DeviceChunkTransport
    private let connected: @Sendable () async -> Bool

    /// A link whose conversation runs on `executor` (kept alive by `executorOwner`), sending
    /// through `transport`; `isConnected` tells whether the bearer is up.
    public init(
        executor: UnownedSerialExecutor, executorOwner: (any AnyObject & Sendable)?, transport: DeviceChunkTransport,
        isConnected: @escaping @Sendable () async -> Bool,
        configuration: DeviceLinkConfiguration = DeviceLinkConfiguration()
    ) {
        self.transport = transport
        self.connected = isConnected
        connection = DeviceConnection(
            executor: executor, executorOwner: executorOwner, transport: transport, configuration: configuration,
            maximumPayloadLength: P.maximumPayloadLength)
    }

    public var incoming: EventStream<DeviceIncoming<P.ToApp>> { connection.incoming }

    public var isUsable: Bool {
        get async {
            guard await !connection.isClosed else { return false }
            return await connected()
        }
    }

    public func preferredChunkLength(upTo limit: Int) async -> Int {
        min(limit, await transport.maximumChunkLength())
    }

    public func send(_ message: P.ToDevice) async throws(DeviceProtocolError) {
        try await connection.send(message)
    }

    public func request(_ message: P.ToDevice, timeout: Duration?) async throws(DeviceProtocolError) -> P.ToApp {
        try await connection.request(message, timeout: timeout)
    }

    /// A notification (or any chunk) from the device.
    public func receive(_ chunk: [UInt8]) async {
        await connection.receive(chunk)
    }

    public func close() async {
        await connection.close()
    }
}
