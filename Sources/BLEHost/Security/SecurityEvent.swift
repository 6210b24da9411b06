import BLEWire

/// What the security manager of a link reports (`HostEvent.security`).
public enum SecurityEvent: Sendable, Hashable {
    /// Encryption started, its key was refreshed, or it stopped: the link's security now.
    case changed(LinkSecurity)
    /// Pairing began with this method (after the feature exchange).
    case pairingStarted(PairingMethod)
    /// Pairing completed; `bond` is what was stored (nil when either side did not bond).
    case paired(bond: Bond?)
    case pairingFailed(PairingError)
    /// A bonded peer answered encryption with PIN or Key Missing (0x06): it lost our bond
    /// (Core 5.4 Vol 3 Part C §10.3.2; the policy decides whether to pair again).
    case peerLostBond(peer: LEAddress)
    /// The peer's identity address is known (from its IRK or Identity Address Information).
    case identityResolved(LEAddress)
}
