import BLEHost
import BLEWire

/// Discovery (Core 5.4 Vol 3 Part G §4.4–§4.7), Core Bluetooth's `discover…` calls. Each
/// returns what it found and keeps it for the connection.
extension Peripheral {
    /// Discover All Primary Services (§4.4.1), or Discover Primary Service by Service UUID
    /// (§4.4.2) for each of `serviceUUIDs`.
    @discardableResult
    public func discoverServices(_ serviceUUIDs: [BluetoothUUID]? = nil) async throws(BLEError) -> [Service] {
        let (client, count) = try client()
        if let cache = try await cachedDatabase(client: client, count: count) {
            // Part G §2.5.2: a bonded server's unchanged database is not discovered again.
            let wanted = serviceUUIDs.flatMap { $0.isEmpty ? nil : Set($0) }
            return cache.services.filter { $0.service.isPrimary && wanted?.contains($0.service.uuid) ?? true }
                .compactMap { serviceRecords[$0.service.startHandle].map { snapshot($0) } }
        }
        var found: [DiscoveredService] = []
        do {
            found = try await serialised { () async throws(GATTError) in
                guard let serviceUUIDs, !serviceUUIDs.isEmpty else { return try await client.discoverPrimaryServices() }
                var matching: [DiscoveredService] = []
                for uuid in serviceUUIDs { matching += try await client.discoverPrimaryServices(withUUID: uuid) }
                return matching.sorted { $0.startHandle < $1.startHandle }
            }
        } catch {
            throw BLEError(error)
        }
        try checkStillConnected(count)
        if serviceUUIDs?.isEmpty ?? true {
            // A full discovery replaces the list; what is found again keeps what was found in it.
            for start in serviceRecords.keys { serviceRecords[start]?.isListed = false }
        }
        for service in found { store(service, listed: true) }
        servicesDiscovered = true
        if serviceUUIDs?.isEmpty ?? true { try await enableServiceChangedIndications(in: found, count: count) }
        return found.compactMap { serviceRecords[$0.startHandle].map { snapshot($0) } }
    }

    /// Find Included Services (§4.5.1) of `service`, keeping those of `includedServiceUUIDs`.
    @discardableResult
    public func discoverIncludedServices(_ includedServiceUUIDs: [BluetoothUUID]? = nil, for service: Service)
        async throws(BLEError) -> [Service]
    {
        let (client, count) = try client()
        let record = try locate(service)
        if answersFromCache, let includes = record.includes {
            let wanted = includedServiceUUIDs.flatMap { $0.isEmpty ? nil : Set($0) }
            return includes.compactMap { serviceRecords[$0] }.filter { wanted?.contains($0.service.uuid) ?? true }
                .map { snapshot($0) }
        }
        var found: [DiscoveredIncludedService]
        do {
            found = try await serialised { () async throws(GATTError) in
                try await client.discoverIncludedServices(for: record.service)
            }
        } catch {
            throw BLEError(error)
        }
        try checkStillConnected(count)
        if let includedServiceUUIDs, !includedServiceUUIDs.isEmpty {
            found = found.filter { includedServiceUUIDs.contains($0.uuid) }
        }
        for include in found {
            let known = serviceRecords[include.includedServiceRange.lowerBound]
            store(
                DiscoveredService(
                    uuid: include.uuid, handleRange: include.includedServiceRange,
                    isPrimary: known?.service.isPrimary ?? false),
                listed: known?.isListed ?? false)
        }
        let start = record.service.startHandle
        var includes = serviceRecords[start]?.includes ?? []
        for include in found where !includes.contains(include.includedServiceRange.lowerBound) {
            includes.append(include.includedServiceRange.lowerBound)
        }
        serviceRecords[start]?.includes = includes
        return found.compactMap { serviceRecords[$0.includedServiceRange.lowerBound].map { snapshot($0) } }
    }

    /// Discover All Characteristics of a Service (§4.6.1), keeping those of
    /// `characteristicUUIDs` (Discover Characteristics by UUID, §4.6.2, reads every declaration
    /// anyway: the next one ends the one before).
    @discardableResult
    public func discoverCharacteristics(_ characteristicUUIDs: [BluetoothUUID]? = nil, for service: Service)
        async throws(BLEError) -> [Characteristic]
    {
        let (client, count) = try client()
        let record = try locate(service)
        if answersFromCache, let characteristics = record.characteristics {
            let wanted = characteristicUUIDs.flatMap { $0.isEmpty ? nil : Set($0) }
            return characteristics.filter { wanted?.contains($0.discovered.uuid) ?? true }.map { snapshot($0) }
        }
        var found: [DiscoveredCharacteristic]
        do {
            found = try await serialised { () async throws(GATTError) in
                try await client.discoverCharacteristics(for: record.service)
            }
        } catch {
            throw BLEError(error)
        }
        try checkStillConnected(count)
        if let characteristicUUIDs, !characteristicUUIDs.isEmpty {
            found = found.filter { characteristicUUIDs.contains($0.uuid) }
        }
        let start = record.service.startHandle
        var merged = serviceRecords[start]?.characteristics ?? []
        for characteristic in found {
            if let index = merged.firstIndex(where: { $0.discovered.valueHandle == characteristic.valueHandle }) {
                merged[index].discovered = characteristic
            } else {
                merged.append(CharacteristicRecord(discovered: characteristic, serviceUUID: record.service.uuid))
            }
        }
        merged.sort { $0.discovered.valueHandle < $1.discovered.valueHandle }
        serviceRecords[start]?.characteristics = merged
        return found.compactMap { characteristic in
            merged.first { $0.discovered.valueHandle == characteristic.valueHandle }.map { snapshot($0) }
        }
    }

    /// Discover All Characteristic Descriptors (§4.7.1) of `characteristic`.
    @discardableResult
    public func discoverDescriptors(for characteristic: Characteristic) async throws(BLEError) -> [Descriptor] {
        let (client, count) = try client()
        let (_, _, record) = try locate(characteristic)
        if answersFromCache, let descriptors = record.descriptors {
            return descriptors.map { snapshot($0, of: record.discovered.valueHandle) }
        }
        let found: [DiscoveredDescriptor]
        do {
            found = try await serialised { () async throws(GATTError) in
                try await client.discoverDescriptors(for: record.discovered)
            }
        } catch {
            throw BLEError(error)
        }
        try checkStillConnected(count)
        let (start, index, _) = try locate(characteristic)
        let previous = serviceRecords[start]?.characteristics?[index].descriptors ?? []
        let descriptors = found.map { descriptor in
            DescriptorRecord(
                discovered: descriptor, value: previous.first { $0.discovered.handle == descriptor.handle }?.value)
        }
        serviceRecords[start]?.characteristics?[index].descriptors = descriptors
        return descriptors.map { snapshot($0, of: record.discovered.valueHandle) }
    }

    /// Keeps a discovered service, and what was found inside it when it is the same service.
    private func store(_ service: DiscoveredService, listed: Bool) {
        let start = service.startHandle
        if let known = serviceRecords[start], known.service.handleRange == service.handleRange,
            known.service.uuid == service.uuid
        {
            serviceRecords[start]?.isListed = known.isListed || listed
            if listed { serviceRecords[start]?.service.isPrimary = service.isPrimary }
            return
        }
        // A service overlapping others replaces them (the server's database is what it says now).
        for (other, record) in serviceRecords where record.service.handleRange.overlaps(service.handleRange) {
            serviceRecords[other] = nil
        }
        serviceRecords[start] = ServiceRecord(service: service, isListed: listed)
    }
}
