import BLEWire

/// The host's privacy state (Core 5.4 Vol 6 Part B §1.3.2.2–§1.3.2.3, Vol 3 Part C §10.7):
/// its own resolvable private address and when to renew it, and what it knows to resolve its
/// bonded peers' addresses. Plain state: `Host+Privacy` and `Host+AddressResolution` act on it.
struct HostPrivacy {
    /// The resolvable private address this host uses on air now; nil when the policy asks for
    /// no privacy (or before start).
    var address: LEAddress?
    /// When the address is to be renewed (time since the host was made).
    var renewalDue: Duration?
    /// The renewal period passed but the controller refused the new address (legacy
    /// advertising, scanning or initiating used the old one, Vol 4 Part E §7.8.4): it is set
    /// before the next of them starts (`prepareOwnAddress`).
    var renewalPending = false
    /// Sleeps until `renewalDue`.
    var timer: Task<Void, Never>?
    /// Extended advertising sets that advertise from this host's private address (each has its
    /// own random address, §7.8.52), renewed with it.
    var advertisingSets: Set<UInt8> = []
    /// The bonded peers' identities with their IRKs, read from the bond store at start and
    /// whenever the host saves or removes a bond (`reloadPeerIdentities`).
    var peerIRKs: [(identity: LEAddress, irk: SMPKey128)] = []
    /// Whether the controller resolves peers' addresses: address resolution is enabled (Vol 4
    /// Part E §7.8.44) over a resolving list holding `resolvingList`.
    var controllerResolves = false
    /// The identities in the controller's resolving list (§7.8.38).
    var resolvingList: Set<LEAddress> = []
    /// The resolving list could not be brought up to date (the controller refuses changes
    /// while advertising, scanning or initiating, §7.8.38): tried again before the next of them.
    var resolvingListStale = false
    /// The private address each bonded identity the host resolved by itself was last seen at:
    /// a controller that does not resolve must be given it to connect.
    var lastSeen: [LEAddress: LEAddress] = [:]
}
