/// How the engine runs a transfer.
public struct OTAConfiguration: Sendable, Hashable {
    /// Ask the device's status every this many packets (windowed acknowledgements), so a loss is
    /// found within a window even when the device's resend report is lost too; nil asks only
    /// once everything is sent.
    public var acknowledgementWindow: Int?
    /// A cap on the payload per packet below what the link allows (nil: the link's maximum).
    public var maximumPacketSize: Int?
    /// Fail when no call to the device has completed for this long.
    public var idleTimeout: Duration
    /// Fail when the whole update takes longer than this (nil: no limit).
    public var overallTimeout: Duration?
    /// Link losses, unanswered requests and lost sessions survived before giving up.
    public var maximumRecoveries: Int
    /// Give up when the packets sent in one run exceed this many times the image's packet count
    /// (a device that keeps rejecting packets would otherwise be fed forever).
    public var maximumTransmissionFactor: Int
    /// On resume, ask the device for the CRC-32 of what it holds and start over when it differs
    /// (only when the target supports the query).
    public var verifiesResumedPrefix: Bool

    public init(
        acknowledgementWindow: Int? = nil, maximumPacketSize: Int? = nil, idleTimeout: Duration = .seconds(30),
        overallTimeout: Duration? = .seconds(1800), maximumRecoveries: Int = 8, maximumTransmissionFactor: Int = 10,
        verifiesResumedPrefix: Bool = true
    ) {
        self.acknowledgementWindow = acknowledgementWindow
        self.maximumPacketSize = maximumPacketSize
        self.idleTimeout = idleTimeout
        self.overallTimeout = overallTimeout
        self.maximumRecoveries = maximumRecoveries
        self.maximumTransmissionFactor = maximumTransmissionFactor
        self.verifiesResumedPrefix = verifiesResumedPrefix
    }
}

/// What the engine is doing.
public enum OTAPhase: Sendable, Hashable {
    case starting
    case verifyingPrefix
    case sending
    case committing
    case recovering
}

/// One progress report.
public struct OTAProgress: Sendable, Hashable {
    public var phase: OTAPhase
    public var totalBytes: Int
    /// The end of the furthest packet sent so far.
    public var bytesSent: Int
    /// Bytes the device has confirmed (at start/resume and at each status answer).
    public var bytesAcknowledged: Int
    /// Payload bytes put on the link, resends included.
    public var bytesTransmitted: Int
    /// New image bytes per second of clock time since this run started sending.
    public var bytesPerSecond: Double
    /// Time left at the current rate (nil until there is a rate).
    public var estimatedTimeRemaining: Duration?
    public var elapsed: Duration
}

/// Figures of one run.
public struct OTASummary: Sendable, Hashable {
    public var imageSize: Int = 0
    public var packetSize: Int = 0
    public var packetCount: Int = 0
    /// Packets put on the link, resends included.
    public var packetsSent: Int = 0
    /// Packets sent again (after a rewind, or one by one on a selective report).
    public var packetsResent: Int = 0
    public var bytesTransmitted: Int = 0
    /// The packet the device first said to start from (more than 0 when this run resumed).
    public var resumedFromPacket: Int?
    /// Rewinds on a resend report or a status answer.
    public var rewinds: Int = 0
    /// Selective resend reports acted on (one packet each, no rewind).
    public var selectiveResendRequests: Int = 0
    /// Link losses, timeouts and lost sessions recovered from.
    public var recoveries: Int = 0
    /// Resumed prefixes whose CRC did not match (restarted from 0).
    public var prefixMismatches: Int = 0
    /// The device already ran this image (a commit whose answer was lost).
    public var alreadyInstalled: Bool = false
    public var elapsed: Duration = .zero

    public init() {}
}

/// Why an update failed. The device keeps its old image in every case.
public enum OTAFailure: Error, Sendable, Hashable, CustomStringConvertible {
    case refused(OTARefusal)
    case commitFailed(OTACommitFailure)
    /// Too many link losses, timeouts or lost sessions; the last one.
    case recoveryLimit(last: OTALinkError, recoveries: Int)
    /// The device rejected so many packets that the run sent this many without finishing.
    case transmissionLimit(packetsSent: Int)
    case idleTimeout(Duration)
    case overallTimeout(Duration)
    case aborted
    case cancelled
    /// The link's payload is too small for a packet.
    case payloadTooSmall(Int)
    /// More packets than a 16-bit number can name.
    case imageTooLarge(packetCount: Int, maximum: Int)
    /// The device answered something impossible (a packet number past the end, say).
    case protocolViolation(String)

    public var description: String {
        switch self {
        case .refused(let refusal): "the device refused: \(refusal)"
        case .commitFailed(let failure): "the device did not install the image: \(failure)"
        case .recoveryLimit(let last, let count): "gave up after \(count) recoveries (last: \(last))"
        case .transmissionLimit(let sent): "gave up after sending \(sent) packets"
        case .idleTimeout(let limit): "no answer from the device for \(limit)"
        case .overallTimeout(let limit): "the update took longer than \(limit)"
        case .aborted: "aborted"
        case .cancelled: "cancelled"
        case .payloadTooSmall(let size): "packet payload of \(size) bytes is too small"
        case .imageTooLarge(let count, let maximum): "\(count) packets exceed the \(maximum) a 16-bit number names"
        case .protocolViolation(let what): "protocol violation: \(what)"
        }
    }
}

/// The end of a run.
public enum OTAOutcome: Sendable, Hashable {
    case succeeded(OTASummary)
    case failed(OTAFailure, OTASummary)

    public var summary: OTASummary {
        switch self {
        case .succeeded(let summary), .failed(_, let summary): summary
        }
    }

    public var failure: OTAFailure? {
        if case .failed(let failure, _) = self { return failure }
        return nil
    }
}
