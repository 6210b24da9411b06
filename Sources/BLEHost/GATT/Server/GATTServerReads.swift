import BLEWire

/// Reads by handle (Core 5.4 Vol 3 Part F §3.4.4.3–§3.4.4.8, §3.4.4.11–§3.4.4.12), and the
/// completion of reads the application answers.
extension GATTServer {
    /// Read (Part F §3.4.4.3–§3.4.4.4): the value, cut to ATT_MTU − 1 octets.
    mutating func read(_ request: ATT.ReadRequest, _ id: GATTConnectionID) -> GATTServerOutcome {
        let opcode = ATTOpcode.readRequest
        guard let state = connections[id] else { return .none }
        guard let attribute = database.attribute(at: request.handle) else {
            return errorResponse(opcode, request.handle, .invalidHandle)
        }
        if let error = accessError(attribute, .read, state) { return errorResponse(opcode, attribute.handle, error) }
        guard let value = storedValue(attribute, state) else {
            return askRead(attribute, offset: 0, id) { .read(serial: $0, opcode: opcode, handle: attribute.handle) }
        }
        if attribute.handle == database.databaseHashHandle { noteHashRead(id) }
        return .respond(ATT.ReadResponse(value: value.prefix(state.mtu - 1)).pdu)
    }

    /// Read Blob (Part F §3.4.4.5–§3.4.4.6): ATT_MTU − 1 octets from the offset; an offset past
    /// the end is an Invalid Offset, one at the end reads nothing. Attribute Not Long, which
    /// §3.4.4.5 allows only for values of fixed length up to ATT_MTU − 1 octets, answers blob
    /// reads of the attributes whose length the specification fixes (declarations, Client
    /// Characteristic Configuration, Extended Properties, Presentation Format, Database Hash);
    /// application values have variable length, so they are read part by part to the end.
    mutating func readBlob(_ request: ATT.ReadBlobRequest, _ id: GATTConnectionID) -> GATTServerOutcome {
        let opcode = ATTOpcode.readBlobRequest
        guard let state = connections[id] else { return .none }
        guard let attribute = database.attribute(at: request.handle) else {
            return errorResponse(opcode, request.handle, .invalidHandle)
        }
        if let error = accessError(attribute, .read, state) { return errorResponse(opcode, attribute.handle, error) }
        let offset = Int(request.valueOffset)
        guard let value = storedValue(attribute, state) else {
            return askRead(attribute, offset: offset, id) {
                .read(serial: $0, opcode: opcode, handle: attribute.handle)
            }
        }
        guard offset <= value.count else { return errorResponse(opcode, attribute.handle, .invalidOffset) }
        if attribute.hasFixedLength && value.count <= state.mtu - 1 {
            return errorResponse(opcode, attribute.handle, .attributeNotLong)
        }
        if attribute.handle == database.databaseHashHandle { noteHashRead(id) }
        return .respond(ATT.ReadBlobResponse(partValue: value[offset...].prefix(state.mtu - 1)).pdu)
    }

    /// Read Multiple (Part F §3.4.4.7–§3.4.4.8) and Read Multiple Variable Length
    /// (§3.4.4.11–§3.4.4.12): every handle is checked first, in request order, and the first
    /// one at fault is the error; then values are gathered in order, asking the application for
    /// each dynamic one in turn.
    mutating func readMultiple(_ handles: [UInt16], variable: Bool, _ id: GATTConnectionID) -> GATTServerOutcome {
        let opcode: ATTOpcode = variable ? .readMultipleVariableRequest : .readMultipleRequest
        guard let state = connections[id] else { return .none }
        for handle in handles {
            guard let attribute = database.attribute(at: handle) else {
                return errorResponse(opcode, handle, .invalidHandle)
            }
            if let error = accessError(attribute, .read, state) { return errorResponse(opcode, handle, error) }
        }
        return continueReadMultiple(variable: variable, handles: handles, values: [], id)
    }

    /// Gathers the values from `values.count` on; asks the application at the first dynamic one.
    mutating func continueReadMultiple(
        variable: Bool, handles: [UInt16], values: [[UInt8]], _ id: GATTConnectionID
    ) -> GATTServerOutcome {
        guard let state = connections[id] else { return .none }
        var values = values
        while values.count < handles.count {
            guard let attribute = database.attribute(at: handles[values.count]) else {
                // The database changed while the application was answering.
                let opcode: ATTOpcode = variable ? .readMultipleVariableRequest : .readMultipleRequest
                return errorResponse(opcode, handles[values.count], .databaseOutOfSync)
            }
            guard let value = storedValue(attribute, state) else {
                let gathered = values
                return askRead(attribute, offset: 0, id) {
                    .readMultiple(serial: $0, variable: variable, handles: handles, values: gathered)
                }
            }
            if attribute.handle == database.databaseHashHandle { noteHashRead(id) }
            values.append(value)
        }
        let limit = state.mtu - 1
        guard variable else {
            return .respond(ATT.ReadMultipleResponse(setOfValues: Array(values.joined()).prefix(limit)).pdu)
        }
        // §3.4.4.12: cut after ATT_MTU − 1 octets, or before a tuple whose Value Length would be
        // split.
        var writer = ByteWriter(capacity: limit)
        for value in values {
            guard writer.count + 2 <= limit else { break }
            writer.u16(UInt16(clamping: value.count))
            writer.append(value.prefix(limit - writer.count))
        }
        guard let response = try? ATT.ReadMultipleVariableResponse(decoding: writer.bytes) else {
            return errorResponse(.readMultipleVariableRequest, handles.first ?? 0, .unlikelyError)
        }
        return .respond(response.pdu)
    }

    /// Leaves a read waiting for the application.
    mutating func askRead(
        _ attribute: ServerAttribute, offset: Int, _ id: GATTConnectionID, pending: (UInt64) -> PendingRequest
    ) -> GATTServerOutcome {
        let serial = takeSerial()
        connections[id]?.pending = pending(serial)
        let token = GATTRequestToken(connection: id, serial: serial)
        return .read(GATTReadRequest(token: token, attribute: reference(to: attribute), offset: offset))
    }

    /// Completes a read with the application's answer: the response to send, or — for Read
    /// Multiple — the next value to ask for. An answer to a request no longer waiting (the
    /// client disconnected or moved on) yields `.none`.
    public mutating func complete(_ request: GATTReadRequest, with result: GATTReadResult) -> GATTServerOutcome {
        let id = request.connection
        guard let state = connections[id], let pending = state.pending, pending.serial == request.token.serial else {
            return .none
        }
        connections[id]?.pending = nil
        let mtu = state.mtu
        switch pending {
        case .read(_, let opcode, let handle):
            guard case .value(let value) = result else { return failure(result, opcode, handle) }
            if opcode == .readBlobRequest {
                return .respond(ATT.ReadBlobResponse(partValue: value.prefix(mtu - 1)).pdu)
            }
            return .respond(ATT.ReadResponse(value: value.prefix(mtu - 1)).pdu)
        case .readByType(_, let handle):
            guard case .value(let value) = result else { return failure(result, .readByTypeRequest, handle) }
            let entry = ATT.ReadByTypeResponse.Entry(handle: handle, value: value.prefix(min(mtu - 4, 253))[...])
            guard let response = ATT.ReadByTypeResponse(entries: [entry]) else {
                return errorResponse(.readByTypeRequest, handle, .unlikelyError)
            }
            return .respond(response.pdu)
        case .readMultiple(_, let variable, let handles, let values):
            guard case .value(let value) = result else {
                let opcode: ATTOpcode = variable ? .readMultipleVariableRequest : .readMultipleRequest
                return failure(result, opcode, handles[values.count])
            }
            return continueReadMultiple(variable: variable, handles: handles, values: values + [value], id)
        case .write, .executeWrite:
            return .none
        }
    }

    private func failure(_ result: GATTReadResult, _ opcode: ATTOpcode, _ handle: UInt16) -> GATTServerOutcome {
        guard case .error(let code) = result else { return .none }
        return errorResponse(opcode, handle, code)
    }
}
