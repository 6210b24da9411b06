import BLEWire

/// What a host keeps of a peer it paired with (Core 5.4 Vol 3 Part H §3.6.1, §2.4): the keys
/// each side distributed, how they were made, and the identity they belong to.
///
/// A bond is keyed by `(local, peer)` identity addresses: one host may bond with the same peer
/// under several identities of its own.
public struct Bond: Sendable, Hashable {
    /// This host's identity address when it bonded.
    public var local: LEAddress
    /// The peer's identity address (Identity Address Information, §3.6.4), or the address it
    /// paired from when it sent none.
    public var peer: LEAddress
    /// The key to encrypt with as central: the peer's distributed LTK with its EDIV and Rand
    /// (legacy), or the LE Secure Connections LTK (EDIV = Rand = 0).
    public var peerLongTermKey: LongTermKey?
    /// The key to answer LE Long Term Key Request with as peripheral: the LTK this host
    /// distributed (legacy) or the Secure Connections LTK.
    public var localLongTermKey: LongTermKey?
    /// The peer's Identity Resolving Key (§3.6.4), to resolve its private addresses.
    public var peerIRK: SMPKey128?
    /// The peer's Connection Signature Resolving Key (§3.6.6) and the highest SignCounter
    /// seen from it (Part H §2.4.5), for its Signed Write Commands.
    public var peerCSRK: SMPKey128?
    public var peerSignCounter: UInt32?
    /// This host's CSRK given to the peer and its next SignCounter.
    public var localCSRK: SMPKey128?
    public var localSignCounter: UInt32 = 0
    /// Whether the pairing was MITM-protected (an authenticated key).
    public var authenticated: Bool
    /// Whether the keys come from LE Secure Connections pairing.
    public var secureConnections: Bool
    /// The encryption key size (7–16 octets).
    public var keySize: Int
    /// What this host's GATT server keeps for the peer as a bonded client: its Client
    /// Characteristic Configurations (Core 5.4 Vol 3 Part G §3.3.3.3), features and change
    /// awareness.
    public var gattClientState: GATTBondedClientState?
    /// What this host's GATT client discovered of the peer's database, with the Database Hash
    /// read with it (Part G §2.5.2, §7.3): reused at reconnection while the hash matches.
    public var gattDatabase: GATTDatabaseCache?
    public var gattDatabaseHash: [UInt8]?

    public init(
        local: LEAddress, peer: LEAddress, peerLongTermKey: LongTermKey? = nil, localLongTermKey: LongTermKey? = nil,
        peerIRK: SMPKey128? = nil, peerCSRK: SMPKey128? = nil, peerSignCounter: UInt32? = nil,
        localCSRK: SMPKey128? = nil, localSignCounter: UInt32 = 0, authenticated: Bool, secureConnections: Bool,
        keySize: Int
    ) {
        self.local = local
        self.peer = peer
        self.peerLongTermKey = peerLongTermKey
        self.localLongTermKey = localLongTermKey
        self.peerIRK = peerIRK
        self.peerCSRK = peerCSRK
        self.peerSignCounter = peerSignCounter
        self.localCSRK = localCSRK
        self.localSignCounter = localSignCounter
        self.authenticated = authenticated
        self.secureConnections = secureConnections
        self.keySize = keySize
    }

    /// The link security encryption with this bond's keys gives.
    public var security: LinkSecurity {
        .encrypted(keySize: keySize, authenticated: authenticated, secureConnections: secureConnections)
    }
}

/// A Long Term Key with the EDIV and Rand that name it (Part H §3.6.2–§3.6.3; both 0 for LE
/// Secure Connections keys, §2.4.2.3).
public struct LongTermKey: Sendable, Hashable {
    public var key: SMPKey128
    public var ediv: UInt16
    public var rand: UInt64

    public init(key: SMPKey128, ediv: UInt16 = 0, rand: UInt64 = 0) {
        self.key = key
        self.ediv = ediv
        self.rand = rand
    }
}

/// Where a host keeps its bonds. Calls come from the host's executor; an implementation
/// must be quick (a file write is fine, a network round trip is not).
public protocol BondStore: Sendable {
    /// Every bond of this store, in a stable order.
    func bonds() throws(BondStoreError) -> [Bond]
    /// Adds or replaces the bond of `(bond.local, bond.peer)`.
    func save(_ bond: Bond) throws(BondStoreError)
    /// Removes the bond of `(local, peer)`; true when there was one.
    @discardableResult
    func remove(local: LEAddress, peer: LEAddress) throws(BondStoreError) -> Bool
    /// This host's own Identity Resolving Key (Core 5.4 Vol 3 Part H §2.4.2.1), kept with its
    /// bonds because peers hold it: a host that made a new one at each start would no longer
    /// be recognised behind its resolvable private addresses. nil until one is saved.
    func localIdentity() throws(BondStoreError) -> SMPKey128?
    /// Keeps this host's IRK (replacing any saved before).
    func saveLocalIdentity(_ irk: SMPKey128) throws(BondStoreError)
}

/// Why a bond store failed.
public enum BondStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened or created (path, permissions).
    case cannotOpen(path: String, reason: String)
    /// The file is not a bond store this version can read: damaged, not SQLite, or from a
    /// newer version.
    case damaged(path: String, reason: String)
    /// Reading or writing failed.
    case io(String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the bond store \(path): \(reason)"
        case .damaged(let path, let reason): "the bond store \(path) is damaged: \(reason)"
        case .io(let reason): "the bond store failed: \(reason)"
        }
    }
}
