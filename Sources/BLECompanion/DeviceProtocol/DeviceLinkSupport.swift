import BLE
import BLESimulation
import Logging

/// What a link has seen: traffic, and each kind of bad input it survived.
public struct DeviceLinkStatistics: Sendable, Hashable {
    public var framesSent = 0
    public var framesReceived = 0
    /// Chunks written or notified.
    public var chunksSent = 0
    public var chunksReceived = 0
    /// Octets the stream parser skipped to find a frame again.
    public var octetsDiscarded = 0
    /// False starts and corrupted frames: header checks or the CRC failed.
    public var framesRejected = 0
    /// Of those, the frames whose CRC failed.
    public var checksumFailures = 0
    /// Frames with a message type this side does not know.
    public var unknownMessages = 0
    /// Frames of a known type with a malformed payload.
    public var malformedMessages = 0
    /// Responses to no request ever sent.
    public var unexpectedResponses = 0
    /// Responses that came after their request timed out.
    public var lateResponses = 0
    /// Requests that timed out.
    public var timeouts = 0
    /// Times a send waited for transmit room (flow control).
    public var flowControlWaits = 0

    public init() {}
}

/// How a link runs: its clock and executor, its default timeout and its log.
public struct DeviceLinkConfiguration: Sendable {
    /// Request timeouts read this clock.
    public var clock: any Clock<Duration>
    /// The executor the link's own tasks (timers, stream pumps) prefer; on the virtual radio,
    /// the simulation's, so virtual time waits for them.
    public var taskExecutor: (any TaskExecutor)?
    /// How long a request waits for its response unless told otherwise.
    public var requestTimeout: Duration
    /// Where the link logs: frames sent and received at `.trace`, everything it drops or
    /// survives (counted in `DeviceLinkStatistics`) at `.warning`. Silent unless set.
    public var logger: Logger

    public init(
        clock: any Clock<Duration> = ContinuousClock(), taskExecutor: (any TaskExecutor)? = nil,
        requestTimeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "ble.device-link", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.clock = clock
        self.taskExecutor = taskExecutor
        self.requestTimeout = requestTimeout
        self.logger = logger
    }

    /// On a simulation: its virtual clock and executor.
    public static func virtual(
        _ simulation: Simulation, requestTimeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "ble.device-link", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> DeviceLinkConfiguration {
        DeviceLinkConfiguration(
            clock: simulation.clock, taskExecutor: simulation.executor, requestTimeout: requestTimeout,
            logger: logger)
    }
}

/// Names a request received, to answer it with `respond(to:with:)`.
public struct DeviceRequestID: Sendable, Hashable {
    /// The request frame's sequence number.
    public let sequence: UInt8
    /// The connection it came in on.
    let connection: ObjectIdentifier
}

/// A message that is not a response: an event, or a request to answer.
public enum DeviceIncoming<Message: DeviceProtocolMessage>: Sendable, Hashable {
    case event(Message)
    case request(Message, DeviceRequestID)

    /// The message either way.
    public var message: Message {
        switch self {
        case .event(let message), .request(let message, _): message
        }
    }
}

/// How a connection hands chunks to its transport.
public struct DeviceChunkTransport: Sendable {
    // Both run in the caller's isolation (`nonisolated(nonsending)`): the connection calls them
    // for every chunk, and a switch to the generic executor and back each time would cost more
    // than the chunk.

    /// The longest chunk the transport takes now (ATT_MTU − 3 on a characteristic).
    public var maximumChunkLength: nonisolated(nonsending) @Sendable () async -> Int
    /// Sends one chunk, waiting for transmit room; throws when the link is gone.
    public var send: nonisolated(nonsending) @Sendable ([UInt8]) async throws(DeviceProtocolError) -> Void

    public init(
        maximumChunkLength: nonisolated(nonsending) @escaping @Sendable () async -> Int,
        send: nonisolated(nonsending) @escaping @Sendable ([UInt8]) async throws(DeviceProtocolError) -> Void
    ) {
        self.maximumChunkLength = maximumChunkLength
        self.send = send
    }
}
