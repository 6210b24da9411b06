import BLEWire

extension GATTClient {
    /// Discover All Primary Services (Core 5.4 Vol 3 Part G §4.4.1): Read By Group Type
    /// Requests for «Primary Service» (0x2800), each starting after the last End Group Handle,
    /// until Attribute Not Found or a group that ends at the end of `range` (0xFFFF for the
    /// whole database).
    ///
    /// A narrower `range` rediscovers only what a Service Changed indication named (§7.1).
    public nonisolated(nonsending) func discoverPrimaryServices(
        in range: ClosedRange<UInt16> = 0x0001...0xFFFF
    ) async throws(GATTError) -> [DiscoveredService] {
        guard let range = GATTClientSupport.usable(range) else { return [] }
        var services: [DiscoveredService] = []
        try await walk(range, what: "service") {
            ATT.ReadByGroupTypeRequest(
                startingHandle: $0, endingHandle: range.upperBound,
                attributeGroupType: BluetoothUUID(GATTClientSupport.primaryService)
            ).pdu
        } response: {
            if case .readByGroupTypeResponse(let list) = $0 { list } else { nil }
        } _: { (list, walk) throws(GATTError) in
            // Each entry: handle, End Group Handle, then the service UUID (2 or 16 octets).
            let uuidWidth = Int(list.length) - 4
            guard uuidWidth == 2 || uuidWidth == 16 else {
                throw .invalidResponse("Read By Group Type Response length \(list.length) is not 6 or 20")
            }
            for entry in list.entries {
                try walk.accept(entry.handle, through: entry.endGroupHandle)
                services.append(
                    DiscoveredService(
                        uuid: try Self.uuid(entry.value), handleRange: entry.handle...entry.endGroupHandle,
                        isPrimary: true))
            }
        }
        return services
    }

    /// Discover Primary Service by Service UUID (Core 5.4 Vol 3 Part G §4.4.2): Find By Type
    /// Value Requests for «Primary Service» with the UUID as value, each starting after the last
    /// Group End Handle, until Attribute Not Found or a group ending at the end of `range`.
    public nonisolated(nonsending) func discoverPrimaryServices(
        withUUID uuid: BluetoothUUID, in range: ClosedRange<UInt16> = 0x0001...0xFFFF
    ) async throws(GATTError) -> [DiscoveredService] {
        guard let range = GATTClientSupport.usable(range) else { return [] }
        var value = ByteWriter()
        uuid.encodeATT(into: &value)
        var services: [DiscoveredService] = []
        try await walk(range, what: "service") {
            ATT.FindByTypeValueRequest(
                startingHandle: $0, endingHandle: range.upperBound,
                attributeType: GATTClientSupport.primaryService, value: value.bytes[...]
            ).pdu
        } response: {
            if case .findByTypeValueResponse(let list) = $0 { list } else { nil }
        } _: { (list, walk) throws(GATTError) in
            for entry in list.entries {
                try walk.accept(entry.foundAttributeHandle, through: entry.groupEndHandle)
                services.append(
                    DiscoveredService(
                        uuid: uuid, handleRange: entry.foundAttributeHandle...entry.groupEndHandle, isPrimary: true))
            }
        }
        return services
    }

    /// Find Included Services (Core 5.4 Vol 3 Part G §4.5.1): Read By Type Requests for
    /// «Include» (0x2802) across the service, until Attribute Not Found or the service's last
    /// handle. An include declaration carries the included service's UUID only when it is 16-bit
    /// (value of 6 octets); for a 128-bit one (value of 4) the UUID is read from the included
    /// service's declaration with a Read Request.
    public nonisolated(nonsending) func discoverIncludedServices(
        for service: DiscoveredService
    ) async throws(GATTError) -> [DiscoveredIncludedService] {
        var includes: [DiscoveredIncludedService] = []
        try await walkReadByType(BluetoothUUID(GATTClientSupport.include), in: service.handleRange, what: "include") {
            (list, walk) async throws(GATTError) in
            // Handle (2) + included service handle (2) + End Group Handle (2) + UUID (2 or none).
            guard list.length == 8 || list.length == 6 else {
                throw .invalidResponse("Read By Type Response length \(list.length) for «Include» is not 6 or 8")
            }
            for entry in list.entries {
                try walk.accept(entry.handle, through: entry.handle)
                let value = Array(entry.value)
                let first = UInt16(value[0]) | UInt16(value[1]) << 8
                let last = UInt16(value[2]) | UInt16(value[3]) << 8
                guard first != 0, last >= first else {
                    throw .invalidResponse(
                        "included service \(Hex.prefixed(first, width: 4))…\(Hex.prefixed(last, width: 4))"
                            + " is not a range"
                    )
                }
                let uuid: BluetoothUUID
                if value.count == 6 {
                    uuid = BluetoothUUID(UInt16(value[4]) | UInt16(value[5]) << 8)
                } else {
                    uuid = try await readServiceUUID(declarationHandle: first)
                }
                includes.append(
                    DiscoveredIncludedService(handle: entry.handle, includedServiceRange: first...last, uuid: uuid))
            }
        }
        return includes
    }

    /// The 128-bit UUID of the service declared at `declarationHandle` (§4.5.1): its
    /// declaration's value must be exactly 16 octets.
    private nonisolated(nonsending) func readServiceUUID(declarationHandle: UInt16) async throws(GATTError) -> BluetoothUUID {
        let value = try await readValue(handle: declarationHandle)
        guard value.count == 16 else {
            throw .invalidResponse(
                "service declaration at \(Hex.prefixed(declarationHandle, width: 4)) holds \(value.count) octets,"
                    + " not a 128-bit UUID"
            )
        }
        return try Self.uuid(value[...])
    }

    /// A UUID of 2 or 16 octets from a response; any other width is a broken rule.
    static func uuid(_ octets: ArraySlice<UInt8>) throws(GATTError) -> BluetoothUUID {
        guard octets.count == 2 || octets.count == 16,
            let uuid = try? BluetoothUUID(decodingLittleEndian: octets)
        else {
            throw .invalidResponse("a UUID of \(octets.count) octets")
        }
        return uuid
    }
}
