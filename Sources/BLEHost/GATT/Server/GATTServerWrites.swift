import BLEWire

/// Writes (Core 5.4 Vol 3 Part F §3.4.5): Write Request, Write Command, Signed Write Command,
/// and the attributes the server keeps itself — Client Characteristic Configuration (Part G
/// §3.3.3.3) and Client Supported Features (Part G §7.2).
extension GATTServer {
    /// Write Request (Part F §3.4.5.1): checks, then the application decides (Core Bluetooth's
    /// `didReceiveWrite`); configurations the server keeps are answered at once.
    mutating func write(_ request: ATT.WriteRequest, _ id: GATTConnectionID) -> GATTServerOutcome {
        let opcode = ATTOpcode.writeRequest
        guard let state = connections[id] else { return .none }
        guard let index = database.index(of: request.handle) else {
            return errorResponse(opcode, request.handle, .invalidHandle)
        }
        let attribute = database.attributes[index]
        if let error = accessError(attribute, .write, state) { return errorResponse(opcode, attribute.handle, error) }
        guard request.value.count <= AttributeDatabase.maximumValueLength else {
            return errorResponse(opcode, attribute.handle, .invalidAttributeValueLength)
        }
        let value = Array(request.value)
        switch attribute.storage {
        case .clientConfiguration:
            return writeClientConfiguration(attribute, value, respond: true, id)
        case .clientSupportedFeatures:
            if let error = writeClientSupportedFeatures(value, id) {
                return errorResponse(opcode, attribute.handle, error)
            }
            return .respond(ATT.WriteResponse().pdu)
        case .databaseHash:
            return errorResponse(opcode, attribute.handle, .writeNotPermitted)
        case .value, .dynamic:
            guard attribute.isApplicationOwned else {
                return errorResponse(opcode, attribute.handle, .writeNotPermitted)
            }
            let serial = takeSerial()
            connections[id]?.pending = .write(serial: serial, handle: attribute.handle, value: value)
            let write = GATTWrite(attribute: reference(to: attribute), offset: 0, value: value)
            return .write(
                GATTWriteRequest(token: GATTRequestToken(connection: id, serial: serial), kind: .write, writes: [write])
            )
        }
    }

    /// Write Command (Part F §3.4.5.3): never answered; a write the server cannot do is
    /// dropped. A characteristic value must declare `writeWithoutResponse`. A stored value
    /// takes the new value at once, and the application is told.
    mutating func writeCommand(
        _ handle: UInt16, _ bytes: ArraySlice<UInt8>, signed: Bool, _ id: GATTConnectionID,
        security: LinkSecurity? = nil
    ) -> GATTServerOutcome {
        guard var state = connections[id], let index = database.index(of: handle) else { return .none }
        if let security { state.security = security }
        let attribute = database.attributes[index]
        guard accessError(attribute, .write, state) == nil, bytes.count <= AttributeDatabase.maximumValueLength else {
            return .none
        }
        switch attribute.role {
        case .characteristicValue(let properties, _, _):
            // An encrypted link carries what would be signed as a plain Write Command (Part G
            // §4.9.2), so a value with `authenticatedSignedWrites` takes one there.
            var needed: CharacteristicProperties = signed ? .authenticatedSignedWrites : .writeWithoutResponse
            if !signed, state.security.isEncrypted { needed.insert(.authenticatedSignedWrites) }
            guard !properties.isDisjoint(with: needed) else { return .none }
        default:
            // Only characteristic values declare signed writes (Part G §3.3.1.1).
            guard !signed else { return .none }
        }
        let value = Array(bytes)
        switch attribute.storage {
        case .clientConfiguration:
            return writeClientConfiguration(attribute, value, respond: false, id)
        case .clientSupportedFeatures:
            _ = writeClientSupportedFeatures(value, id)
            return .none
        case .databaseHash:
            return .none
        case .value, .dynamic:
            guard attribute.isApplicationOwned else { return .none }
            if case .value = attribute.storage { database.setStoredValue(value, atIndex: index) }
            let write = GATTWrite(attribute: reference(to: attribute), offset: 0, value: value)
            return .writeWithoutResponse(GATTWriteCommand(connection: id, write: write, isSigned: signed))
        }
    }

    /// Signed Write Command (Part F §3.4.5.4), allowed on values with the
    /// `authenticatedSignedWrites` property, never answered:
    /// - with the client's CSRK known (`setSigningKey`), the signature and a SignCounter above
    ///   the last one are checked (Part H §2.4.5) and a bad one drops the command; a good one
    ///   stands for an encrypted link (authenticated if the key was), as the signature
    ///   authenticates the data;
    /// - without a CSRK (until the host distributes signing keys), the signature is not checked
    ///   and the command is handled as a Write Command with the link's own security, so it
    ///   cannot reach anything an unsigned write could not;
    /// - on an encrypted link (where it should not be sent, §3.3.1) it is likewise a Write
    ///   Command: the link already authenticates every packet.
    mutating func signedWrite(_ command: ATT.SignedWriteCommand, _ id: GATTConnectionID) -> GATTServerOutcome {
        guard let state = connections[id] else { return .none }
        guard !state.security.isEncrypted, let key = state.signingKey else {
            return writeCommand(command.handle, command.value, signed: true, id)
        }
        guard SignedWrite.verify(command, csrk: key.csrk),
            state.lastSignCounter.map({ command.signature.signCounter > $0 }) ?? true
        else { return .none }
        connections[id]?.lastSignCounter = command.signature.signCounter
        return writeCommand(
            command.handle, command.value, signed: true, id,
            security: .encrypted(keySize: 16, authenticated: key.authenticated))
    }

    /// Client Characteristic Configuration (Part G §3.3.3.3): two octets; bit 0 enables
    /// notifications and needs the `notify` property, bit 1 indications and `indicate`. Any
    /// other bit, or a bit the characteristic does not allow, is Client Characteristic
    /// Configuration Descriptor Improperly Configured (0xFD, CSS Part B §1.2). The value is kept
    /// per connection; a change is reported.
    mutating func writeClientConfiguration(
        _ attribute: ServerAttribute, _ value: [UInt8], respond: Bool, _ id: GATTConnectionID
    ) -> GATTServerOutcome {
        let opcode = ATTOpcode.writeRequest
        guard value.count == 2 else {
            return respond ? errorResponse(opcode, attribute.handle, .invalidAttributeValueLength) : .none
        }
        let configuration = UInt16(value[0]) | UInt16(value[1]) << 8
        guard case .descriptor(let valueHandle) = attribute.role,
            let characteristic = database.attribute(at: valueHandle),
            case .characteristicValue(let properties, _, _) = characteristic.role
        else { return respond ? errorResponse(opcode, attribute.handle, .unlikelyError) : .none }
        var allowed: UInt16 = 0
        if properties.contains(.notify) { allowed |= 0x0001 }
        if properties.contains(.indicate) { allowed |= 0x0002 }
        guard configuration & ~allowed == 0 else {
            return respond ? errorResponse(opcode, attribute.handle, .cccdImproperlyConfigured) : .none
        }
        let response: ATTPDU? = respond ? ATT.WriteResponse().pdu : nil
        let previous = connections[id]?.configuration(attribute.handle) ?? 0
        connections[id]?.clientConfigurations[attribute.handle] = configuration == 0 ? nil : configuration
        guard previous != configuration else { return response.map { .respond($0) } ?? .none }
        let subscription = GATTSubscription(
            connection: id, characteristic: reference(to: characteristic),
            notifications: configuration & 0x0001 != 0, indications: configuration & 0x0002 != 0)
        return .subscriptionChanged(subscription, response: response)
    }

    /// Client Supported Features (Part G §7.2): a client may set bits, never clear one it set
    /// (Value Not Allowed). Returns the error, nil when stored.
    mutating func writeClientSupportedFeatures(_ value: [UInt8], _ id: GATTConnectionID) -> ATTErrorCode? {
        let current = connections[id]?.clientSupportedFeatures ?? []
        for (position, octet) in current.enumerated() {
            let new = position < value.count ? value[position] : 0
            if octet & ~new != 0 { return .valueNotAllowed }
        }
        connections[id]?.clientSupportedFeatures = value
        return nil
    }

    /// Completes a Write Request or an Execute Write Request with the application's answer.
    /// On success stored values take their new values, then the response is returned. An
    /// answer to a request no longer waiting yields `.none`.
    public mutating func complete(_ request: GATTWriteRequest, with result: GATTWriteResult) -> GATTServerOutcome {
        let id = request.connection
        guard let pending = connections[id]?.pending, pending.serial == request.token.serial else { return .none }
        connections[id]?.pending = nil
        switch pending {
        case .write(_, let handle, let value):
            if case .error(let code, let at) = result { return errorResponse(.writeRequest, at ?? handle, code) }
            if let index = database.index(of: handle), case .value = database.attributes[index].storage {
                database.setStoredValue(value, atIndex: index)
            }
            return .respond(ATT.WriteResponse().pdu)
        case .executeWrite(_, let firstHandle, let storedValues):
            if case .error(let code, let at) = result {
                return errorResponse(.executeWriteRequest, at ?? firstHandle, code)
            }
            for (handle, value) in storedValues {
                if let index = database.index(of: handle) { database.setStoredValue(value, atIndex: index) }
            }
            return .respond(ATT.ExecuteWriteResponse().pdu)
        case .read, .readByType, .readMultiple:
            return .none
        }
    }
}
