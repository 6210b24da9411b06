import BLEHost
import BLEWire

/// Reading, writing and subscribing (Core 5.4 Vol 3 Part G §4.8–§4.12), Core Bluetooth's
/// `readValue`, `writeValue` and `setNotifyValue`. Properties and lengths are checked before
/// anything is sent.
extension Peripheral {
    /// The longest attribute value (Core 5.4 Vol 3 Part F §3.2.9).
    static let maximumValueLength = 512

    /// Reads a characteristic's whole value: Read Characteristic Value (§4.8.1), then Read
    /// Long Characteristic Values (§4.8.3) while parts fill the response. Needs `read`.
    @discardableResult
    public func readValue(for characteristic: Characteristic) async throws(BLEError) -> [UInt8] {
        let (client, count) = try client()
        let (_, _, record) = try locate(characteristic)
        guard record.discovered.properties.contains(.read) else { throw .propertyNotSupported(required: .read) }
        let value: [UInt8]
        value = try await secured { () async throws(GATTError) in
            try await client.readLongValue(handle: record.discovered.valueHandle)
        }
        try checkStillConnected(count)
        if case let (start, index, _)? = try? locate(characteristic) {
            serviceRecords[start]?.characteristics?[index].value = value
        }
        return value
    }

    /// Reads a descriptor's whole value: Read Characteristic Descriptors (§4.12.1), then Read
    /// Long Characteristic Descriptors (§4.12.2).
    @discardableResult
    public func readValue(for descriptor: Descriptor) async throws(BLEError) -> [UInt8] {
        let (client, count) = try client()
        _ = try locate(descriptor)
        let value: [UInt8]
        value = try await secured { () async throws(GATTError) in
            try await client.readLongDescriptor(handle: descriptor.handle)
        }
        try checkStillConnected(count)
        if case let (start, index, position)? = try? locate(descriptor) {
            serviceRecords[start]?.characteristics?[index].descriptors?[position].value = value
        }
        return value
    }

    /// Writes a characteristic value. With response: Write Characteristic Value (§4.9.3), or
    /// Write Long Characteristic Values (§4.9.4) when the value exceeds ATT_MTU − 3; needs
    /// `write`, at most 512 octets. Without response: Write Without Response (§4.9.1); needs
    /// `writeWithoutResponse`, at most ATT_MTU − 3 octets, and waits for transmit room when the
    /// link has none (see `canSendWriteWithoutResponse`).
    public func writeValue(_ data: [UInt8], for characteristic: Characteristic, type: WriteType)
        async throws(BLEError)
    {
        let (client, _) = try client()
        let (_, _, record) = try locate(characteristic)
        let properties = record.discovered.properties
        let handle = record.discovered.valueHandle
        let mtu = await mtu
        switch type {
        case .withResponse:
            guard properties.contains(.write) else { throw .propertyNotSupported(required: .write) }
            guard data.count <= Self.maximumValueLength else {
                throw .valueTooLong(length: data.count, maximum: Self.maximumValueLength)
            }
            try await secured { () async throws(GATTError) in
                if data.count <= mtu - 3 {
                    try await client.writeValue(data, handle: handle)
                } else {
                    try await client.writeLongValue(data, handle: handle)
                }
            }
        case .withoutResponse:
            guard !properties.isDisjoint(with: [.writeWithoutResponse, .authenticatedSignedWrites]) else {
                throw .propertyNotSupported(required: .writeWithoutResponse)
            }
            if properties.contains(.authenticatedSignedWrites), case .connected(let connection) = link,
                stack.inPlace(passing: connection, { $0.signsWrites(on: $1) })
            {
                return try await writeSigned(data, handle: handle, client: client, on: connection)
            }
            guard data.count <= mtu - 3 else { throw .valueTooLong(length: data.count, maximum: mtu - 3) }
            // With transmit room the Write Command goes out in place (the peripheral shares its
            // host's executor); without, the client's procedure waits for room.
            let command = ATT.WriteCommand(handle: handle, value: data[...]).pdu
            if case .connected(let connection) = link {
                switch stack.inPlace(passing: (command, connection), { $0.attCommandIfReady($1.0, on: $1.1) }) {
                case .success(true): return
                case .success(false): break
                case .failure(let error): throw BLEError(GATTError.bearer(error))
                }
            }
            do {
                try await client.writeValueWithoutResponse(data, handle: handle)
            } catch {
                throw BLEError(error)
            }
        }
    }

    /// Writes a descriptor (Write Characteristic Descriptors, §4.12.3, or Write Long
    /// Characteristic Descriptors, §4.12.4, past ATT_MTU − 3 octets), at most 512 octets. The
    /// Client Characteristic Configuration is written by `setNotifyValue` instead.
    public func writeValue(_ data: [UInt8], for descriptor: Descriptor) async throws(BLEError) {
        let (client, _) = try client()
        _ = try locate(descriptor)
        guard descriptor.uuid != GATTAttributeType.clientCharacteristicConfiguration else {
            throw .useSetNotifyValue
        }
        guard data.count <= Self.maximumValueLength else {
            throw .valueTooLong(length: data.count, maximum: Self.maximumValueLength)
        }
        let mtu = await mtu
        try await secured { () async throws(GATTError) in
            if data.count <= mtu - 3 {
                try await client.writeDescriptor(data, handle: descriptor.handle)
            } else {
                try await client.writeLongDescriptor(data, handle: descriptor.handle)
            }
        }
    }

    /// Enables or disables notifications — or indications, for a characteristic that only
    /// indicates — through its Client Characteristic Configuration descriptor (§3.3.3.3,
    /// §4.10, §4.11). Needs `notify` or `indicate`; the descriptors are discovered first when
    /// they were not. Values then arrive on `values(for:)` and `events()`.
    public func setNotifyValue(_ enabled: Bool, for characteristic: Characteristic) async throws(BLEError) {
        let (client, count) = try client()
        var (_, _, record) = try locate(characteristic)
        guard !record.discovered.properties.isDisjoint(with: [.notify, .indicate]) else {
            throw .propertyNotSupported(required: [.notify, .indicate])
        }
        if record.descriptors == nil {
            try await discoverDescriptors(for: characteristic)
            (_, _, record) = try locate(characteristic)
        }
        let configuration = GATTAttributeType.clientCharacteristicConfiguration
        guard let descriptor = record.descriptors?.first(where: { $0.discovered.uuid == configuration }) else {
            throw .protocolViolation("\(characteristic) has no Client Characteristic Configuration descriptor")
        }
        try await secured { () async throws(GATTError) in
            try await client.setNotifyValue(
                enabled, for: record.discovered, descriptorHandle: descriptor.discovered.handle)
        }
        try checkStillConnected(count)
        if case let (start, index, _)? = try? locate(characteristic) {
            serviceRecords[start]?.characteristics?[index].isNotifying = enabled
        }
    }
}
