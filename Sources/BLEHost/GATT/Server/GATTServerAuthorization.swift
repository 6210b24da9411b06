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
    /// a whole (`setAuthorized`). For Read By Type, the first attribute of the type in the range
    /// is asked about.
    public func authorizationsNeeded(for pdu: ATTPDU, connection id: GATTConnectionID) -> [AttributeAccessRequest] {
        // Asked for every request and Write Command: the common cases allocate nothing.
        let index = connections.index(forKey: id)
        let security = index.map { connections.values[$0].security } ?? .none
        if let index, connections.values[index].isAuthorized || connections.values[index].isOutOfSync { return [] }
        switch pdu {
        case .readRequest(let request): return ask(request.handle, .read, id, security)
        case .readBlobRequest(let request): return ask(request.handle, .read, id, security)
        case .writeRequest(let request): return ask(request.handle, .write, id, security)
        case .writeCommand(let command): return ask(command.handle, .write, id, security)
        case .signedWriteCommand(let command): return ask(command.handle, .write, id, security)
        case .prepareWriteRequest(let request): return ask(request.handle, .write, id, security)
        case .readByTypeRequest(let request):
            // The first attribute of the type is the one answered or refused (Part F §3.4.4.1);
            // later ones needing authorization end the list.
            guard request.startingHandle != 0, request.startingHandle <= request.endingHandle,
                let first = database.attributes(in: request.startingHandle...request.endingHandle)
                    .first(where: { $0.type == request.attributeType })
            else { return [] }
            return ask(first.handle, .read, id, security)
        case .readMultipleRequest(let request): return ask(Array(request.setOfHandles), id, security)
        case .readMultipleVariableRequest(let request): return ask(Array(request.setOfHandles), id, security)
        default: return []
        }
    }

    private func ask(_ handles: [UInt16], _ id: GATTConnectionID, _ security: LinkSecurity)
        -> [AttributeAccessRequest]
    {
        var seen = Set<UInt16>()
        return handles.flatMap { handle in seen.insert(handle).inserted ? ask(handle, .read, id, security) : [] }
    }

    /// The request to put to the application for one access, if it needs one.
    private func ask(_ handle: UInt16, _ access: AttributeAccess, _ id: GATTConnectionID, _ security: LinkSecurity)
        -> [AttributeAccessRequest]
    {
        guard let attribute = database.attribute(at: handle) else { return [] }
        let permissions = effectivePermissions(attribute, access)
        guard permissions.requiresAuthorization(for: access), permissions.permits(access),
            security.error(
                for: permissions.requirement(for: access), minimumKeySize: configuration.minimumEncryptionKeySize)
                == nil
        else { return [] }
        return [
            AttributeAccessRequest(connection: id.handle, attribute: reference(to: attribute), access: access.request)
        ]
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
