import BLE
import BLELocking

/// The headset protocol's binding of the OTA engine (docs/headset-protocol.md, "OTA sequence"):
/// OTA start, status, commit and abort are requests with a timeout; data packets are events
/// written without response under the link's flow control; the headset's OTA error reports
/// (`0C`) are the engine's report stream.
///
/// The target reads the link's `incoming` stream (it has one reader): OTA error reports go to
/// the engine, battery reports are remembered for a refusal's message, and every other message
/// is passed on in `otherMessages`.
///
/// It works on any `DeviceMessageLink`: `HeadsetOTATarget` is the binding on BLE's `Peripheral`
/// (`DeviceLink`); a phone app binds it to its own Core Bluetooth with a `DeviceChunkLink`.
public typealias HeadsetOTATarget = HeadsetOTABinding<DeviceLink<HeadsetProtocol>>

/// The headset protocol's OTA binding on a link of type `Link` (see `HeadsetOTATarget`).
public final class HeadsetOTABinding<Link: DeviceMessageLink<HeadsetProtocol>>: OTATarget {
    /// How the binding runs.
    public struct Configuration: Sendable {
        /// How long OTA start, status and abort wait for their answers.
        public var requestTimeout: Duration
        /// How long OTA commit waits: the headset hashes the whole image before it answers.
        public var commitTimeout: Duration
        /// The battery minimum the headset is assumed to need; the protocol's "battery too low"
        /// answer does not carry it, so a refusal reports this value.
        public var assumedMinimumBatteryLevel: Int

        public init(
            requestTimeout: Duration = .seconds(5), commitTimeout: Duration = .seconds(20),
            assumedMinimumBatteryLevel: Int = 20
        ) {
            self.requestTimeout = requestTimeout
            self.commitTimeout = commitTimeout
            self.assumedMinimumBatteryLevel = assumedMinimumBatteryLevel
        }
    }

    /// Brings back a link after a loss (reconnect by identity, connect, `DeviceLink.open`).
    public typealias Reconnect = @Sendable () async throws -> Link

    private struct State {
        var link: Link
        var pump: Task<Void, Never>?
        var subscribers: [AsyncStream<OTADeviceReport>.Continuation] = []
        var batteryLevel: Int?
        /// The image size of the last OTA start, for an incomplete commit's message.
        var imageSize = 0
    }

    public let configuration: Configuration
    /// Messages from the headset that are not OTA error reports (gestures, heartbeats, …).
    public let otherMessages: AsyncStream<DeviceIncoming<HeadsetDeviceMessage>>
    private let otherSink: AsyncStream<DeviceIncoming<HeadsetDeviceMessage>>.Continuation
    private let reconnectLink: Reconnect?
    private let taskExecutor: (any TaskExecutor)?
    private let state: Locked<State>

    /// A target on an open link. `reconnect` (nil: a link loss ends the update) is called after
    /// a link loss; `taskExecutor` is where the target's reader runs (the simulation's on the
    /// virtual radio).
    public init(
        link: Link, configuration: Configuration = Configuration(),
        taskExecutor: (any TaskExecutor)? = nil, reconnect: Reconnect? = nil
    ) {
        self.configuration = configuration
        self.reconnectLink = reconnect
        self.taskExecutor = taskExecutor
        (otherMessages, otherSink) = AsyncStream.makeStream(of: DeviceIncoming<HeadsetDeviceMessage>.self)
        state = Locked(State(link: link))
        startReading(link)
    }

    deinit {
        state.withLock { state in
            state.pump?.cancel()
            for subscriber in state.subscribers { subscriber.finish() }
        }
        otherSink.finish()
    }

    /// The link in use now.
    public var link: Link { state.withLock { $0.link } }

    /// Stops reading the link; report streams end.
    public func close() {
        state.withLock { state in
            state.pump?.cancel()
            state.pump = nil
            for subscriber in state.subscribers { subscriber.finish() }
            state.subscribers = []
        }
        otherSink.finish()
    }

    private func startReading(_ link: Link) {
        let incoming = link.incoming
        let pump = Task(executorPreference: taskExecutor) { [weak self] in
            for await message in incoming {
                guard let self else { return }
                self.dispatch(message)
            }
        }
        state.withLock { state in
            state.pump?.cancel()
            state.pump = pump
        }
    }

    private func dispatch(_ incoming: DeviceIncoming<HeadsetDeviceMessage>) {
        switch incoming.message {
        case .otaResend(let packet):
            let subscribers = state.withLock { $0.subscribers }
            for subscriber in subscribers { subscriber.yield(.resendFrom(packet: Int(packet))) }
        case .otaResendPacket(let packet):
            let subscribers = state.withLock { $0.subscribers }
            for subscriber in subscribers { subscriber.yield(.resend(packet: Int(packet))) }
        case .battery(let level):
            state.withLock { $0.batteryLevel = Int(level) }
            otherSink.yield(incoming)
        default:
            otherSink.yield(incoming)
        }
    }

    // MARK: OTATarget

    public func maximumPacketPayload() async throws(OTALinkError) -> Int {
        let link = self.link
        guard await link.isUsable else { throw .linkLost }
        // Write Command value ≤ ATT_MTU − 3 (Core 5.4 Vol 3 Part F §3.4.5.3); over an L2CAP
        // channel, an SDU of whole K-frames: a chunk, either way, holding one whole frame.
        let frame = HeadsetProtocol.maximumPayloadLength + DeviceFrame.overhead
        let chunk = await link.preferredChunkLength(upTo: frame)
        return HeadsetProtocol.maximumOTADataLength(forATTMTU: chunk + 3)
    }

    public func start(_ parameters: OTASessionParameters) async throws(OTALinkError) -> OTAStartAnswer {
        guard let size = UInt32(exactly: parameters.imageSize), let length = UInt16(exactly: parameters.packetSize)
        else {
            return .refused(.invalidParameters("image size \(parameters.imageSize), packet \(parameters.packetSize)"))
        }
        let start = HeadsetProtocol.OTAStart(
            imageSize: size, packetLength: length, sha256: parameters.sha256, version: parameters.version)
        state.withLock { $0.imageSize = parameters.imageSize }
        let answer = try await request(.otaStart(start), timeout: configuration.requestTimeout)
        switch answer {
        case .mcuResponse(.enteredOTAMode):
            // The answer does not say where to resume: OTA status does.
            switch try await status() {
            case .receiving(let nextPacket, _): return .ready(nextPacket: nextPacket)
            case .idle: throw .protocolViolation("OTA status idle right after entering OTA mode")
            }
        case .mcuResponse(.batteryTooLow):
            let level = state.withLock { $0.batteryLevel } ?? 0
            return .refused(.batteryTooLow(level: level, minimum: configuration.assumedMinimumBatteryLevel))
        case .otaResult(.versionFormatError):
            return .refused(.versionFormat(parameters.version))
        case .otaResult(.success):
            return .alreadyInstalled
        case .otaResult(.failure):
            return .refused(.invalidParameters("the headset refused the image (size, packet length or digest)"))
        case .otaResult(.authenticationRequired):
            return .refused(.authenticationRequired)
        default:
            throw .protocolViolation("OTA start answered by \(answer)")
        }
    }

    public func send(_ packet: OTAPacket) async throws(OTALinkError) {
        let data = HeadsetProtocol.OTAData(packet: packet.number, crc32: packet.crc32, data: packet.payload)
        do {
            try await link.send(.otaData(data))
        } catch {
            throw Self.linkError(error)
        }
    }

    public func status() async throws(OTALinkError) -> OTAStatus {
        let answer = try await request(.otaStatusQuery, timeout: configuration.requestTimeout)
        switch answer {
        case .otaStatus(let status):
            return .receiving(nextPacket: Int(status.nextPacket), receivedBytes: Int(status.receivedBytes))
        case .otaResult(.failure):
            // The headset's answer when no update is under way.
            return .idle
        default:
            throw .protocolViolation("OTA status query answered by \(answer)")
        }
    }

    public func commit() async throws(OTALinkError) -> OTACommitOutcome {
        let answer = try await request(.otaCommit, timeout: configuration.commitTimeout)
        switch answer {
        case .otaResult(.success):
            return .installed
        case .otaResult(.restartFailure):
            return .failed(.restartFailure)
        case .otaResult(.failure):
            // One code for every refusal: the staging's state tells them apart. A headset still
            // receiving is incomplete (the engine resumes); one with no staging discarded it on a
            // digest mismatch.
            switch try await status() {
            case .receiving(_, let received):
                let expected = state.withLock { $0.imageSize }
                return .failed(.incomplete(receivedBytes: received, expectedBytes: expected))
            case .idle: return .failed(.digestMismatch)
            }
        default:
            throw .protocolViolation("OTA commit answered by \(answer)")
        }
    }

    public func abort() async throws(OTALinkError) {
        let answer = try await request(.otaAbort, timeout: configuration.requestTimeout)
        guard case .otaResult = answer else { throw .protocolViolation("OTA abort answered by \(answer)") }
    }

    public func reconnect() async throws(OTALinkError) {
        guard let reconnectLink else { throw .linkLost }
        let fresh: Link
        do {
            fresh = try await reconnectLink()
        } catch {
            if Task.isCancelled { throw .cancelled }
            throw .linkLost
        }
        let old = state.withLock { state in
            defer { state.link = fresh }
            return state.link
        }
        await old.close()
        startReading(fresh)
    }

    public func reportStream() -> AsyncStream<OTADeviceReport> {
        let (stream, continuation) = AsyncStream.makeStream(of: OTADeviceReport.self)
        state.withLock { $0.subscribers.append(continuation) }
        return stream
    }

    // MARK: Errors

    private func request(_ message: HeadsetAppMessage, timeout: Duration) async throws(OTALinkError)
        -> HeadsetDeviceMessage
    {
        do {
            return try await link.request(message, timeout: timeout)
        } catch {
            throw Self.linkError(error)
        }
    }

    /// How a device-protocol failure looks to the engine.
    static func linkError(_ error: DeviceProtocolError) -> OTALinkError {
        if Task.isCancelled { return .cancelled }
        switch error {
        case .timedOut: return .timedOut
        case .linkClosed, .ble, .notSubscribed, .serviceNotFound, .characteristicNotFound: return .linkLost
        default: return .protocolViolation(error.description)
        }
    }
}
