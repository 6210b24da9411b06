import BLEWire

extension GATTClient {
    /// Read Characteristic Value (Core 5.4 Vol 3 Part G §4.8.1) — and Read Characteristic
    /// Descriptors (§4.12.1), the same Read Request: the value, or its first ATT_MTU − 1 octets.
    public nonisolated(nonsending) func readValue(handle: UInt16) async throws(GATTError) -> [UInt8] {
        let request = ATT.ReadRequest(handle: handle).pdu
        let response = try await send(request)
        guard case .readResponse(let read) = response else { throw .unexpected(response, to: request.opcode) }
        return Array(read.value)
    }

    /// Read Using Characteristic UUID (Core 5.4 Vol 3 Part G §4.8.2): Read By Type Requests for
    /// `uuid` across `range` (typically a service's). A response holds only values of one
    /// length, so requests continue after the last handle returned, as the discoveries do, until
    /// Attribute Not Found or the end of the range; no match at all is an empty result.
    public nonisolated(nonsending) func readValues(
        ofCharacteristic uuid: BluetoothUUID, in range: ClosedRange<UInt16>
    ) async throws(GATTError) -> [GATTHandleValue] {
        guard let range = GATTClientSupport.usable(range) else { return [] }
        let full = min(await currentMTU - 4, 253)
        var values: [GATTHandleValue] = []
        try await walkReadByType(uuid, in: range, what: "value") { (list, walk) throws(GATTError) in
            for entry in list.entries {
                try walk.accept(entry.handle, through: entry.handle)
                values.append(
                    GATTHandleValue(
                        handle: entry.handle, value: Array(entry.value), isTruncated: entry.value.count >= full))
            }
        }
        return values
    }

    /// Read Using Characteristic UUID (Core 5.4 Vol 3 Part G §4.8.2) for a characteristic a
    /// server holds once (the Database Hash, §7.3): one Read By Type Request, the first value
    /// found; nil when there is none (Attribute Not Found).
    public nonisolated(nonsending) func readFirstValue(
        ofCharacteristic uuid: BluetoothUUID, in range: ClosedRange<UInt16> = 0x0001...0xFFFF
    ) async throws(GATTError) -> [UInt8]? {
        let request = ATT.ReadByTypeRequest(
            startingHandle: range.lowerBound, endingHandle: range.upperBound, attributeType: uuid
        ).pdu
        guard let response = try await send(request, endingOn: [.attributeNotFound]) else { return nil }
        guard case .readByTypeResponse(let list) = response else { throw .unexpected(response, to: request.opcode) }
        for entry in list.entries {
            guard range.contains(entry.handle) else {
                throw .invalidResponse("Read By Type Response names handle \(entry.handle) outside \(range)")
            }
            return Array(entry.value)
        }
        return nil
    }

    /// Read Long Characteristic Values (Core 5.4 Vol 3 Part G §4.8.3) — and Read Long
    /// Characteristic Descriptors (§4.12.2): a Read Request, then Read Blob Requests at the
    /// offset of the next octet while each part fills the response (ATT_MTU − 1 octets).
    ///
    /// Ends at a shorter part (an empty one when the value is an exact multiple of
    /// ATT_MTU − 1), at an Invalid Offset or Attribute Not Long Error Response to a Read Blob
    /// (what some servers answer at the value's end), or at 512 octets, the longest value
    /// (Vol 3 Part F §3.2.9). A part longer than ATT_MTU − 1 or a value past 512 octets is a
    /// broken rule.
    public nonisolated(nonsending) func readLongValue(handle: UInt16) async throws(GATTError) -> [UInt8] {
        let partLength = await currentMTU - 1
        var value = try await readValue(handle: handle)
        guard value.count <= partLength else {
            throw .invalidResponse("Read Response of \(value.count) octets exceeds ATT_MTU − 1")
        }
        var lastPart = value.count
        while lastPart == partLength, value.count < GATTClientSupport.maximumValueLength {
            let request = ATT.ReadBlobRequest(handle: handle, valueOffset: UInt16(value.count)).pdu
            guard let response = try await send(request, endingOn: [.invalidOffset, .attributeNotLong]) else { break }
            guard case .readBlobResponse(let blob) = response else { throw .unexpected(response, to: request.opcode) }
            guard blob.partValue.count <= partLength else {
                throw .invalidResponse("Read Blob Response of \(blob.partValue.count) octets exceeds ATT_MTU − 1")
            }
            value.append(contentsOf: blob.partValue)
            lastPart = blob.partValue.count
        }
        guard value.count <= GATTClientSupport.maximumValueLength else {
            throw .invalidResponse("value of \(value.count) octets exceeds \(GATTClientSupport.maximumValueLength)")
        }
        return value
    }

    /// Read Multiple Characteristic Values (Core 5.4 Vol 3 Part G §4.8.4): the values of
    /// `handles` concatenated, as the server sends them (cut to ATT_MTU − 1 octets); the caller
    /// knows their lengths. One handle is a plain Read (§4.8.1, the same answer); none reads
    /// nothing. A request that cannot fit the ATT_MTU is refused before sending.
    public nonisolated(nonsending) func readMultipleValues(handles: [UInt16]) async throws(GATTError) -> [UInt8] {
        switch handles.count {
        case 0: return []
        case 1: return try await readValue(handle: handles[0])
        default: break
        }
        try await checkFits(handles)
        guard let request = ATT.ReadMultipleRequest(handles: handles)?.pdu else { return [] }
        let response = try await send(request)
        guard case .readMultipleResponse(let read) = response else { throw .unexpected(response, to: request.opcode) }
        return Array(read.setOfValues)
    }

    /// Read Multiple Variable Length Characteristic Values (Core 5.4 Vol 3 Part G §4.8.5): each
    /// value with its handle, in request order. The server cuts the list at ATT_MTU − 1 octets,
    /// so the last value may be truncated (`isTruncated`) and later handles missing; more tuples
    /// than handles is a broken rule. One handle is a plain Read; none reads nothing.
    public nonisolated(nonsending) func readMultipleVariableValues(handles: [UInt16]) async throws(GATTError) -> [GATTHandleValue] {
        switch handles.count {
        case 0: return []
        case 1:
            let value = try await readValue(handle: handles[0])
            return [
                GATTHandleValue(handle: handles[0], value: value, isTruncated: value.count >= (await currentMTU) - 1)
            ]
        default: break
        }
        try await checkFits(handles)
        guard let request = ATT.ReadMultipleVariableRequest(handles: handles)?.pdu else { return [] }
        let response = try await send(request)
        guard case .readMultipleVariableResponse(let read) = response else {
            throw .unexpected(response, to: request.opcode)
        }
        var values: [GATTHandleValue] = []
        var remaining = handles[...]
        for tuple in read.tuples {
            guard let handle = remaining.popFirst() else {
                throw .invalidResponse(
                    "Read Multiple Variable Response holds more values than the \(handles.count) asked")
            }
            values.append(GATTHandleValue(handle: handle, value: Array(tuple.value), isTruncated: tuple.isTruncated))
        }
        return values
    }

    /// A Set Of Handles request (opcode + 2 octets a handle) must fit the ATT_MTU.
    private nonisolated(nonsending) func checkFits(_ handles: [UInt16]) async throws(GATTError) {
        let mtu = await currentMTU
        let length = 1 + 2 * handles.count
        guard length <= mtu else { throw .bearer(.pduTooLong(length: length, mtu: mtu)) }
    }

    /// Read Characteristic Descriptors (Core 5.4 Vol 3 Part G §4.12.1): a Read Request.
    public nonisolated(nonsending) func readDescriptor(handle: UInt16) async throws(GATTError) -> [UInt8] {
        try await readValue(handle: handle)
    }

    /// Read Long Characteristic Descriptors (Core 5.4 Vol 3 Part G §4.12.2): Read then Read
    /// Blob, as `readLongValue`.
    public nonisolated(nonsending) func readLongDescriptor(handle: UInt16) async throws(GATTError) -> [UInt8] {
        try await readLongValue(handle: handle)
    }
}
