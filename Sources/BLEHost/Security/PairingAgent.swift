import BLEWire

/// The user's part in pairing (Core 5.4 Vol 3 Part H §2.3.5): the app shows or asks for what
/// the chosen method needs. Each call may take as long as a person does — within the SMP
/// timeout (30 s, §3.4), after which pairing fails anyway.
///
/// The default, `JustWorksPairingAgent`, accepts every pairing and every numeric comparison
/// and has no passkey: what a device with no display and no keyboard does.
public protocol PairingAgent: Sendable {
    /// A peer asks to pair (or this host is about to): false refuses with Pairing Not
    /// Supported (the user declined).
    func authorizePairing(_ request: PairingRequestInfo) async -> Bool
    /// Passkey Entry, this side displays (§2.3.5.3): show `passkey` (000000–999999).
    func displayPasskey(_ passkey: UInt32, for request: PairingRequestInfo) async
    /// Passkey Entry, this side inputs: the passkey the user typed, nil if they cancelled
    /// (Passkey Entry Failed).
    func requestPasskey(for request: PairingRequestInfo) async -> UInt32?
    /// Numeric Comparison (§2.3.5.6.2): whether the user confirms both devices show `value`
    /// (000000–999999); false fails with Numeric Comparison Failed.
    func confirmNumericComparison(_ value: UInt32, for request: PairingRequestInfo) async -> Bool
    /// Out of band data for the peer (§2.3.5.6.4, §2.3.5.4 legacy), nil when there is none.
    func outOfBandData(for request: PairingRequestInfo) async -> OutOfBandData?
    /// Whether a client may read or write an attribute that requires authorization (Core 5.4
    /// Vol 3 Part F §3.2.5); false answers it Insufficient Authorization.
    func authorizeAccess(_ request: AttributeAccessRequest) async -> Bool
}

/// What an agent is told about a pairing.
public struct PairingRequestInfo: Sendable, Hashable {
    public var connection: ConnectionHandle
    /// The peer's address on this link (a resolvable private address until its identity is
    /// distributed).
    public var peer: LEAddress
    /// The method the IO capabilities chose.
    public var method: PairingMethod
    /// Whether this host initiated (central sending Pairing Request).
    public var isInitiator: Bool

    public init(connection: ConnectionHandle, peer: LEAddress, method: PairingMethod, isInitiator: Bool) {
        self.connection = connection
        self.peer = peer
        self.method = method
        self.isInitiator = isInitiator
    }
}

/// The association model (Core 5.4 Vol 3 Part H §2.3.5.1, Tables 2.6–2.8).
public enum PairingMethod: Sendable, Hashable, CustomStringConvertible {
    case justWorks
    /// Passkey Entry; `displays` when this side shows the passkey and the peer types it.
    case passkeyEntry(displays: Bool)
    /// Numeric Comparison (LE Secure Connections only).
    case numericComparison
    case outOfBand

    public var description: String {
        switch self {
        case .justWorks: "Just Works"
        case .passkeyEntry(let displays): displays ? "Passkey Entry (display)" : "Passkey Entry (input)"
        case .numericComparison: "Numeric Comparison"
        case .outOfBand: "Out of Band"
        }
    }
}

/// Out of band pairing data (Core 5.4 Vol 3 Part H §2.3.5.6.4 for Secure Connections: the
/// peer's random r and confirm value Cr; §2.3.5.4 for legacy: a 128-bit TK).
public enum OutOfBandData: Sendable, Hashable {
    case secureConnections(random: SMPKey128, confirm: SMPKey128)
    case legacy(temporaryKey: SMPKey128)
}

/// Accepts everything, has no passkey and no OOB data: Just Works where the method allows it.
public struct JustWorksPairingAgent: PairingAgent {
    public init() {}
    public func authorizePairing(_ request: PairingRequestInfo) async -> Bool { true }
    public func displayPasskey(_ passkey: UInt32, for request: PairingRequestInfo) async {}
    public func requestPasskey(for request: PairingRequestInfo) async -> UInt32? { nil }
    public func confirmNumericComparison(_ value: UInt32, for request: PairingRequestInfo) async -> Bool { true }
    public func outOfBandData(for request: PairingRequestInfo) async -> OutOfBandData? { nil }
    public func authorizeAccess(_ request: AttributeAccessRequest) async -> Bool { true }
}
