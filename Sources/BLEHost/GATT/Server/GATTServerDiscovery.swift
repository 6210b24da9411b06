import BLEWire

/// The range requests of Core 5.4 Vol 3 Part F §3.4.3–§3.4.4 (Find Information, Find By Type
/// Value, Read By Type, Read By Group Type), which GATT's discovery procedures use (Part G §4.4–
/// §4.7, §4.8.2).
extension GATTServer {
    /// A range a request names is invalid when it starts at 0x0000 or ends before it starts
    /// (Part F §3.4.3.1 …): Invalid Handle, naming the starting handle.
    func invalidRange(_ start: UInt16, _ end: UInt16) -> Bool { start == 0 || start > end }

    /// Find Information (Part F §3.4.3.1–§3.4.3.2): handles and types in the range, all of the
    /// first attribute's UUID width, as many as fit ATT_MTU − 2 octets.
    func findInformation(_ request: ATT.FindInformationRequest, _ id: GATTConnectionID) -> GATTServerOutcome {
        let opcode = ATTOpcode.findInformationRequest
        let (start, end) = (request.startingHandle, request.endingHandle)
        guard !invalidRange(start, end) else { return errorResponse(opcode, start, .invalidHandle) }
        let mtu = mtu(for: id)
        var entries: [ATT.FindInformationResponse.Entry] = []
        var width = 0
        var index = database.lowerBound(start)
        while index < database.attributes.count, database.attributes[index].handle <= end {
            let attribute = database.attributes[index]
            if width == 0 { width = attribute.type.attWidth }
            // §3.4.3.2: a change of UUID width ends the response.
            guard attribute.type.attWidth == width, (entries.count + 1) * (2 + width) <= mtu - 2 else { break }
            entries.append(.init(handle: attribute.handle, uuid: attribute.type))
            index += 1
        }
        guard !entries.isEmpty else { return errorResponse(opcode, start, .attributeNotFound) }
        guard let response = ATT.FindInformationResponse(format: width == 2 ? .uuid16 : .uuid128, entries: entries)
        else { return errorResponse(opcode, start, .unlikelyError) }
        return .respond(response.pdu)
    }

    /// Find By Type Value (Part F §3.4.3.3–§3.4.3.4): the readable attributes of a 16-bit type
    /// whose value equals the one given, with the end of the group each opens (GATT's Discover
    /// Primary Service By Service UUID, Part G §4.4.2), as many as fit ATT_MTU − 1 octets. A
    /// dynamic value is not compared (the application is not asked during a search).
    func findByTypeValue(_ request: ATT.FindByTypeValueRequest, _ id: GATTConnectionID) -> GATTServerOutcome {
        let opcode = ATTOpcode.findByTypeValueRequest
        let (start, end) = (request.startingHandle, request.endingHandle)
        guard !invalidRange(start, end) else { return errorResponse(opcode, start, .invalidHandle) }
        guard let state = connections[id] else { return .none }
        let type = request.attributeTypeUUID
        let capacity = (state.mtu - 1) / 4
        var entries: [ATT.FindByTypeValueResponse.Entry] = []
        var index = database.lowerBound(start)
        while index < database.attributes.count, database.attributes[index].handle <= end, entries.count < capacity {
            let attribute = database.attributes[index]
            index += 1
            guard attribute.type == type, accessError(attribute, .read, state) == nil,
                let value = storedValue(attribute, state), value.elementsEqual(request.value)
            else { continue }
            entries.append(.init(foundAttributeHandle: attribute.handle, groupEndHandle: attribute.groupEnd))
        }
        guard let response = ATT.FindByTypeValueResponse(entries: entries) else {
            return errorResponse(opcode, start, .attributeNotFound)
        }
        return .respond(response.pdu)
    }

    /// Read By Type (Part F §3.4.4.1–§3.4.4.2): the values of the attributes of a type in the
    /// range, all as long as the first, each cut to min(ATT_MTU − 4, 253) octets, as many as
    /// fit ATT_MTU − 2. An attribute that cannot be read ends the list, or is the error when it
    /// comes first. A dynamic value is asked for only when it comes first (the response then
    /// holds it alone); later it ends the list, so the application is never asked for a value
    /// that would be thrown away.
    mutating func readByType(_ request: ATT.ReadByTypeRequest, _ id: GATTConnectionID) -> GATTServerOutcome {
        let opcode = ATTOpcode.readByTypeRequest
        let (start, end) = (request.startingHandle, request.endingHandle)
        guard !invalidRange(start, end) else { return errorResponse(opcode, start, .invalidHandle) }
        guard let state = connections[id] else { return .none }
        let maximumValue = min(state.mtu - 4, 253)
        var entries: [ATT.ReadByTypeResponse.Entry] = []
        var length = -1
        var index = database.lowerBound(start)
        while index < database.attributes.count, database.attributes[index].handle <= end {
            let attribute = database.attributes[index]
            index += 1
            guard attribute.type == request.attributeType else { continue }
            if let error = accessError(attribute, .read, state) {
                if entries.isEmpty { return errorResponse(opcode, attribute.handle, error) }
                break
            }
            guard let full = storedValue(attribute, state) else {
                if entries.isEmpty {
                    return askRead(attribute, offset: 0, id) { .readByType(serial: $0, handle: attribute.handle) }
                }
                break
            }
            let value = full.prefix(maximumValue)
            if length < 0 { length = value.count }
            guard value.count == length, (entries.count + 1) * (2 + length) <= state.mtu - 2 else { break }
            entries.append(.init(handle: attribute.handle, value: value))
        }
        guard let response = ATT.ReadByTypeResponse(entries: entries) else {
            return errorResponse(opcode, start, .attributeNotFound)
        }
        if entries.contains(where: { $0.handle == database.databaseHashHandle }) { noteHashRead(id) }
        return .respond(response.pdu)
    }

    /// Read By Group Type (Part F §3.4.4.9–§3.4.4.10): GATT groups by «Primary Service» and
    /// «Secondary Service» only (Part G §2.5.3), any other type is an Unsupported Group Type.
    /// Entries hold handle, end group handle and service UUID, all of the first's length.
    func readByGroupType(_ request: ATT.ReadByGroupTypeRequest, _ id: GATTConnectionID) -> GATTServerOutcome {
        let opcode = ATTOpcode.readByGroupTypeRequest
        let (start, end) = (request.startingHandle, request.endingHandle)
        guard !invalidRange(start, end) else { return errorResponse(opcode, start, .invalidHandle) }
        let type = request.attributeGroupType
        guard type == GATTAttributeType.primaryService || type == GATTAttributeType.secondaryService else {
            return errorResponse(opcode, start, .unsupportedGroupType)
        }
        guard let state = connections[id] else { return .none }
        let maximumValue = min(state.mtu - 6, 251)
        var entries: [ATT.ReadByGroupTypeResponse.Entry] = []
        var length = -1
        var index = database.lowerBound(start)
        while index < database.attributes.count, database.attributes[index].handle <= end {
            let attribute = database.attributes[index]
            index += 1
            guard attribute.type == type else { continue }
            if let error = accessError(attribute, .read, state) {
                if entries.isEmpty { return errorResponse(opcode, attribute.handle, error) }
                break
            }
            let value = (storedValue(attribute, state) ?? []).prefix(maximumValue)
            if length < 0 { length = value.count }
            guard value.count == length, (entries.count + 1) * (4 + length) <= state.mtu - 2 else { break }
            entries.append(.init(handle: attribute.handle, endGroupHandle: attribute.groupEnd, value: value))
        }
        guard let response = ATT.ReadByGroupTypeResponse(entries: entries) else {
            return errorResponse(opcode, start, .attributeNotFound)
        }
        return .respond(response.pdu)
    }

    /// Part G §2.5.2.1: reading the Database Hash makes a change-unaware client change-aware at
    /// its next request.
    mutating func noteHashRead(_ id: GATTConnectionID) {
        if case .changeUnaware = connections[id]?.awareness {
            connections[id]?.awareness = .changeUnaware(awaitingNextRequest: true)
        }
    }
}
