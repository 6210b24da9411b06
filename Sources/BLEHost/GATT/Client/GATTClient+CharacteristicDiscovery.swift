import BLEWire

extension GATTClient {
    /// Discover All Characteristics of a Service (Core 5.4 Vol 3 Part G §4.6.1): Read By Type
    /// Requests for «Characteristic» (0x2803) across the service, each starting after the last
    /// declaration, until Attribute Not Found or the service's last handle.
    ///
    /// Each characteristic's end handle is the handle before the next declaration, or the
    /// service's end for the last one. A declaration whose value handle does not lie after it
    /// and before the next declaration (§3.3) is a broken rule.
    public nonisolated(nonsending) func discoverCharacteristics(
        for service: DiscoveredService
    ) async throws(GATTError) -> [DiscoveredCharacteristic] {
        var declarations: [CharacteristicDeclaration] = []
        try await walkReadByType(
            BluetoothUUID(GATTClientSupport.characteristic), in: service.handleRange, what: "characteristic"
        ) { (list, walk) throws(GATTError) in
            // Handle (2) + properties (1) + value handle (2) + UUID (2 or 16): 7 or 21 (§3.3.1).
            guard list.length == 7 || list.length == 21 else {
                throw .invalidResponse(
                    "Read By Type Response length \(list.length) for «Characteristic» is not 7 or 21")
            }
            for entry in list.entries {
                try walk.accept(entry.handle, through: entry.handle)
                let value = entry.value
                let base = value.startIndex
                declarations.append(
                    CharacteristicDeclaration(
                        handle: entry.handle,
                        properties: CharacteristicProperties(declared: value[base]),
                        valueHandle: UInt16(value[base + 1]) | UInt16(value[base + 2]) << 8,
                        uuid: try Self.uuid(value[(base + 3)...])))
            }
        }
        return try CharacteristicDeclaration.characteristics(declarations, endingAt: service.endHandle)
    }

    /// Discover Characteristics by UUID (Core 5.4 Vol 3 Part G §4.6.2): the declarations are
    /// read as in §4.6.1 and those of other types dropped — every declaration is needed anyway,
    /// since the next one, whatever its type, ends the one before.
    public nonisolated(nonsending) func discoverCharacteristics(
        withUUID uuid: BluetoothUUID, for service: DiscoveredService
    ) async throws(GATTError) -> [DiscoveredCharacteristic] {
        try await discoverCharacteristics(for: service).filter { $0.uuid == uuid }
    }

    /// Discover All Characteristic Descriptors (Core 5.4 Vol 3 Part G §4.7.1): Find Information
    /// Requests from the value handle + 1 to the characteristic's end, until Attribute Not Found
    /// or the end is reached. No request when the value is the characteristic's last handle.
    public nonisolated(nonsending) func discoverDescriptors(
        for characteristic: DiscoveredCharacteristic
    ) async throws(GATTError) -> [DiscoveredDescriptor] {
        guard let range = characteristic.descriptorRange else { return [] }
        var descriptors: [DiscoveredDescriptor] = []
        try await walk(range, what: "descriptor") {
            ATT.FindInformationRequest(startingHandle: $0, endingHandle: range.upperBound).pdu
        } response: {
            if case .findInformationResponse(let list) = $0 { list } else { nil }
        } _: { (list, walk) throws(GATTError) in
            for entry in list.entries {
                try walk.accept(entry.handle, through: entry.handle)
                descriptors.append(DiscoveredDescriptor(uuid: entry.uuid, handle: entry.handle))
            }
        }
        return descriptors
    }
}

/// A characteristic declaration as read (Core 5.4 Vol 3 Part G §3.3.1), before its end handle
/// is known.
struct CharacteristicDeclaration {
    var handle: UInt16
    var properties: CharacteristicProperties
    var valueHandle: UInt16
    var uuid: BluetoothUUID

    /// The characteristics of `declarations` (in increasing handle order), each ending before
    /// the next declaration, the last at `serviceEnd` (§4.7.1).
    static func characteristics(
        _ declarations: [CharacteristicDeclaration], endingAt serviceEnd: UInt16
    ) throws(GATTError) -> [DiscoveredCharacteristic] {
        var characteristics: [DiscoveredCharacteristic] = []
        characteristics.reserveCapacity(declarations.count)
        for (index, declaration) in declarations.enumerated() {
            // Declarations increase strictly (the walk checked), so next − 1 cannot underflow.
            let end = index + 1 < declarations.count ? declarations[index + 1].handle - 1 : serviceEnd
            guard
                let characteristic = DiscoveredCharacteristic(
                    uuid: declaration.uuid, declarationHandle: declaration.handle,
                    valueHandle: declaration.valueHandle, properties: declaration.properties, endHandle: end)
            else {
                throw .invalidResponse(
                    "characteristic declared at \(Hex.prefixed(declaration.handle, width: 4)) has its value at "
                        + "\(Hex.prefixed(declaration.valueHandle, width: 4)), outside "
                        + "\(Hex.prefixed(declaration.handle, width: 4))…\(Hex.prefixed(end, width: 4))")
            }
            characteristics.append(characteristic)
        }
        return characteristics
    }
}
