/// What a host dropped or could not do, counted: each count goes with a log line at `.notice`
/// or `.warning` on the host's logger saying what and why. A healthy link keeps every count at
/// zero; a count that moves points at a peer, a controller or a transport worth a look.
public struct HostStatistics: Sendable, Equatable, Codable {
    /// HCI events from the controller that did not decode (Core 5.4 Vol 4 Part E §5.4.4).
    public var undecodableEvents = 0
    /// ACL data packets from the controller that did not decode (Vol 4 Part E §5.4.2).
    public var undecodableACL = 0
    /// Packets a controller does not send to a host (commands) or that this host does not
    /// take (SCO, ISO).
    public var unexpectedPackets = 0
    /// ACL packets for a handle with no connection, dropped after waiting for its LE
    /// Connection Complete.
    public var aclForUnknownHandle = 0
    /// Events about a connection handle the host does not know.
    public var eventsForUnknownHandle = 0
    /// LE Connection Complete events for a handle that is already a live connection (Core 5.4
    /// Vol 4 Part E §7.7.65.1: a handle names one connection until its Disconnection Complete).
    public var connectionCompletesForLiveHandles = 0
    /// ACL fragments L2CAP reassembly dropped (Vol 3 Part A §7.2).
    public var droppedL2CAPFragments = 0
    /// Whole L2CAP frames on a channel this host does not serve.
    public var framesOnUnservedChannels = 0
    /// LE signalling packets that did not decode or were not the receiver's to get
    /// (Vol 3 Part A §4).
    public var badL2CAPSignals = 0
    /// Credit based channels this host disconnected because the peer broke flow control: a
    /// K-frame without credit, over the MPS, an SDU over the MTU, credits over 65535 (Core 5.4
    /// Vol 3 Part A §3.4.3, §4.24). The link stays.
    public var l2capChannelViolations = 0
    /// Command Complete / Command Status events for no outstanding command.
    public var unexpectedCommandCompletes = 0
    /// Commands the controller did not answer within the command timeout.
    public var commandTimeouts = 0
    /// Commands the host sent on its own (replies, updates, disconnects) that failed.
    public var failedCommands = 0
    /// Data Buffer Overflow events: ACL packets the controller dropped although this host kept
    /// to its credits (Core 5.4 Vol 4 Part E §7.7.26) — a controller fault; the data is lost.
    public var controllerBufferOverflows = 0
    /// Packets the transport did not take.
    public var failedSends = 0
    /// ATT PDUs that need no answer (commands, notifications, indications) dropped because
    /// they did not decode or were longer than the ATT_MTU (Core 5.4 Vol 3 Part F §3.2.8).
    public var droppedATTPDUs = 0
    /// ATT responses our server built longer than the ATT_MTU, sent as Unlikely Error instead
    /// (Core 5.4 Vol 3 Part F §3.2.8; a server bug if it ever moves).
    public var oversizedResponses = 0
    /// Link procedures (LE Connection Update, LE Set PHY) whose completion event never came
    /// within the LL response timeout (Core 5.4 Vol 6 Part B §5.2).
    public var linkProcedureTimeouts = 0
    /// LE Long Term Key Requests answered negatively: no pairing in progress and no bond with
    /// the key's EDIV and Rand (Core 5.4 Vol 4 Part E §7.8.26).
    public var longTermKeyRequestsWithoutKey = 0
    /// Bond store reads or writes that failed (the bond is not kept).
    public var bondStoreFailures = 0
    /// Privacy commands the controller failed other than for being busy (LE Set Random
    /// Address, the resolving list); the host resolves by itself then.
    public var privacyCommandFailures = 0
    /// SMP PDUs that did not decode or carried a code this version does not know, answered
    /// with Pairing Failed (Core 5.4 Vol 3 Part H §3.3).
    public var undecodableSMPPDUs = 0
    /// SMP commands out of sequence or for the other role while no pairing expects them,
    /// answered with Pairing Failed (or dropped, for a Pairing Failed).
    public var unexpectedSMPCommands = 0
    /// SMP procedures that timed out (Vol 3 Part H §3.4).
    public var smpTimeouts = 0
    /// SMP PDUs dropped because an SMP timeout closed SMP on their link (§3.4).
    public var smpPDUsAfterTimeout = 0

    public init() {}
}
