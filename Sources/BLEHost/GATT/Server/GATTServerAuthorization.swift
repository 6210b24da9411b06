import BLEWire

/// One access the application authorized, for the PDU being handled.
struct AccessGrant: Hashable, Sendable {
    var handle: UInt16
    var access: AttributeAccess
}

extension AttributeAccess {
    init(_ access: AttributeAccessRequest.Access) {
        switch access {
        case .read: self = .read
        case .write: self = .write
        }
    }

    var request: AttributeAccessRequest.Access {
        switch self {
        case .read: .read
        case .write: .write
        }
    }
}

/// Authorization asked of the application per access (Core 5.4 Vol 3 Part F §3.2.5: an
/// attribute may require authorization, which only a higher layer grants; refused, the access
/// gets Insufficient Authorization, §3.4.1.1). The host asks before handing the PDU over, so the
/// server stays synchronous: `authorizationsNeeded` lists the accesses to ask about, and
/// `handle(_:connection:attMTU:granting:)` handles the PDU with the answers.
extension GATTServer {
    /// The accesses of `pdu` that need the application's authorization: attributes it names
    /// that require authorization for that access, that the link's security already allows
    /// (a security error is answered first, without asking), on a connection not authorized as
    /// a whole (`setAuthorized`). Read By Type is not asked about (it names a range, not
    /// attributes): it meets Insufficient Authorization unless the connection is authorized.
    public func authorizationsNeeded(for pdu: ATTPDU, connection id: GATTConnectionID) -> [AttributeAccessRequest] {
        let state = connections[id] ?? GATTServerConnection(security: .none)
        guard !state.isAuthorized, !state.isOutOfSync else { return [] }
        let accesses: [(UInt16, AttributeAccess)]
        switch pdu {
        case .readRequest(let request): accesses = [(request.handle, .read)]
        case .readBlobRequest(let request): accesses = [(request.handle, .read)]
        case .readMultipleRequest(let request): accesses = request.setOfHandles.map { ($0, .read) }
        case .readMultipleVariableRequest(let request): accesses = request.setOfHandles.map { ($0, .read) }
        case .writeRequest(let request): accesses = [(request.handle, .write)]
        case .writeCommand(let command): accesses = [(command.handle, .write)]
        case .signedWriteCommand(let command): accesses = [(command.handle, .write)]
        case .prepareWriteRequest(let request): accesses = [(request.handle, .write)]
        default: return []
        }
        var seen = Set<AccessGrant>()
        return accesses.compactMap { handle, access in
            guard seen.insert(AccessGrant(handle: handle, access: access)).inserted,
                let attribute = database.attribute(at: handle)
            else { return nil }
            let permissions = effectivePermissions(attribute, access)
            guard permissions.permits(access), permissions.requiresAuthorization(for: access),
                state.security.error(
                    for: permissions.requirement(for: access), minimumKeySize: configuration.minimumEncryptionKeySize)
                    == nil
            else { return nil }
            return AttributeAccessRequest(
                connection: id.handle, attribute: reference(to: attribute), access: access.request)
        }
    }

    /// Handles `pdu` with the accesses in `granted` authorized for it alone.
    public mutating func handle(
        _ pdu: ATTPDU, connection id: GATTConnectionID, attMTU: Int, granting granted: [AttributeAccessRequest]
    ) -> GATTServerOutcome {
        guard !granted.isEmpty else { return handle(pdu, connection: id, attMTU: attMTU) }
        let index = connectionIndex(id)
        connections.values[index].grants = Set(
            granted.map { AccessGrant(handle: $0.attribute.handle, access: AttributeAccess($0.access)) })
        defer { connections[id]?.grants = [] }
        return handle(pdu, connection: id, attMTU: attMTU)
    }
}
