import BLEHost
import BLEWire

/// What the central keeps of a bonded peripheral's database on this connection (Core 5.4
/// Vol 3 Part G §2.5.2): the cache, complete after the first discovery, or nil when this
/// connection does not cache (the peer is not bonded, or has no Database Hash).
struct PeripheralAttributeCache {
    /// The connection (`Peripheral.connectionCount`) it belongs to.
    var connection: UInt64
    var cache: GATTDatabaseCache?
}

/// Attribute caching with a bonded peripheral, as Core Bluetooth does: the first service
/// discovery of a connection reads the Database Hash (Part G §7.3). Equal to the one saved in the
/// bond with the database, nothing is discovered: services, characteristics and descriptors come
/// from the bond, and the Service Changed indications the server keeps enabled for a bonded
/// client (§3.3.3.3) are routed. Different, or without a saved database, the whole database is
/// discovered once (the bond keeps it for the next connection). A Service Changed indication
/// (§7.1) makes its range stale; the next discovery rediscovers only that range. Peers that are
/// not bonded are discovered as asked, nothing kept.
extension Peripheral {
    /// The database for this connection, from the bond or discovered whole; nil when this
    /// connection does not cache.
    func cachedDatabase(client: GATTClient<HostATTBearer>, count: UInt64) async throws(BLEError) -> GATTDatabaseCache? {
        guard case .connected(let connection) = link else { throw .notConnected }
        if let state = attributeCache, state.connection == count {
            guard let cache = state.cache else { return nil }
            if cache.isComplete { return cache }
            // A Service Changed range went stale in this connection: only it is discovered.
            return try await refreshCache(cache, hashKnown: nil, client: client, count: count, connection: connection)
        }
        guard let saved = stack.inPlace(passing: connection, { $0.bondedServerDatabase(on: $1) }),
            let hash = try await readDatabaseHash(client: client, count: count)
        else {
            attributeCache = PeripheralAttributeCache(connection: count, cache: nil)
            return nil
        }
        var cache = saved.cache
        if saved.hash != hash { cache.invalidateAll() }
        guard cache.isComplete else {
            return try await refreshCache(cache, hashKnown: hash, client: client, count: count, connection: connection)
        }
        adopt(cache, count: count, routingServiceChanged: true)
        return cache
    }

    /// The Database Hash (Read Using Characteristic UUID 0x2B2A, Part G §7.3); nil when the
    /// server has none.
    private func readDatabaseHash(client: GATTClient<HostATTBearer>, count: UInt64) async throws(BLEError) -> [UInt8]? {
        let value: [UInt8]?
        do {
            value = try await serialised { () async throws(GATTError) in
                try await client.readFirstValue(ofCharacteristic: GATTAttributeType.databaseHash)
            }
        } catch {
            // No readable hash: no caching; only a lost link is an error.
            guard case .bearer = error else { return nil }
            throw BLEError(error)
        }
        try checkStillConnected(count)
        guard let hash = value, hash.count == 16 else { return nil }
        return hash
    }

    /// Rediscovers the stale ranges of `cache` (§2.5.2), keeps the result for the connection and
    /// in the bond with the hash (read again when not known).
    private func refreshCache(
        _ cache: GATTDatabaseCache, hashKnown: [UInt8]?, client: GATTClient<HostATTBearer>, count: UInt64,
        connection: ConnectionHandle
    ) async throws(BLEError) -> GATTDatabaseCache {
        var cache = cache
        do {
            try await serialised { () async throws(GATTError) in try await client.refresh(&cache) }
        } catch {
            throw BLEError(error)
        }
        try checkStillConnected(count)
        var hash = hashKnown
        if hash == nil { hash = try await readDatabaseHash(client: client, count: count) }
        stack.inPlace(passing: (connection, cache, hash)) { host, input in
            host.storeServerDatabase(input.1, hash: input.2, on: input.0)
        }
        adopt(cache, count: count, routingServiceChanged: false)
        // A database discovered here has its Service Changed indications enabled as after any
        // full discovery.
        try await enableServiceChangedIndications(in: cache.services.map(\.service), count: count)
        return cache
    }

    /// Makes `cache` what this connection knows: every service, include, characteristic and
    /// descriptor, keeping the values and subscriptions of records that are still there.
    /// `routingServiceChanged`: the database came from the bond, whose server kept this client's
    /// Service Changed configuration (§3.3.3.3), so its indications are routed without a write.
    private func adopt(_ cache: GATTDatabaseCache, count: UInt64, routingServiceChanged: Bool) {
        attributeCache = PeripheralAttributeCache(connection: count, cache: cache)
        var records: [UInt16: ServiceRecord] = [:]
        for entry in cache.services {
            let start = entry.service.startHandle
            let previous = serviceRecords[start].flatMap { $0.service == entry.service ? $0 : nil }
            let characteristics = entry.characteristics.map { item in
                let old = previous?.characteristics?.first { $0.discovered == item.characteristic }
                return CharacteristicRecord(
                    discovered: item.characteristic, serviceUUID: entry.service.uuid,
                    descriptors: item.descriptors.map { descriptor in
                        DescriptorRecord(
                            discovered: descriptor,
                            value: old?.descriptors?.first { $0.discovered == descriptor }?.value)
                    },
                    value: old?.value, isNotifying: old?.isNotifying ?? false)
            }
            records[start] = ServiceRecord(
                service: entry.service, isListed: entry.service.isPrimary,
                includes: entry.includedServices.map(\.includedServiceRange.lowerBound),
                characteristics: characteristics)
        }
        serviceRecords = records
        servicesDiscovered = true
        // The server keeps a bonded client's Service Changed configuration (§3.3.3.3).
        if routingServiceChanged, serviceChangedHandle == nil,
            let gatt = cache.services.first(where: { $0.service.uuid == GATTAttributeType.gattService }),
            let serviceChanged = gatt.characteristics.first(where: {
                $0.characteristic.uuid == GATTAttributeType.serviceChanged
            }),
            serviceChanged.descriptors.contains(where: {
                $0.uuid == GATTAttributeType.clientCharacteristicConfiguration
            })
        {
            serviceChangedHandle = serviceChanged.characteristic.valueHandle
        }
    }

    /// Whether this connection answers discovery from the cache.
    var answersFromCache: Bool {
        guard let state = attributeCache, state.connection == connectionCount, let cache = state.cache else {
            return false
        }
        return cache.isComplete
    }

    /// A Service Changed range (§7.1) goes stale in the cache, here and in the bond.
    func cacheInvalidated(_ range: ClosedRange<UInt16>) {
        guard var state = attributeCache, state.connection == connectionCount, var cache = state.cache,
            case .connected(let connection) = link
        else { return }
        _ = cache.invalidate(range: range)
        state.cache = cache
        attributeCache = state
        stack.inPlace(passing: (connection, cache)) { host, input in
            host.storeServerDatabase(input.1, hash: nil, on: input.0)
        }
    }
}
