/// The values both ends of an OTA update agree on, independent of any device protocol: a device
/// protocol (the headset's, say) encodes them as its own messages, and the flash model on the
/// device side answers in them.

/// What the app announces when it starts (or resumes) an update.
public struct OTASessionParameters: Sendable, Hashable, Codable {
    /// Total image size in bytes.
    public var imageSize: Int
    /// The version as sent ("MAJOR.MINOR.PATCH"); the device checks its format.
    public var version: String
    /// SHA-256 of the whole image (32 bytes).
    public var sha256: [UInt8]
    /// Payload bytes in every packet but the last (fixed for the session, so packet N starts at
    /// byte N × packetSize even after a reconnect).
    public var packetSize: Int

    public init(imageSize: Int, version: String, sha256: [UInt8], packetSize: Int) {
        self.imageSize = imageSize
        self.version = version
        self.sha256 = sha256
        self.packetSize = packetSize
    }

    /// The parameters for sending `image` in packets of `packetSize` payload bytes.
    public init(image: FirmwareImage, packetSize: Int) {
        self.init(
            imageSize: image.size, version: image.version.description, sha256: image.sha256,
            packetSize: packetSize)
    }

    /// Number of packets (the last one may be short); 0 for a non-positive packet size.
    public var packetCount: Int {
        guard packetSize > 0, imageSize > 0 else { return 0 }
        return (imageSize - 1) / packetSize + 1
    }

    /// Packet numbers are 16-bit on the wire, and "next packet" must fit too.
    public static let maximumPacketCount = Int(UInt16.max)
}

/// One numbered packet of the image.
public struct OTAPacket: Sendable, Hashable {
    /// 0-based, 16-bit on the wire.
    public var number: UInt16
    public var payload: [UInt8]
    /// CRC-32 of `payload`.
    public var crc32: UInt32

    public init(number: UInt16, payload: [UInt8], crc32: UInt32) {
        self.number = number
        self.payload = payload
        self.crc32 = crc32
    }

    /// A packet with its CRC computed.
    public init(number: UInt16, payload: [UInt8]) {
        self.init(number: number, payload: payload, crc32: CRC32.checksum(payload))
    }
}

/// The device's answer to a start (or resume) request.
public enum OTAStartAnswer: Sendable, Hashable {
    /// In OTA mode; send from this packet (0 for a new session, more when resuming one with the
    /// same parameters).
    case ready(nextPacket: Int)
    /// The image with this digest is already the active one (a commit whose answer was lost).
    case alreadyInstalled
    /// Refused; the old image stays.
    case refused(OTARefusal)
}

/// Why a device refuses to start an update.
public enum OTARefusal: Error, Sendable, Hashable, CustomStringConvertible {
    case batteryTooLow(level: Int, minimum: Int)
    case imageTooLarge(size: Int, capacity: Int)
    case versionFormat(String)
    /// Size, digest length or packet size out of range.
    case invalidParameters(String)
    /// The device updates only over an authenticated (MITM-protected) link: pair first
    /// (Core 5.4 Vol 3 Part H §2.3.1).
    case authenticationRequired

    public var description: String {
        switch self {
        case .batteryTooLow(let level, let minimum): "battery too low (\(level) %, needs \(minimum) %)"
        case .imageTooLarge(let size, let capacity): "image of \(size) bytes exceeds the slot (\(capacity) bytes)"
        case .versionFormat(let text): "version \"\(text)\" is not MAJOR.MINOR.PATCH"
        case .invalidParameters(let reason): "invalid parameters: \(reason)"
        case .authenticationRequired: "the device updates only over an authenticated link (pair first)"
        }
    }
}

/// Where the device's staging stands.
public enum OTAStatus: Sendable, Hashable {
    /// No update under way.
    case idle
    /// Receiving: every packet before `nextPacket` is stored (`receivedBytes` bytes).
    case receiving(nextPacket: Int, receivedBytes: Int)
}

/// What the device makes of one packet.
public enum OTAPacketOutcome: Sendable, Hashable {
    /// Stored; the next expected packet is the one after.
    case stored
    /// Already stored (a resend after a rewind); ignored.
    case duplicate
    /// Bad CRC, bad length or out of order: nothing was written. `report` says whether the
    /// device tells the app (once per gap and sender pass, so a burst of out-of-order packets
    /// gives one report, not one per packet).
    case resendFrom(packet: Int, report: Bool)
    /// Selective repeat: verified and held in the reorder buffer until the packets before it
    /// arrive; `missing` names packets this one showed to be missing, to report one by one.
    case buffered(missing: [Int])
    /// Selective repeat: bad CRC or bad length, nothing kept; `missing` names the packets to
    /// report one by one (this one, unless already held, and any gap before it).
    case rejected(missing: [Int])
    /// No session is open (the device restarted without persistence, or the session ended).
    case noSession
}

extension OTAPacketOutcome {
    /// The reports the device sends the app for this outcome.
    public var reports: [OTADeviceReport] {
        switch self {
        case .resendFrom(let packet, report: true): [.resendFrom(packet: packet)]
        case .buffered(let missing), .rejected(let missing): missing.map { .resend(packet: $0) }
        case .stored, .duplicate, .resendFrom, .noSession: []
        }
    }
}

/// Unsolicited reports from the device during a transfer.
public enum OTADeviceReport: Sendable, Hashable {
    /// The first missing or bad packet: send again from here (go-back-N).
    case resendFrom(packet: Int)
    /// Selective repeat: this packet alone is missing or bad; the device holds verified packets
    /// after it, so the sender resends it and carries on with new ones.
    case resend(packet: Int)
}

/// The device's answer to a commit.
public enum OTACommitOutcome: Sendable, Hashable {
    /// Verified and swapped: this image is now the active one.
    case installed
    /// Not swapped; the old image stays active.
    case failed(OTACommitFailure)
}

/// Why a device refuses to swap.
public enum OTACommitFailure: Error, Sendable, Hashable, CustomStringConvertible {
    case noSession
    /// Fewer bytes staged than announced.
    case incomplete(receivedBytes: Int, expectedBytes: Int)
    /// The staged image's SHA-256 differs from the announced one; the staging is discarded.
    case digestMismatch
    /// The staged image could not be made active (flash write failed).
    case restartFailure

    public var description: String {
        switch self {
        case .noSession: "no update under way"
        case .incomplete(let received, let expected): "incomplete image (\(received) of \(expected) bytes)"
        case .digestMismatch: "the staged image's SHA-256 does not match"
        case .restartFailure: "the new image could not be activated"
        }
    }
}
