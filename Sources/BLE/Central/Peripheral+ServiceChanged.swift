import BLEHost
import BLEWire

/// Keeping discovery true to a peer whose database changes while connected (Core 5.4 Vol 3
/// Part G §7.1, §2.5.2): as Core Bluetooth does, the first full service discovery of a
/// connection enables Service Changed indications, and an indication forgets the services in
/// its range and reports them as `.servicesModified`.
extension Peripheral {
    /// Enables indications of the Service Changed characteristic of the GATT service (0x1801)
    /// `services` holds, if the peer has it. A peer that refuses loses nothing but the change
    /// reports; only a lost link is an error.
    func enableServiceChangedIndications(in services: [DiscoveredService], count: UInt64) async throws(BLEError) {
        guard serviceChangedHandle == nil,
            let gattService = services.first(where: { $0.uuid == GATTAttributeType.gattService })
        else { return }
        let (client, _) = try client()
        var found: UInt16?
        do throws(GATTError) {
            let characteristics = try await client.discoverCharacteristics(
                withUUID: GATTAttributeType.serviceChanged, for: gattService)
            guard let serviceChanged = characteristics.first(where: { $0.properties.contains(.indicate) }) else {
                return
            }
            let descriptors = try await client.discoverDescriptors(for: serviceChanged)
            let configurationType = GATTAttributeType.clientCharacteristicConfiguration
            guard let configuration = descriptors.first(where: { $0.uuid == configurationType }) else { return }
            try await client.writeClientCharacteristicConfiguration(.indications, descriptorHandle: configuration.handle)
            found = serviceChanged.valueHandle
        } catch {
            guard case .bearer = error else { return }
            throw BLEError(error)
        }
        try checkStillConnected(count)
        serviceChangedHandle = found
    }

    /// A Service Changed indication for `range`: every discovered service overlapping it is
    /// forgotten (its handles may now mean something else) and reported.
    func servicesChanged(_ range: ClosedRange<UInt16>) {
        let invalidated = serviceRecords.values
            .filter { $0.service.handleRange.overlaps(range) }
            .sorted { $0.service.startHandle < $1.service.startHandle }
        let snapshots = invalidated.filter(\.isListed).map { snapshot($0) }
        for record in invalidated { serviceRecords[record.service.startHandle] = nil }
        cacheInvalidated(range)
        eventListeners.yield(.servicesModified(invalidatedServices: snapshots))
    }
}
