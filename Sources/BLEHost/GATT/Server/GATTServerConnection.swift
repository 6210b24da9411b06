import BLEWire

/// Whether the server considers a client aware of the current database (Core 5.4 Vol 3 Part G
/// §2.5.2.1, Robust Caching).
enum ChangeAwareness: Hashable, Sendable {
    case changeAware
    /// Change-unaware. `awaitingNextRequest`: the client was sent Database Out Of Sync, or read
    /// the Database Hash, so its next request makes it change-aware.
    case changeUnaware(awaitingNextRequest: Bool)
}

/// A peer's signature key for Signed Write Commands (Core 5.4 Vol 3 Part H §2.4.5).
struct SigningKey: Hashable, Sendable {
    /// The CSRK as SMP carries it (Signing Information, Part H §3.6.6): least significant first.
    var csrk: [UInt8]
    /// Distributed during an authenticated (MITM-protected) pairing.
    var authenticated: Bool
}

/// One Prepare Write Request waiting in a client's queue (Part F §3.4.6.1).
struct PreparedWrite: Hashable, Sendable {
    var handle: UInt16
    var offset: Int
    var value: [UInt8]
}

/// A request waiting for the application's answer. One at most per connection: ATT requests
/// are sequential (Part F §3.3.2).
enum PendingRequest: Hashable, Sendable {
    /// Read or Read Blob of a dynamic value.
    case read(serial: UInt64, opcode: ATTOpcode, handle: UInt16)
    /// The first value of a Read By Type response.
    case readByType(serial: UInt64, handle: UInt16)
    /// Read Multiple (Variable): values gathered so far, waiting for the one at `handles[count]`.
    case readMultiple(serial: UInt64, variable: Bool, handles: [UInt16], values: [[UInt8]])
    /// A Write Request.
    case write(serial: UInt64, handle: UInt16, value: [UInt8])
    /// An Execute Write Request: the new stored values to keep once the application agrees.
    case executeWrite(serial: UInt64, firstHandle: UInt16, storedValues: [UInt16: [UInt8]])

    var serial: UInt64 {
        switch self {
        case .read(let serial, _, _), .readByType(let serial, _), .readMultiple(let serial, _, _, _),
            .write(let serial, _, _), .executeWrite(let serial, _, _):
            serial
        }
    }
}

/// What the server keeps for a bonded client between connections (Core 5.4 Vol 3 Part G
/// §3.3.3.3 configurations persist for bonded clients; §7.2 Client Supported Features too;
/// §2.5.2.1 change awareness carries over). The host stores it with the bond.
public struct GATTBondedClientState: Hashable, Sendable {
    /// Client Characteristic Configuration values by descriptor handle.
    public var clientConfigurations: [UInt16: UInt16]
    public var clientSupportedFeatures: [UInt8]
    public var isChangeAware: Bool
    /// The Database Hash when this state was taken: a different hash at reconnection means the
    /// database changed meanwhile, and the client is change-unaware.
    public var databaseHash: [UInt8]
    /// The last SignCounter accepted from the client's Signed Write Commands.
    public var lastSignCounter: UInt32?

    public init(
        clientConfigurations: [UInt16: UInt16] = [:], clientSupportedFeatures: [UInt8] = [], isChangeAware: Bool = true,
        databaseHash: [UInt8] = [], lastSignCounter: UInt32? = nil
    ) {
        self.clientConfigurations = clientConfigurations
        self.clientSupportedFeatures = clientSupportedFeatures
        self.isChangeAware = isChangeAware
        self.databaseHash = databaseHash
        self.lastSignCounter = lastSignCounter
    }
}

/// The server's state for one connected client.
struct GATTServerConnection: Sendable {
    /// ATT_MTU (Part F §3.2.8): 23 until exchanged.
    var mtu = ATTBearer.defaultMTU
    var mtuExchanged = false
    var security: LinkSecurity
    /// Granted by the application for attributes that require authorization.
    var isAuthorized = false
    /// Accesses the application authorized for the PDU being handled only (asked per access,
    /// `GATTServer.authorizationsNeeded(for:connection:)`).
    var grants: Set<AccessGrant> = []
    /// Client Characteristic Configuration values by descriptor handle (absent: 0x0000).
    var clientConfigurations: [UInt16: UInt16] = [:]
    /// Client Supported Features (Part G §7.2), as written.
    var clientSupportedFeatures: [UInt8] = []
    var awareness = ChangeAwareness.changeAware
    var prepareQueue: [PreparedWrite] = []
    var pending: PendingRequest?
    /// Value handles of indications sent and not yet confirmed, oldest first.
    var unconfirmedIndications: [UInt16] = []
    var signingKey: SigningKey?
    /// The last SignCounter accepted (replay protection, Part H §2.4.5), nil before the first.
    var lastSignCounter: UInt32?

    init(security: LinkSecurity) { self.security = security }

    /// Robust Caching bit (Part G §7.2 Table 7.6, octet 0 bit 0).
    var robustCaching: Bool { (clientSupportedFeatures.first ?? 0) & 0x01 != 0 }

    /// Change-unaware with Robust Caching on: requests get Database Out Of Sync, commands are
    /// dropped, notifications are withheld (Part G §2.5.2.1).
    var isOutOfSync: Bool {
        guard robustCaching, case .changeUnaware = awareness else { return false }
        return true
    }

    func configuration(_ handle: UInt16) -> UInt16 { clientConfigurations[handle] ?? 0 }
}
