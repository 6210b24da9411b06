import BLEWire

extension GATTClient {
    /// Discovers everything in `range` (Core 5.4 Vol 3 Part G §4.4.1, §4.5.1, §4.6.1, §4.7.1):
    /// the primary services, then for each its included services, its characteristics and
    /// their descriptors. A service reached only through an include (a secondary service, §3.1)
    /// is discovered as well when it lies in `range` and overlaps no other service.
    public nonisolated(nonsending) func discoverDatabase(
        in range: ClosedRange<UInt16> = 0x0001...0xFFFF
    ) async throws(GATTError) -> [GATTDatabaseCache.Service] {
        var found: [GATTDatabaseCache.Service] = []
        var includes: [DiscoveredIncludedService] = []
        for service in try await discoverPrimaryServices(in: range) {
            let included = try await discoverIncludedServices(for: service)
            includes += included
            found.append(try await discoverContents(of: service, includedServices: included))
        }
        for include in includes {
            let extent = include.includedServiceRange
            guard range.contains(extent.lowerBound), range.contains(extent.upperBound),
                !found.contains(where: { $0.service.handleRange.overlaps(extent) })
            else { continue }
            let secondary = DiscoveredService(uuid: include.uuid, handleRange: extent, isPrimary: false)
            found.append(try await discoverContents(of: secondary, includedServices: []))
        }
        return found.sorted { $0.service.startHandle < $1.service.startHandle }
    }

    /// Rediscovers every stale range of `cache` and stores what is found (§2.5.2): all of it
    /// for a fresh cache, only the invalidated ranges after a Service Changed indication
    /// (§7.1). On failure the ranges already rediscovered stay stored.
    public nonisolated(nonsending) func refresh(_ cache: inout GATTDatabaseCache) async throws(GATTError) {
        for range in cache.staleRanges {
            cache.store(try await discoverDatabase(in: range), discoveredIn: range)
        }
    }

    /// The characteristics of `service` with their descriptors.
    private nonisolated(nonsending) func discoverContents(
        of service: DiscoveredService, includedServices: [DiscoveredIncludedService]
    ) async throws(GATTError) -> GATTDatabaseCache.Service {
        var characteristics: [GATTDatabaseCache.Characteristic] = []
        for characteristic in try await discoverCharacteristics(for: service) {
            characteristics.append(
                GATTDatabaseCache.Characteristic(
                    characteristic: characteristic, descriptors: try await discoverDescriptors(for: characteristic)))
        }
        return GATTDatabaseCache.Service(
            service: service, includedServices: includedServices, characteristics: characteristics)
    }
}
