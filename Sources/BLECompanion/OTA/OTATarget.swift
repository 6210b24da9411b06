/// The device end of an OTA update as the engine sees it: a device protocol binding (the headset
/// protocol over a pair of characteristics, say) implements it; the engine knows nothing of
/// messages, characteristics or radios.
///
/// Every call may fail with an `OTALinkError`. A binding maps its own failures onto it: a
/// disconnection is `.linkLost` (the engine then calls `reconnect()` and resumes), a request the
/// device did not answer in time is `.timedOut` (the engine resumes on the same link), a task
/// cancelled mid-call is `.cancelled`.
public protocol OTATarget: Sendable {
    /// The largest firmware payload one packet can carry on the current link: ATT_MTU − 3 for a
    /// Write Command (Core 5.4 Vol 3 Part F §3.4.5.3) minus the device protocol's framing. Read
    /// at each (re)start of a session.
    func maximumPacketPayload() async throws(OTALinkError) -> Int

    /// Asks the device to enter OTA mode for these parameters. A device already staging the
    /// same parameters answers where to resume.
    func start(_ parameters: OTASessionParameters) async throws(OTALinkError) -> OTAStartAnswer

    /// Sends one packet without response (an ATT Write Command, Core 5.4 Vol 3 Part F §3.4.5.3,
    /// which has no acknowledgement: losses are found by the device's reports and `status()`).
    /// Flow control lives here: the call suspends until the link can take the packet (Core
    /// Bluetooth's `canSendWriteWithoutResponse`; the host's ACL credits, Core 5.4 Vol 4 Part E
    /// §4.1.1), so the engine never overruns the controller or the peer; it returns once the
    /// packet is queued.
    func send(_ packet: OTAPacket) async throws(OTALinkError)

    /// Asks where the device's staging stands (a round trip: it also acknowledges every packet
    /// before the next expected one).
    func status() async throws(OTALinkError) -> OTAStatus

    /// The CRC-32 of the first `packetCount` packets the device has staged, or nil when the
    /// device protocol has no such query. Used to check a resumed prefix before trusting it.
    func crc32OfStagedPackets(_ packetCount: Int) async throws(OTALinkError) -> UInt32?

    /// Asks the device to verify the staged image and swap slots; answers once it has.
    func commit() async throws(OTALinkError) -> OTACommitOutcome

    /// Abandons the update: the device drops its staging and keeps the old image.
    func abort() async throws(OTALinkError)

    /// Brings the link back after `.linkLost` (reconnect by identity, rediscover, resubscribe);
    /// throws when it cannot.
    func reconnect() async throws(OTALinkError)

    /// A new subscription to the device's unsolicited reports (resend requests), delivered
    /// across reconnections until the stream's reader stops. Each engine run takes one.
    func reportStream() -> AsyncStream<OTADeviceReport>
}

extension OTATarget {
    /// A target whose protocol has no prefix-CRC query.
    public func crc32OfStagedPackets(_ packetCount: Int) async throws(OTALinkError) -> UInt32? { nil }
}

/// How a call to the device failed.
public enum OTALinkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The link dropped (or the device restarted).
    case linkLost
    /// The device did not answer a request in time.
    case timedOut
    /// The device answered something the protocol does not allow here.
    case protocolViolation(String)
    /// The calling task was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .linkLost: "link lost"
        case .timedOut: "the device did not answer in time"
        case .protocolViolation(let what): "protocol violation: \(what)"
        case .cancelled: "cancelled"
        }
    }
}
