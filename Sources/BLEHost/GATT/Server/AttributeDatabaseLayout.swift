import BLEWire

/// A service laid out as attributes, ready to be inserted.
struct BuiltService {
    var attributes: [ServerAttribute]
    var handles: GATTServiceHandles
}

extension AttributeDatabase {
    /// The largest attribute value (Core 5.4 Vol 3 Part F §3.2.9).
    static let maximumValueLength = 512

    /// How many handles a service definition occupies (Part G §3): its declaration, one per
    /// include, and per characteristic a declaration, a value and its descriptors.
    static func attributeCount(of service: GATTService) -> Int {
        service.characteristics.reduce(1 + service.includedServices.count) { count, characteristic in
            count + 2 + (characteristic.hasClientConfiguration ? 1 : 0)
                + (characteristic.hasExtendedPropertiesDescriptor ? 1 : 0) + characteristic.descriptors.count
        }
    }

    /// Lays out consecutive services from `start` (Part G §3: declaration, includes, then each
    /// characteristic's declaration, value and descriptors).
    static func build(
        _ services: [GATTService], startingAt start: UInt16, existing: [GATTService],
        existingHandles: [GATTServiceHandles]
    ) throws(AttributeDatabaseError) -> [BuiltService] {
        var starts: [UInt16] = []
        var next = Int(start)
        for service in services {
            let count = attributeCount(of: service)
            guard next + count - 1 <= 0xFFFF else { throw .databaseFull(needed: count) }
            starts.append(UInt16(next))
            next += count
        }
        return try build(services, at: starts, existing: existing, existingHandles: existingHandles)
    }

    /// Lays out each service at its start handle; an include is resolved against the existing
    /// services and the new ones together: the one with the lowest handle that matches. Only an
    /// include searches (`existing` is in handle order), so a service without includes costs the
    /// same however many services the database holds.
    static func build(
        _ services: [GATTService], at starts: [UInt16], existing: [GATTService],
        existingHandles: [GATTServiceHandles]
    ) throws(AttributeDatabaseError) -> [BuiltService] {
        let ranges = zip(services, starts).map { service, start in
            start...(start + UInt16(attributeCount(of: service) - 1))
        }
        func rangeOf(_ included: GATTService) -> ClosedRange<UInt16>? {
            let old = existing.firstIndex(of: included).map { existingHandles[$0].range }
            let new = zip(services, ranges).filter { $0.0 == included }.map(\.1).min { $0.lowerBound < $1.lowerBound }
            switch (old, new) {
            case (let old?, let new?): return old.lowerBound < new.lowerBound ? old : new
            case (let old?, nil): return old
            case (nil, let new): return new
            }
        }
        var built: [BuiltService] = []
        for (service, start) in zip(services, starts) {
            built.append(try layout(service, at: start, rangeOf: rangeOf))
        }
        return built
    }

    /// The attributes of one service definition starting at `start`.
    private static func layout(
        _ service: GATTService, at start: UInt16, rangeOf: (GATTService) -> ClosedRange<UInt16>?
    ) throws(AttributeDatabaseError) -> BuiltService {
        let end = start + UInt16(attributeCount(of: service) - 1)
        var attributes: [ServerAttribute] = []
        attributes.reserveCapacity(Int(end - start) + 1)
        var handle = start

        func append(
            _ type: BluetoothUUID, _ permissions: AttributePermissions, _ storage: ServerAttribute.Storage,
            _ role: ServerAttribute.Role
        ) {
            attributes.append(
                ServerAttribute(
                    handle: handle, type: type, permissions: permissions, storage: storage, role: role,
                    serviceHandle: start))
            handle &+= 1
        }

        // §3.1: the service declaration's value is the service UUID.
        var uuid = ByteWriter(capacity: 16)
        service.uuid.encodeATT(into: &uuid)
        append(
            service.isPrimary ? GATTAttributeType.primaryService : GATTAttributeType.secondaryService, .readable,
            .value(uuid.bytes), .service(end: end))

        // §3.2: Included Service Attribute Handle, End Group Handle, and the UUID only when 16-bit.
        for included in service.includedServices {
            guard let range = rangeOf(included) else { throw .includedServiceNotFound(included.uuid) }
            var value = ByteWriter(capacity: 6)
            value.u16(range.lowerBound)
            value.u16(range.upperBound)
            if let short = included.uuid.uuid16 { value.u16(short) }
            append(GATTAttributeType.include, .readable, .value(value.bytes), .include)
        }

        var characteristics: [GATTServiceHandles.Characteristic] = []
        for characteristic in service.characteristics {
            let declarationHandle = handle
            let valueHandle = handle + 1
            let count =
                2 + (characteristic.hasClientConfiguration ? 1 : 0)
                + (characteristic.hasExtendedPropertiesDescriptor ? 1 : 0) + characteristic.descriptors.count
            let characteristicEnd = declarationHandle + UInt16(count - 1)
            let cccdHandle: UInt16? = characteristic.hasClientConfiguration ? valueHandle + 1 : nil
            let extendedHandle: UInt16? =
                characteristic.hasExtendedPropertiesDescriptor ? valueHandle + (cccdHandle == nil ? 1 : 2) : nil
            let extended = characteristic.extendedProperties ?? []

            // §3.3.1: Properties, Value Handle, UUID.
            var declaration = ByteWriter(capacity: 19)
            declaration.u8(characteristic.declaredProperties.declaredOctet)
            declaration.u16(valueHandle)
            characteristic.uuid.encodeATT(into: &declaration)
            append(
                GATTAttributeType.characteristic, .readable, .value(declaration.bytes),
                .characteristic(end: characteristicEnd))

            // §3.3.2: the value itself.
            append(
                characteristic.uuid, characteristic.permissions,
                try storage(of: characteristic.value, characteristic.uuid),
                .characteristicValue(
                    properties: characteristic.declaredProperties, extendedProperties: extended,
                    clientConfigurationHandle: cccdHandle))

            // §3.3.3.3: one configuration per client, kept by the server.
            if cccdHandle != nil {
                append(
                    GATTAttributeType.clientCharacteristicConfiguration, [.readable, .writeable],
                    .clientConfiguration, .descriptor(valueHandle: valueHandle))
            }
            // §3.3.3.1: the extended properties, read only.
            if extendedHandle != nil {
                var value = ByteWriter(capacity: 2)
                value.u16(extended.rawValue)
                append(
                    GATTAttributeType.characteristicExtendedProperties, .readable, .value(value.bytes),
                    .descriptor(valueHandle: valueHandle))
            }
            var descriptorHandles: [UInt16] = []
            for descriptor in characteristic.descriptors {
                if descriptor.uuid == GATTAttributeType.clientCharacteristicConfiguration
                    || descriptor.uuid == GATTAttributeType.characteristicExtendedProperties
                {
                    throw .generatedDescriptorSupplied(descriptor.uuid)
                }
                var permissions = descriptor.permissions
                // §3.3.3.2: Writable Auxiliaries makes the user description writable.
                if descriptor.uuid == GATTAttributeType.characteristicUserDescription
                    && extended.contains(.writableAuxiliaries)
                {
                    permissions.insert(.writeable)
                }
                descriptorHandles.append(handle)
                append(
                    descriptor.uuid, permissions, try storage(of: descriptor.value, descriptor.uuid),
                    .descriptor(valueHandle: valueHandle))
            }
            characteristics.append(
                .init(
                    uuid: characteristic.uuid, declarationHandle: declarationHandle, valueHandle: valueHandle,
                    clientConfigurationHandle: cccdHandle, extendedPropertiesHandle: extendedHandle,
                    descriptorHandles: descriptorHandles))
        }
        let handles = GATTServiceHandles(
            uuid: service.uuid, isPrimary: service.isPrimary, range: start...end, characteristics: characteristics)
        return BuiltService(attributes: attributes, handles: handles)
    }

    private static func storage(of value: GATTValue, _ uuid: BluetoothUUID) throws(AttributeDatabaseError)
        -> ServerAttribute.Storage
    {
        switch value {
        case .dynamic: return .dynamic
        case .stored(let bytes):
            guard bytes.count <= maximumValueLength else { throw .valueTooLong(uuid, length: bytes.count) }
            return .value(bytes)
        }
    }
}
