import BLEWire

/// The GATT server (Core 5.4 Vol 3 Part G §4, over the Attribute Protocol of Part F §3): a
/// synchronous, transport-free state machine. The host's ATT bearer hands it every PDU a client
/// sent (`handle(_:connection:)`) and does what the `GATTServerOutcome` says: send a response,
/// ask the application (whose answer comes back through `complete(_:with:)`), apply a new MTU …
///
/// Per connection it keeps the ATT_MTU (its bearer's, given with each PDU by
/// `handle(_:connection:attMTU:)`; its own exchange's when run alone), the link security,
/// Client Characteristic Configurations, Client Supported Features, change awareness (Robust
/// Caching, §2.5.2.1), the prepare-write queue and the indications awaiting confirmation.
public struct GATTServer: Sendable {
    /// Server-wide settings.
    public struct Configuration: Hashable, Sendable {
        /// The Server Rx MTU sent in the Exchange MTU Response (Part F §3.4.2.2); at least 23.
        public var mtu: Int
        /// Prepared writes a client may queue before Prepare Queue Full (Part F §3.4.6.1).
        public var prepareQueueLimit: Int
        /// Encryption key size (octets) required where encryption is (Part F §3.4.4.3,
        /// Encryption Key Size Too Short). 7, the smallest SMP allows, accepts every key.
        public var minimumEncryptionKeySize: Int

        public init(mtu: Int = 247, prepareQueueLimit: Int = 64, minimumEncryptionKeySize: Int = 7) {
            self.mtu = max(mtu, ATTBearer.defaultMTU)
            self.prepareQueueLimit = max(prepareQueueLimit, 0)
            self.minimumEncryptionKeySize = minimumEncryptionKeySize
        }
    }

    public let configuration: Configuration
    public internal(set) var database: AttributeDatabase
    var connections: [GATTConnectionID: GATTServerConnection] = [:]
    var nextSerial: UInt64 = 1

    public init(database: AttributeDatabase, configuration: Configuration = .init()) {
        self.database = database
        self.configuration = configuration
    }

    // MARK: Connections

    /// Starts serving a client. A bonded client brings back its saved state: its
    /// configurations (kept only where the handle is still a Client Characteristic
    /// Configuration), features and change awareness — change-unaware when the Database Hash
    /// differs from the saved one (Part G §2.5.2.1). When such a client is change-unaware and has
    /// Service Changed indications enabled, the indication to send (range 0x0001–0xFFFF, §7.1)
    /// is returned.
    @discardableResult
    public mutating func connect(
        _ connection: GATTConnectionID, security: LinkSecurity = .none, bonded: GATTBondedClientState? = nil
    ) -> ATTPDU? {
        var state = GATTServerConnection(security: security)
        guard let bonded else {
            connections[connection] = state
            return nil
        }
        state.clientConfigurations = bonded.clientConfigurations.filter { handle, _ in
            database.attribute(at: handle)?.storage == .clientConfiguration
        }
        state.clientSupportedFeatures = bonded.clientSupportedFeatures
        let aware = bonded.isChangeAware && bonded.databaseHash == database.hash
        state.awareness = aware ? .changeAware : .changeUnaware(awaitingNextRequest: false)
        state.lastSignCounter = bonded.lastSignCounter
        connections[connection] = state
        guard !aware else { return nil }
        return serviceChangedIndication(range: 0x0001...0xFFFF, connection: connection)
    }

    /// Stops serving a client (the link is gone): its queue, pending request and unconfirmed
    /// indications are dropped (Part F §3.4.6.1). Returns what to keep if the client is bonded.
    @discardableResult
    public mutating func disconnect(_ connection: GATTConnectionID) -> GATTBondedClientState? {
        defer { connections[connection] = nil }
        return bondedState(for: connection)
    }

    /// The state to save for a bonded client now (after bonding, or at disconnection).
    public func bondedState(for connection: GATTConnectionID) -> GATTBondedClientState? {
        guard let state = connections[connection] else { return nil }
        let aware = if case .changeAware = state.awareness { true } else { false }
        return GATTBondedClientState(
            clientConfigurations: state.clientConfigurations.filter { $0.value != 0 },
            clientSupportedFeatures: state.clientSupportedFeatures, isChangeAware: aware,
            databaseHash: database.hash, lastSignCounter: state.lastSignCounter)
    }

    /// The link's security changed (encryption started, key refreshed).
    /// A connection not yet known starts with it (the host reports a link's security as the
    /// link comes up, before any PDU).
    public mutating func setSecurity(_ security: LinkSecurity, for connection: GATTConnectionID) {
        connections.values[connectionIndex(connection)].security = security
    }

    /// The application authorized (or stopped authorizing) a client for attributes that
    /// require authorization (Part F §3.2.5).
    public mutating func setAuthorized(_ authorized: Bool, for connection: GATTConnectionID) {
        connections[connection]?.isAuthorized = authorized
    }

    /// The client's signature key (CSRK, least significant octet first, as SMP distributes it)
    /// for verifying Signed Write Commands (Part H §2.4.5); `lastCounter` from a saved bond.
    public mutating func setSigningKey(
        _ csrk: [UInt8], authenticated: Bool, lastCounter: UInt32? = nil, for connection: GATTConnectionID
    ) {
        connections[connection]?.signingKey = SigningKey(csrk: csrk, authenticated: authenticated)
        if let lastCounter { connections[connection]?.lastSignCounter = lastCounter }
    }

    /// The ATT_MTU in use with a client (23 until exchanged, or for an unknown connection).
    public func mtu(for connection: GATTConnectionID) -> Int { connections[connection]?.mtu ?? ATTBearer.defaultMTU }

    /// The connected clients, in order.
    public var connectedClients: [GATTConnectionID] { connections.keys.sorted() }

    // MARK: Handling PDUs

    /// Handles one PDU a client sent (Core 5.4 Vol 3 Part F §3.3–§3.4). A connection not
    /// yet known is served with default state. A request arriving while the application still
    /// owes an answer replaces the older one (ATT requests are sequential, §3.3.2; a client that
    /// pipelines breaks the protocol, which the bearer polices).
    public mutating func handle(_ pdu: ATTPDU, connection id: GATTConnectionID) -> GATTServerOutcome {
        let index = connectionIndex(id)
        switch pdu.kind {
        case .request:
            connections.values[index].pending = nil
            if let outOfSync = robustCachingCheck(pdu, id) { return outOfSync }
        case .command:
            // Part G §2.5.2.1: a change-unaware client's commands are ignored.
            if connections.values[index].isOutOfSync { return .none }
        case .confirmation:
            return confirmation(id)
        case .response, .notification, .indication:
            // The client role's PDUs: not for the server.
            return .none
        }
        switch pdu {
        case .exchangeMTURequest(let request): return exchangeMTU(request, id)
        case .findInformationRequest(let request): return findInformation(request, id)
        case .findByTypeValueRequest(let request): return findByTypeValue(request, id)
        case .readByTypeRequest(let request): return readByType(request, id)
        case .readByGroupTypeRequest(let request): return readByGroupType(request, id)
        case .readRequest(let request): return read(request, id)
        case .readBlobRequest(let request): return readBlob(request, id)
        case .readMultipleRequest(let request): return readMultiple(Array(request.setOfHandles), variable: false, id)
        case .readMultipleVariableRequest(let request):
            return readMultiple(Array(request.setOfHandles), variable: true, id)
        case .writeRequest(let request): return write(request, id)
        case .writeCommand(let command): return writeCommand(command.handle, command.value, signed: false, id)
        case .signedWriteCommand(let command): return signedWrite(command, id)
        case .prepareWriteRequest(let request): return prepareWrite(request, id)
        case .executeWriteRequest(let request): return executeWrite(request, id)
        default:
            // §3.3: an unsupported request gets Request Not Supported, an unsupported command
            // is ignored.
            switch pdu.opcode.unsupportedAction {
            case .respondRequestNotSupported: return errorResponse(pdu.opcode, 0, .requestNotSupported)
            case .ignore: return .none
            }
        }
    }

    /// Handles one PDU on a bearer whose ATT_MTU is `attMTU`: the bearer owns the ATT_MTU
    /// (Part F §3.4.2), the server sizes its answers by it.
    public mutating func handle(_ pdu: ATTPDU, connection id: GATTConnectionID, attMTU: Int) -> GATTServerOutcome {
        connections.values[connectionIndex(id)].mtu = max(attMTU, ATTBearer.defaultMTU)
        return handle(pdu, connection: id)
    }

    /// The connection's state, made with defaults the first time. Its state is changed through
    /// `connections.values[index]`, in place: `connections[id]?.x = …` moves the whole value
    /// out into an optional and back, in an accessor frame that for a value this size is
    /// heap-allocated, on every PDU.
    mutating func connectionIndex(_ id: GATTConnectionID) -> [GATTConnectionID: GATTServerConnection].Index {
        if let index = connections.index(forKey: id) { return index }
        connections[id] = GATTServerConnection(security: .none)
        return connections.index(forKey: id)!
    }

    /// Handles a PDU as received, decoding it first. A PDU that does not decode, or is longer
    /// than the ATT_MTU, goes to `handleUndecodable(opcode:connection:)`.
    public mutating func handle(bytes: ArraySlice<UInt8>, connection id: GATTConnectionID) -> GATTServerOutcome {
        guard let (opcode, _) = ATTPDU.peek(bytes) else { return .none }
        guard bytes.count <= mtu(for: id), let pdu = try? ATTPDU(decoding: bytes) else {
            return handleUndecodable(opcode: opcode, connection: id)
        }
        return handle(pdu, connection: id)
    }

    public mutating func handle(bytes: [UInt8], connection id: GATTConnectionID) -> GATTServerOutcome {
        handle(bytes: bytes[...], connection: id)
    }

    /// Answers a PDU that did not decode (wrong length, reserved field value): a request gets
    /// Invalid PDU with handle 0x0000 (Core 5.4 Vol 3 Part F §3.3) — or Request Not Supported
    /// when its opcode is unknown —, anything else is dropped.
    public mutating func handleUndecodable(opcode: ATTOpcode, connection id: GATTConnectionID) -> GATTServerOutcome {
        guard opcode.kind == .request else { return .none }
        if connections[id] == nil { connections[id] = GATTServerConnection(security: .none) }
        connections[id]?.pending = nil
        return errorResponse(opcode, 0, opcode.isKnown ? .invalidPDU : .requestNotSupported)
    }

    // MARK: MTU

    /// Exchange MTU (Part F §3.4.2): ATT_MTU = min(Client Rx MTU, Server Rx MTU), never below
    /// the default 23. The client sends it once per connection (§3.4.2.1); a repeated request is
    /// answered with the same Server Rx MTU but leaves ATT_MTU as it is.
    mutating func exchangeMTU(_ request: ATT.ExchangeMTURequest, _ id: GATTConnectionID) -> GATTServerOutcome {
        let response = ATT.ExchangeMTUResponse(serverRxMTU: UInt16(clamping: configuration.mtu)).pdu
        guard connections[id]?.mtuExchanged == false else { return .respond(response) }
        let mtu = ATTBearer.exchangedMTU(clientRxMTU: Int(request.clientRxMTU), serverRxMTU: configuration.mtu)
        connections[id]?.mtu = mtu
        connections[id]?.mtuExchanged = true
        return .mtuExchanged(response: response, mtu: mtu)
    }

    // MARK: Robust Caching

    /// Part G §2.5.2.1: a change-unaware client that asked for Robust Caching gets Database
    /// Out Of Sync, once, for a request naming attribute handles — every request but Exchange
    /// MTU, Find Information, Find By Type Value and Read By Group Type (Part F §3.4.3.1,
    /// §3.4.3.3, §3.4.4.9 forbid it), and Read By Type only when it asks for a type other than
    /// «Include» or «Characteristic» over a range other than 0x0001–0xFFFF. The request after
    /// that error, or after reading the Database Hash, makes the client change-aware.
    mutating func robustCachingCheck(_ pdu: ATTPDU, _ id: GATTConnectionID) -> GATTServerOutcome? {
        guard let state = connections[id], case .changeUnaware(let awaitingNextRequest) = state.awareness else {
            return nil
        }
        if awaitingNextRequest {
            connections[id]?.awareness = .changeAware
            return nil
        }
        guard state.robustCaching else { return nil }
        let handle: UInt16
        switch pdu {
        case .readByTypeRequest(let request):
            let type = request.attributeType
            guard type != GATTAttributeType.include, type != GATTAttributeType.characteristic,
                request.startingHandle != 0x0001 || request.endingHandle != 0xFFFF
            else { return nil }
            handle = request.startingHandle
        case .readRequest(let request): handle = request.handle
        case .readBlobRequest(let request): handle = request.handle
        case .readMultipleRequest(let request): handle = request.setOfHandles.first ?? 0
        case .readMultipleVariableRequest(let request): handle = request.setOfHandles.first ?? 0
        case .writeRequest(let request): handle = request.handle
        case .prepareWriteRequest(let request): handle = request.handle
        case .executeWriteRequest:
            // §3.4.6.3: the queue is cleared and the error names a queued attribute.
            handle = state.prepareQueue.first?.handle ?? 0
            connections[id]?.prepareQueue = []
        default: return nil
        }
        connections[id]?.awareness = .changeUnaware(awaitingNextRequest: true)
        return errorResponse(pdu.opcode, handle, .databaseOutOfSync)
    }

    // MARK: Helpers

    func errorResponse(_ opcode: ATTOpcode, _ handle: UInt16, _ code: ATTErrorCode) -> GATTServerOutcome {
        .respond(ATT.ErrorResponse(requestOpcode: opcode, handle: handle, errorCode: code).pdu)
    }

    mutating func takeSerial() -> UInt64 {
        defer { nextSerial &+= 1 }
        return nextSerial
    }

    /// The error an access meets (Part F §3.4.4.3 …; Part C §10.3), nil when allowed. A Client
    /// Characteristic Configuration is readable and writable by anyone, but writing it
    /// (subscribing) needs the security and authorization that reading its value needs.
    func accessError(_ attribute: ServerAttribute, _ access: AttributeAccess, _ state: GATTServerConnection)
        -> ATTErrorCode?
    {
        let permissions = effectivePermissions(attribute, access)
        guard permissions.permits(access) else { return access == .read ? .readNotPermitted : .writeNotPermitted }
        let requirement = permissions.requirement(for: access)
        if let error = state.security.error(for: requirement, minimumKeySize: configuration.minimumEncryptionKeySize) {
            return error
        }
        if permissions.requiresAuthorization(for: access), !state.isAuthorized,
            !state.grants.contains(AccessGrant(handle: attribute.handle, access: access))
        {
            return .insufficientAuthorization
        }
        return nil
    }

    /// The attribute's permissions for `access`, with what a subscription adds: writing a
    /// Client Characteristic Configuration needs the security and authorization reading its
    /// value needs, and encryption when the characteristic declares `notifyEncryptionRequired`
    /// or `indicateEncryptionRequired` (Core Bluetooth's "only trusted devices can enable").
    func effectivePermissions(_ attribute: ServerAttribute, _ access: AttributeAccess) -> AttributePermissions {
        var permissions = attribute.permissions
        if attribute.storage == .clientConfiguration, access == .write,
            case .descriptor(let valueHandle) = attribute.role,
            let value = database.attribute(at: valueHandle)
        {
            switch value.permissions.requirement(for: .read) {
            case .authentication: permissions.insert(.writeAuthenticationRequired)
            case .encryption: permissions.insert(.writeEncryptionRequired)
            case .none: break
            }
            if value.permissions.requiresAuthorization(for: .read) { permissions.insert(.writeAuthorizationRequired) }
            if case .characteristicValue(let properties, _, _) = value.role,
                !properties.isDisjoint(with: [.notifyEncryptionRequired, .indicateEncryptionRequired])
            {
                permissions.insert(.writeEncryptionRequired)
            }
        }
        return permissions
    }

    /// The value the server can give without the application; nil for a dynamic value.
    func storedValue(_ attribute: ServerAttribute, _ state: GATTServerConnection) -> [UInt8]? {
        switch attribute.storage {
        case .value(let value): return value
        case .dynamic: return nil
        case .clientConfiguration:
            let value = state.configuration(attribute.handle)
            return [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
        case .clientSupportedFeatures: return state.clientSupportedFeatures
        case .databaseHash: return database.hash
        }
    }

    /// The reference the application sees for an application attribute.
    func reference(to attribute: ServerAttribute) -> GATTAttributeReference {
        let service = database.attribute(at: attribute.serviceHandle)
        var serviceUUID = service?.type ?? GATTAttributeType.primaryService
        if case .value(let bytes) = service?.storage, let uuid = try? BluetoothUUID(decodingLittleEndian: bytes[...]) {
            serviceUUID = uuid
        }
        switch attribute.role {
        case .descriptor(let valueHandle):
            return GATTAttributeReference(
                handle: attribute.handle, serviceUUID: serviceUUID, serviceHandle: attribute.serviceHandle,
                characteristicUUID: database.attribute(at: valueHandle)?.type ?? attribute.type,
                characteristicValueHandle: valueHandle, descriptorUUID: attribute.type)
        case .service, .include, .characteristic, .characteristicValue:
            return GATTAttributeReference(
                handle: attribute.handle, serviceUUID: serviceUUID, serviceHandle: attribute.serviceHandle,
                characteristicUUID: attribute.type, characteristicValueHandle: attribute.handle, descriptorUUID: nil)
        }
    }
}
