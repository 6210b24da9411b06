import BLEWire

/// How this host pairs, bonds and encrypts (Core 5.4 Vol 3 Part H §2.3, §3.5.1; Part C §10):
/// what it tells peers in its Pairing Request / Response, and what it accepts from them.
public struct SecurityPolicy: Sendable, Hashable {
    /// The IO capability announced in pairing (Part H §2.3.2); with the peer's it picks the
    /// method (§2.3.5.1). No input, no output: Just Works.
    public var ioCapability: SMP.IOCapability = .noInputNoOutput
    /// Keys are kept after pairing (Bonding_Flags 0b01, §3.5.1).
    public var bondable = true
    /// Pairing must be MITM-protected (an authenticated key, §2.3.1); a method that cannot
    /// protect fails with Authentication Requirements.
    public var requiresMITM = false
    /// LE Secure Connections only (Secure Connections Only mode, Part C §10.2.4): legacy
    /// pairing is refused with Authentication Requirements.
    public var secureConnectionsOnly = false
    /// LE legacy pairing (§2.3.5.2–§2.3.5.5) with a peer that lacks Secure Connections. Off by
    /// default for the central (as current phones), on for the peripheral (older phones).
    public var allowsLegacyPairingAsCentral = false
    public var allowsLegacyPairingAsPeripheral = true
    /// Encryption key sizes, in octets (§2.3.4: 7–16). The smaller of both sides' maxima is
    /// used; below `minimumKeySize` pairing fails with Encryption Key Size.
    public var minimumKeySize = 16
    public var maximumKeySize = 16
    /// Keys this host distributes and asks for (§3.6.1): its identity (IRK + identity address)
    /// and its signing key (CSRK) besides the LTK.
    public var distributesIdentity = true
    public var distributesSigningKey = true
    /// When a bonded peer answers encryption with PIN or Key Missing (0x06: it lost the bond),
    /// pair again (true) or only report it and leave the link unencrypted (false, the default:
    /// a peer that "forgot" is also what an impostor looks like).
    public var rePairsWhenPeerLostBond = false
    /// Repeated attempts (§2.3.6): after a failed pairing, a new one from the same peer is
    /// refused with Repeated Attempts until this interval has passed; it doubles with each
    /// failure, up to `maximumRepeatedAttemptsInterval`, and resets after a success.
    public var repeatedAttemptsInterval: Duration = .seconds(2)
    public var maximumRepeatedAttemptsInterval: Duration = .seconds(60)
    /// How long an SMP procedure may wait for the peer's next command (§3.4: 30 s). After a
    /// timeout no further SMP runs on that link until it reconnects.
    public var pairingTimeout: Duration = .seconds(30)
    /// This host's own resolvable private address (Vol 6 Part B §1.3.2.2), nil for none (the
    /// host keeps its public or static address).
    public var privacy: PrivacyPolicy?
    /// Peers' resolvable private addresses are resolved in the controller's resolving list
    /// when it has LL privacy (Vol 4 Part E §7.8.38, §7.8.44), else — or with false — by the
    /// host alone (Vol 6 Part B §1.3.2.3).
    public var resolvesInController = true

    public init() {}

    /// Just Works, bonding, Secure Connections preferred: the default of a phone.
    public static let `default` = SecurityPolicy()
}

/// Privacy of this host's own address (Core 5.4 Vol 6 Part B §1.3.2.2, Vol 3 Part C §10.7).
public struct PrivacyPolicy: Sendable, Hashable {
    /// How often a new resolvable private address is generated (15 minutes by default, as
    /// Vol 3 Part C Appendix A recommends).
    public var addressRenewal: Duration = .seconds(15 * 60)

    public init(addressRenewal: Duration = .seconds(15 * 60)) {
        self.addressRenewal = addressRenewal
    }
}
