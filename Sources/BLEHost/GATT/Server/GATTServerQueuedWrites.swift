import BLEWire

/// Queued writes (Core 5.4 Vol 3 Part F §3.4.6): Prepare Write queues parts per client, Execute
/// Write validates the whole queue and writes it atomically or not at all. GATT uses them for
/// Write Long Characteristic Values and Reliable Writes (Part G §4.9.4–§4.9.5).
extension GATTServer {
    /// Prepare Write (Part F §3.4.6.1): handle and permissions are checked now; offset and
    /// length only at execution. The response echoes the request. Only application values
    /// queue: the server's own configurations are written with Write Requests (Write Not
    /// Permitted here).
    mutating func prepareWrite(_ request: ATT.PrepareWriteRequest, _ id: GATTConnectionID) -> GATTServerOutcome {
        let opcode = ATTOpcode.prepareWriteRequest
        guard let state = connections[id] else { return .none }
        guard let attribute = database.attribute(at: request.handle) else {
            return errorResponse(opcode, request.handle, .invalidHandle)
        }
        if let error = accessError(attribute, .write, state) { return errorResponse(opcode, attribute.handle, error) }
        guard attribute.isApplicationOwned else { return errorResponse(opcode, attribute.handle, .writeNotPermitted) }
        guard state.prepareQueue.count < configuration.prepareQueueLimit else {
            return errorResponse(opcode, attribute.handle, .prepareQueueFull)
        }
        connections[id]?.prepareQueue.append(
            PreparedWrite(handle: request.handle, offset: Int(request.valueOffset), value: Array(request.partValue)))
        return .respond(ATT.PrepareWriteResponse(echoing: request).pdu)
    }

    /// Execute Write (Part F §3.4.6.3): cancel discards the queue; write validates every part
    /// in order — a handle gone since it was queued is Database Out Of Sync, an offset past the
    /// value built so far is Invalid Offset, a value past 512 octets is Invalid Attribute Value
    /// Length — and on any error discards the queue. A valid queue goes to the application as
    /// one request, consecutive parts of an attribute merged (Core Bluetooth's array of
    /// requests); stored values change only when it agrees.
    ///
    /// A stored value is rebuilt as the parts say (each part replaces the value from its offset
    /// on). A dynamic value's current length is the application's: its first part may start at
    /// any offset, and the application answers Invalid Offset itself if that is wrong.
    mutating func executeWrite(_ request: ATT.ExecuteWriteRequest, _ id: GATTConnectionID) -> GATTServerOutcome {
        let opcode = ATTOpcode.executeWriteRequest
        guard let queue = connections[id]?.prepareQueue else { return .none }
        connections[id]?.prepareQueue = []
        guard request.flags == .write, let firstHandle = queue.first?.handle else {
            return .respond(ATT.ExecuteWriteResponse().pdu)
        }
        var stored: [UInt16: [UInt8]] = [:]
        var dynamicEnd: [UInt16: Int] = [:]
        var merged: [(handle: UInt16, offset: Int, value: [UInt8])] = []
        for part in queue {
            guard let attribute = database.attribute(at: part.handle) else {
                return errorResponse(opcode, part.handle, .databaseOutOfSync)
            }
            switch attribute.storage {
            case .value(let current):
                let base = stored[part.handle] ?? current
                guard part.offset <= base.count else { return errorResponse(opcode, part.handle, .invalidOffset) }
                let new = Array(base.prefix(part.offset)) + part.value
                guard new.count <= AttributeDatabase.maximumValueLength else {
                    return errorResponse(opcode, part.handle, .invalidAttributeValueLength)
                }
                stored[part.handle] = new
            default:
                if let end = dynamicEnd[part.handle], part.offset > end {
                    return errorResponse(opcode, part.handle, .invalidOffset)
                }
                guard part.offset + part.value.count <= AttributeDatabase.maximumValueLength else {
                    return errorResponse(opcode, part.handle, .invalidAttributeValueLength)
                }
                dynamicEnd[part.handle] = part.offset + part.value.count
            }
            // Consecutive parts continuing the previous one form one write.
            if let last = merged.last, last.handle == part.handle, last.offset + last.value.count == part.offset {
                merged[merged.count - 1].value += part.value
            } else {
                merged.append((part.handle, part.offset, part.value))
            }
        }
        let writes = merged.compactMap { write in
            database.attribute(at: write.handle).map {
                GATTWrite(attribute: reference(to: $0), offset: write.offset, value: write.value)
            }
        }
        let serial = takeSerial()
        connections[id]?.pending = .executeWrite(serial: serial, firstHandle: firstHandle, storedValues: stored)
        let token = GATTRequestToken(connection: id, serial: serial)
        return .write(GATTWriteRequest(token: token, kind: .executeWrite, writes: writes))
    }
}
