import BLEWire

/// An access to an attribute that requires authorization (Core 5.4 Vol 3 Part F §3.2.5,
/// "Attribute Permissions": authorization is granted by the application, not by the link),
/// put to the application before the server answers it; refused, the client gets Insufficient
/// Authorization (0x08).
public struct AttributeAccessRequest: Hashable, Sendable {
    /// Whether the client reads or writes.
    public enum Access: Hashable, Sendable {
        case read
        case write
    }

    public var connection: ConnectionHandle
    /// The client's identity address as far as the host knows it (its address on the link
    /// until resolved); nil when the host does not know the link.
    public var peer: LEAddress?
    /// The characteristic value or descriptor accessed (the Client Characteristic
    /// Configuration for a subscription).
    public var attribute: GATTAttributeReference
    public var access: Access

    public init(connection: ConnectionHandle, peer: LEAddress? = nil, attribute: GATTAttributeReference, access: Access)
    {
        self.connection = connection
        self.peer = peer
        self.attribute = attribute
        self.access = access
    }
}

extension PairingAgent {
    /// Agents written before attribute authorization existed grant every access, as Just
    /// Works does.
    public func authorizeAccess(_ request: AttributeAccessRequest) async -> Bool { true }
}
