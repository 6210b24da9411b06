import BLEWire

/// Why pairing or encryption did not give a link the security asked for.
public enum PairingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Pairing Failed (Core 5.4 Vol 3 Part H §3.5.5), sent by the peer (`byPeer`) or by this
    /// host.
    case failed(SMP.PairingFailedReason, byPeer: Bool)
    /// The peer did not answer within the SMP timeout (§3.4); no further SMP runs on the link.
    case timeout
    /// An earlier SMP timeout closed SMP on this link (§3.4).
    case securityManagerClosed
    /// The user (the pairing agent) declined.
    case declined
    /// Encryption failed with this HCI status (Encryption Change, Vol 4 Part E §7.7.8); PIN or
    /// Key Missing (0x06) means the peer lost its bond.
    case encryptionFailed(HCIStatus)
    /// The link went down first.
    case disconnected(HCIStatus)
    /// No such connection.
    case notConnected
    /// No bond with the peer holds a key to encrypt with.
    case notBonded
    /// The controller refused a command this needs.
    case controller(HCIStatus)

    public var description: String {
        switch self {
        case .failed(let reason, let byPeer): "pairing failed (\(reason))\(byPeer ? " by the peer" : "")"
        case .timeout: "pairing timed out (SMP timeout, 30 s)"
        case .securityManagerClosed: "SMP is closed on this link after a timeout"
        case .declined: "pairing declined"
        case .encryptionFailed(let status): "encryption failed: \(status)"
        case .disconnected(let reason): "disconnected: \(reason)"
        case .notConnected: "not connected"
        case .notBonded: "no bond with this peer"
        case .controller(let status): "the controller refused: \(status)"
        }
    }
}
