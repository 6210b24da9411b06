import Logging

/// The engine's transfer loop: start or resume a session, send, resend what the device names
/// (one packet, or everything from one), commit; recover from link
/// losses, unanswered requests and lost sessions by starting again, which the device answers
/// with where to resume.
struct OTATransfer<Target: OTATarget, C: Clock<Duration>> {
    let target: Target
    let image: FirmwareImage
    let configuration: OTAConfiguration
    let clock: C
    let log: OTARunLog<C.Instant>
    let inbox: OTAReportInbox
    let progress: AsyncStream<OTAProgress>.Continuation
    let started: C.Instant

    private var packetizer: OTAPacketizer?
    private var phase = OTAPhase.starting
    private var furthestSent = 0
    private var acknowledgedBytes = 0
    private var transmittedBytes = 0
    /// Image bytes the device already held when this run first reached it (not this run's work).
    private var resumedBytes: Int?
    private var sendingStarted: C.Instant?
    /// Send attempts in this run, for the transmission limit.
    private var packetsSent = 0
    /// Packets the device asked for one by one (selective repeat), sent before new ones.
    private var selectiveResends: Set<Int> = []
    private let logger: Logger

    init(
        target: Target, image: FirmwareImage, configuration: OTAConfiguration, clock: C, log: OTARunLog<C.Instant>,
        inbox: OTAReportInbox, progress: AsyncStream<OTAProgress>.Continuation, started: C.Instant, logger: Logger
    ) {
        self.logger = logger
        self.target = target
        self.image = image
        self.configuration = configuration
        self.clock = clock
        self.log = log
        self.inbox = inbox
        self.progress = progress
        self.started = started
    }

    /// Why one session attempt stopped.
    private enum Interruption: Error {
        /// A call failed; `.linkLost` needs a reconnect first.
        case link(OTALinkError)
        /// The device no longer has the session (restarted without it, or dropped it).
        case sessionLost
        /// Final.
        case failure(OTAFailure)
    }

    /// Runs sessions until the image is installed, a final failure, or too many recoveries.
    mutating func run() async throws(OTAFailure) {
        var recoveries = 0
        var needsReconnect = false
        while true {
            do throws(Interruption) {
                if needsReconnect {
                    phase = .recovering
                    report()
                    try await call { () async throws(OTALinkError) in try await target.reconnect() }
                    needsReconnect = false
                }
                try await session()
                return
            } catch {
                let last: OTALinkError
                switch error {
                case .failure(let failure):
                    throw failure
                case .link(.cancelled):
                    throw .cancelled
                case .link(.protocolViolation(let what)):
                    throw .protocolViolation(what)
                case .link(let linkError):
                    last = linkError
                    if linkError == .linkLost { needsReconnect = true }
                case .sessionLost:
                    last = .protocolViolation("the device lost the session")
                }
                if Task.isCancelled { throw .cancelled }
                recoveries += 1
                log.update { $0.recoveries = recoveries }
                logger.notice("OTA: recovery \(recoveries) of at most \(configuration.maximumRecoveries) after \(last)")
                guard recoveries <= configuration.maximumRecoveries else {
                    throw .recoveryLimit(last: last, recoveries: recoveries - 1)
                }
            }
        }
    }

    /// One session: (re)start, check a resumed prefix, send everything the device lacks, commit.
    private mutating func session() async throws(Interruption) {
        phase = .starting
        let packetizer = try await preparePackets()
        let count = packetizer.packetCount
        guard let first = try await startOrResume(packetizer) else {
            log.update { $0.alreadyInstalled = true }
            return
        }
        // Reports from before this session name packets of a stream that no longer exists.
        _ = inbox.take()
        phase = .sending
        if sendingStarted == nil { sendingStarted = clock.now }
        var position = first
        var sinceAcknowledgement = 0
        selectiveResends = []
        while true {
            position = try apply(inbox.take(), to: position, count: count)
            let number: Int
            if let resend = selectiveResends.min() {
                // Selective repeat: the device holds the packets after this one; fill the gap
                // before sending new ones.
                selectiveResends.remove(resend)
                number = resend
            } else if position < count {
                number = position
                position += 1
            } else {
                let deviceNext = try await askStatus(count: count)
                guard deviceNext < count else { break }
                // Reports sent before the answer name the packets a selective-repeat device
                // still lacks; without any, go back to its next packet.
                position = try apply(inbox.take(), to: position, count: count)
                if selectiveResends.isEmpty { position = rewound(position, to: deviceNext) }
                continue
            }
            packetsSent += 1
            guard packetsSent <= count * max(1, configuration.maximumTransmissionFactor) else {
                throw .failure(.transmissionLimit(packetsSent: packetsSent - 1))
            }
            try await call { () async throws(OTALinkError) in try await target.send(packetizer.packet(number)) }
            let range = packetizer.byteRange(ofPacket: number)
            let isResend = range.upperBound <= furthestSent
            furthestSent = max(furthestSent, range.upperBound)
            transmittedBytes += range.count
            log.update { summary in
                summary.packetsSent += 1
                summary.bytesTransmitted += range.count
                if isResend { summary.packetsResent += 1 }
            }
            sinceAcknowledgement += 1
            if let window = configuration.acknowledgementWindow, window > 0, sinceAcknowledgement >= window,
                position < count
            {
                sinceAcknowledgement = 0
                position = rewound(position, to: try await askStatus(count: count))
                selectiveResends = selectiveResends.filter { $0 < position }
            }
            report()
        }
        phase = .committing
        report()
        let outcome = try await call { () async throws(OTALinkError) in try await target.commit() }
        switch outcome {
        case .installed:
            acknowledgedBytes = image.size
            report()
        case .failed(.noSession), .failed(.incomplete):
            // Lost between the status answer and the commit (a device restart): resume.
            throw .sessionLost
        case .failed(let failure):
            throw .failure(.commitFailed(failure))
        }
    }

    /// Packets sized to what the link takes now; kept while the size stays the same.
    private mutating func preparePackets() async throws(Interruption) -> OTAPacketizer {
        let linkPayload = try await call { () async throws(OTALinkError) in try await target.maximumPacketPayload() }
        let size = min(linkPayload, configuration.maximumPacketSize ?? linkPayload)
        if let packetizer, packetizer.packetSize == size { return packetizer }
        let fresh: OTAPacketizer
        do throws(OTAFailure) {
            fresh = try OTAPacketizer(image: image, packetSize: size)
        } catch {
            throw .failure(error)
        }
        packetizer = fresh
        log.update { summary in
            summary.imageSize = fresh.image.size
            summary.packetSize = fresh.packetSize
            summary.packetCount = fresh.packetCount
        }
        return fresh
    }

    /// Starts or resumes; nil when the device already runs this image.
    private mutating func startOrResume(_ packetizer: OTAPacketizer) async throws(Interruption) -> Int? {
        let parameters = packetizer.parameters
        var answer = try await call { () async throws(OTALinkError) in try await target.start(parameters) }
        var next: Int
        switch answer {
        case .alreadyInstalled: return nil
        case .refused(let refusal): throw .failure(.refused(refusal))
        case .ready(let nextPacket): next = nextPacket
        }
        guard (0...packetizer.packetCount).contains(next) else {
            throw .failure(.protocolViolation("resume at packet \(next) of \(packetizer.packetCount)"))
        }
        if next > 0, configuration.verifiesResumedPrefix {
            phase = .verifyingPrefix
            report()
            let held = next
            let crc = try await call { () async throws(OTALinkError) in try await target.crc32OfStagedPackets(held) }
            if let crc, crc != packetizer.crc32OfPackets(held) {
                log.update { $0.prefixMismatches += 1 }
                try await call { () async throws(OTALinkError) in try await target.abort() }
                answer = try await call { () async throws(OTALinkError) in try await target.start(parameters) }
                guard answer == .ready(nextPacket: 0) else {
                    throw .failure(.protocolViolation("restart after a prefix mismatch answered \(answer)"))
                }
                next = 0
            }
        }
        acknowledgedBytes = packetizer.bytes(beforePacket: next)
        furthestSent = max(furthestSent, acknowledgedBytes)
        if resumedBytes == nil { resumedBytes = acknowledgedBytes }
        let resumedAt = next
        log.update { summary in
            if summary.resumedFromPacket == nil { summary.resumedFromPacket = resumedAt }
        }
        return next
    }

    /// Asks the device where it stands; its next packet also acknowledges everything before.
    private mutating func askStatus(count: Int) async throws(Interruption) -> Int {
        let status = try await call { () async throws(OTALinkError) in try await target.status() }
        switch status {
        case .idle:
            throw .sessionLost
        case .receiving(let nextPacket, _):
            guard (0...count).contains(nextPacket) else {
                throw .failure(.protocolViolation("status names packet \(nextPacket) of \(count)"))
            }
            acknowledgedBytes = packetizer?.bytes(beforePacket: nextPacket) ?? 0
            return nextPacket
        }
    }

    /// Applies the device's reports: a go-back-N report below the current position rewinds to it
    /// (the earliest wins) and cancels selective resends from there on, which the new pass sends
    /// anyway; a selective report queues that one packet if it was already sent.
    private mutating func apply(
        _ reports: [OTADeviceReport], to position: Int, count: Int
    ) throws(Interruption) -> Int {
        var position = position
        for report in reports {
            switch report {
            case .resendFrom(let packet):
                guard (0..<count).contains(packet) else {
                    throw .failure(.protocolViolation("resend from packet \(packet) of \(count)"))
                }
                if packet < position { position = rewound(position, to: packet) }
            case .resend(let packet):
                guard (0..<count).contains(packet) else {
                    throw .failure(.protocolViolation("resend of packet \(packet) of \(count)"))
                }
                if packet < position {
                    selectiveResends.insert(packet)
                    log.update { $0.selectiveResendRequests += 1 }
                }
            }
        }
        selectiveResends = selectiveResends.filter { $0 < position }
        return position
    }

    /// Moves to the device's next packet (back after a loss, or forward past packets it already
    /// holds after a stale rewind).
    private func rewound(_ position: Int, to deviceNext: Int) -> Int {
        if deviceNext < position { log.update { $0.rewinds += 1 } }
        return deviceNext
    }

    /// Runs one call to the device, marking activity for the idle timeout when it completes.
    private func call<T>(_ body: () async throws(OTALinkError) -> T) async throws(Interruption) -> T {
        do throws(OTALinkError) {
            let value = try await body()
            log.recordActivity(at: clock.now)
            return value
        } catch {
            throw .link(error)
        }
    }

    private func report() {
        let elapsed = started.duration(to: clock.now)
        let fresh = furthestSent - (resumedBytes ?? 0)
        let sendingTime = sendingStarted.map { $0.duration(to: clock.now) } ?? .zero
        let seconds = Double(sendingTime.components.seconds) + Double(sendingTime.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(max(0, fresh)) / seconds : 0
        let remaining = image.size - furthestSent
        let eta: Duration? = rate > 0 ? .seconds(Double(remaining) / rate) : nil
        progress.yield(
            OTAProgress(
                phase: phase, totalBytes: image.size, bytesSent: furthestSent, bytesAcknowledged: acknowledgedBytes,
                bytesTransmitted: transmittedBytes, bytesPerSecond: rate, estimatedTimeRemaining: eta,
                elapsed: elapsed))
    }
}
