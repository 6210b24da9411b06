import BLE
import BLEHost
import Logging

/// One end of a device protocol conversation over any chunk transport: frames messages,
/// segments them for the transport, reassembles what arrives, correlates responses with
/// requests (by sequence number, each request with its own timeout on the configured clock),
/// and delivers events and requests from the peer as an `EventStream`.
///
/// Bad input never ends the conversation: every garbage run, rejected frame, unknown or
/// malformed message, unexpected or late response is counted in `statistics` and logged.
/// Frames go out whole and in call order, one at a time: a caller waits while an earlier
/// frame's chunks are being sent, so concurrent sends never interleave their chunks.
public actor DeviceConnection<Sent: DeviceProtocolMessage, Received: DeviceProtocolMessage> {
    /// A request's state, by sequence number.
    private enum PendingRequest {
        /// Its chunks are going out; a response may already come.
        case sending(id: UInt64)
        /// Answered before its last chunk was handed over.
        case answered(id: UInt64, Result<Received, DeviceProtocolError>)
        /// Sent; waiting for the response or the timer.
        case waiting(
            id: UInt64, messageType: UInt8, CheckedContinuation<Result<Received, DeviceProtocolError>, Never>,
            timer: Task<Void, Never>)

        var id: UInt64 {
            switch self {
            case .sending(let id), .answered(let id, _), .waiting(let id, _, _, _): id
            }
        }
    }

    private let executor: UnownedSerialExecutor
    /// What owns `executor` (the peripheral or manager whose executor it is): held so that the
    /// executor cannot go away while this actor may still be given jobs.
    private let executorOwner: (any AnyObject & Sendable)?
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor }

    /// Events and requests from the peer, in arrival order; ends when the connection closes.
    public nonisolated let incoming: EventStream<DeviceIncoming<Received>>
    private let incomingSink: EventStream<DeviceIncoming<Received>>.Continuation
    private let transport: DeviceChunkTransport
    private let configuration: DeviceLinkConfiguration
    private let maximumPayloadLength: Int
    private var logger: Logger { configuration.logger }

    public private(set) var statistics = DeviceLinkStatistics()
    public private(set) var isClosed = false
    private var parser: DeviceFrameParser
    private var pending: [UInt8: PendingRequest] = [:]
    /// Sequence numbers of requests that timed out and have not been reused: a response with
    /// one of them is late rather than unexpected.
    private var expired: Set<UInt8> = []
    private var lastSequence: UInt8 = 0
    private var requestCount: UInt64 = 0
    /// A frame's chunks are going out; others wait in `sendQueue`, first come first served.
    private var isSending = false
    private var sendQueue = WaiterQueue()

    /// A connection whose actor runs on `executor` (on the virtual radio, the simulation's,
    /// e.g. a `Peripheral`'s `unownedExecutor`), sending through `transport`. `executorOwner`,
    /// the object that keeps that executor alive (the `Peripheral` or `PeripheralManager`), is
    /// retained for the connection's life.
    public init(
        executor: UnownedSerialExecutor, executorOwner: (any AnyObject & Sendable)? = nil,
        transport: DeviceChunkTransport,
        configuration: DeviceLinkConfiguration = DeviceLinkConfiguration(),
        maximumPayloadLength: Int = DeviceFrame.defaultMaximumPayloadLength
    ) {
        self.executor = executor
        self.executorOwner = executorOwner
        self.transport = transport
        self.configuration = configuration
        self.maximumPayloadLength = maximumPayloadLength
        self.parser = DeviceFrameParser(maximumPayloadLength: maximumPayloadLength)
        (incoming, incomingSink) = EventStream.makeStream(of: DeviceIncoming<Received>.self)
    }

    // MARK: Sending

    /// Sends `message` as an event (no answer expected).
    public func send(_ message: Sent) async throws(DeviceProtocolError) {
        try await transmit(message.frame(.event))
    }

    /// Sends `message` as a request and returns the response with its sequence number.
    /// Throws `.timedOut` when none comes within `timeout` (the configured default when nil)
    /// from the moment the request's last chunk was handed over; a response after that is
    /// counted as late. A response whose payload cannot be decoded throws its decoding error.
    public func request(_ message: Sent, timeout: Duration? = nil) async throws(DeviceProtocolError) -> Received {
        guard !isClosed else { throw .linkClosed }
        guard let sequence = freeSequence() else { throw .tooManyOutstandingRequests }
        requestCount += 1
        let id = requestCount
        pending[sequence] = .sending(id: id)
        expired.remove(sequence)
        do {
            try await transmit(message.frame(.request, sequence: sequence))
        } catch {
            if pending[sequence]?.id == id { pending[sequence] = nil }
            throw error
        }
        guard let entry = pending[sequence], entry.id == id else { throw .linkClosed }
        if case .answered(_, let result) = entry {
            pending[sequence] = nil
            return try result.get()
        }
        let wait = timeout ?? configuration.requestTimeout
        let messageType = message.messageType
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Received, DeviceProtocolError>, Never>) in
            // Looked at again here: the answer, or the link's end, may come before this body runs.
            switch pending[sequence] {
            case .answered(id, let result)?:
                pending[sequence] = nil
                return continuation.resume(returning: result)
            case .sending(id)?: break
            default: return continuation.resume(returning: .failure(.linkClosed))
            }
            let timer = startTimer(sequence: sequence, id: id, after: wait)
            pending[sequence] = .waiting(id: id, messageType: messageType, continuation, timer: timer)
        }
        return try result.get()
    }

    /// Answers a request from `incoming`.
    public func respond(to request: DeviceRequestID, with message: Sent) async throws(DeviceProtocolError) {
        guard request.connection == ObjectIdentifier(self) else { throw .unknownRequest(sequence: request.sequence) }
        try await transmit(message.frame(.response, sequence: request.sequence))
    }

    /// Requests waiting for their responses.
    public var outstandingRequests: Int { pending.count }

    /// Ends the conversation: waiting requests throw `.linkClosed`, `incoming` ends.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        let waiting = pending
        pending = [:]
        for entry in waiting.values {
            if case .waiting(_, _, let continuation, let timer) = entry {
                timer.cancel()
                continuation.resume(returning: .failure(.linkClosed))
            }
        }
        incomingSink.finish()
    }

    /// The next sequence number (1…255, round robin) neither waiting nor recently timed out;
    /// a timed-out one when nothing else is free.
    private func freeSequence() -> UInt8? {
        var candidate = lastSequence
        var fallback: UInt8?
        for _ in 0..<255 {
            candidate = candidate == 255 ? 1 : candidate + 1
            guard pending[candidate] == nil else { continue }
            if !expired.contains(candidate) {
                lastSequence = candidate
                return candidate
            }
            if fallback == nil { fallback = candidate }
        }
        if let fallback { lastSequence = fallback }
        return fallback
    }

    private func startTimer(sequence: UInt8, id: UInt64, after wait: Duration) -> Task<Void, Never> {
        let clock = configuration.clock
        return Task(executorPreference: configuration.taskExecutor) { [weak self] in
            do {
                try await clock.sleep(for: wait)
            } catch {
                return
            }
            await self?.expire(sequence: sequence, id: id)
        }
    }

    private func expire(sequence: UInt8, id: UInt64) {
        guard case .waiting(id, let messageType, let continuation, _)? = pending[sequence] else { return }
        pending[sequence] = nil
        expired.insert(sequence)
        statistics.timeouts += 1
        let error = DeviceProtocolError.timedOut(messageType: messageType, sequence: sequence)
        logger.warning("device protocol: \(error)")
        continuation.resume(returning: .failure(error))
    }

    /// Sends a frame's chunks, after the frames before it. Inlined into its callers: a call
    /// between two async methods of the actor costs a switch of executor, and an event sent
    /// every second all day makes one.
    @inline(__always)
    private func transmit(_ frame: DeviceFrame) async throws(DeviceProtocolError) {
        guard !isClosed else { throw .linkClosed }
        guard frame.payload.count <= maximumPayloadLength else {
            throw .messageTooLong(length: frame.payload.count, maximum: maximumPayloadLength)
        }
        // Takes the turn when free; a waiter is handed the turn (`isSending` stays set). Taken
        // here first, without the call to `wait`, which costs a switch of executor even when
        // it does not wait.
        if !claimSendingTurn() {
            await WaiterQueue.wait(unless: { claimSendingTurn() }) { sendQueue.append($0) }
        }
        // Hands the turn to the next frame waiting, or frees it.
        defer {
            if !sendQueue.resumeFirst() { isSending = false }
        }
        guard !isClosed else { throw .linkClosed }
        let octets = frame.encoded
        let size = await transport.maximumChunkLength()
        for segment in DeviceFrameSegmenter.segments(of: octets, maximumLength: size) {
            try await transport.send(Array(segment))
            statistics.chunksSent += 1
        }
        statistics.framesSent += 1
        logger.trace("device protocol: sent \(frame)")
    }

    /// Takes the sending turn if nobody holds it.
    private func claimSendingTurn() -> Bool {
        guard isSending else {
            isSending = true
            return true
        }
        return false
    }

    // MARK: Receiving

    /// Takes a chunk from the transport (a notification's or a write's value).
    public func receive(_ chunk: [UInt8]) {
        guard !isClosed else { return }
        statistics.chunksReceived += 1
        for result in parser.append(chunk) {
            switch result {
            case .success(let frame): handle(frame)
            case .failure(let error): rejected(error)
            }
        }
        statistics.octetsDiscarded = parser.discardedOctets
    }

    private func rejected(_ error: DeviceProtocolError) {
        switch error {
        case .unsynchronised:
            break
        case .checksumMismatch:
            statistics.framesRejected += 1
            statistics.checksumFailures += 1
        default:
            statistics.framesRejected += 1
        }
        logger.warning("device protocol: \(error)")
    }

    private func handle(_ frame: DeviceFrame) {
        statistics.framesReceived += 1
        logger.trace("device protocol: received \(frame)")
        let decoded: Result<Received, DeviceProtocolError>
        do {
            decoded = .success(try Received(frame: frame))
        } catch {
            decoded = .failure(error)
            undecodable(error)
        }
        switch frame.kind {
        case .event:
            if case .success(let message) = decoded { incomingSink.yield(.event(message)) }
        case .request:
            let id = DeviceRequestID(sequence: frame.sequence, connection: ObjectIdentifier(self))
            if case .success(let message) = decoded { incomingSink.yield(.request(message, id)) }
        case .response:
            response(decoded, sequence: frame.sequence)
        }
    }

    private func response(_ result: Result<Received, DeviceProtocolError>, sequence: UInt8) {
        switch pending[sequence] {
        case .waiting(_, _, let continuation, let timer)?:
            timer.cancel()
            pending[sequence] = nil
            continuation.resume(returning: result)
        case .sending(let id)?:
            pending[sequence] = .answered(id: id, result)
        case .answered?:
            statistics.unexpectedResponses += 1
            logger.warning("device protocol: a second response with sequence \(sequence)")
        case nil:
            if expired.remove(sequence) != nil {
                statistics.lateResponses += 1
                logger.warning("device protocol: late response with sequence \(sequence), after its timeout")
            } else {
                statistics.unexpectedResponses += 1
                logger.warning("device protocol: response with sequence \(sequence) to no request")
            }
        }
    }

    private func undecodable(_ error: DeviceProtocolError) {
        switch error {
        case .unknownMessageType: statistics.unknownMessages += 1
        default: statistics.malformedMessages += 1
        }
        logger.warning("device protocol: \(error)")
    }
}
