import BLEHost
import BLEWire

/// The binary forms in which `SQLiteBondStore` keeps a bond's GATT state (one BLOB column
/// each). Each begins with a format octet (1); integers are little-endian as on the wire; a
/// UUID is a width octet (2, 4 or 16) and the UUID in that many octets, little-endian.
///
/// `GATTBondedClientState` (Core 5.4 Vol 3 Part G §3.3.3.3, §7.2, §2.5.2.1), format 1:
///
///     u8 1 | u16 n | n × (u16 CCCD handle, u16 value), handles ascending
///     | u8 m | m octets Client Supported Features | u8 change-aware (0 or 1)
///     | u8 h | h octets Database Hash | u8 has-counter (0 or 1) [| u32 last SignCounter]
///
/// `GATTDatabaseCache` (Part G §2.5.2), format 1:
///
///     u8 1 | u16 r | r × (u16 first, u16 last) stale ranges
///     | u16 s | s × service
///     service: u8 primary (0 or 1) | u16 start | u16 end | UUID
///              | u16 i | i × (u16 include handle, u16 start, u16 end, UUID)
///              | u16 c | c × (UUID, u16 declaration, u16 value, u8 properties, u16 end,
///                             u16 d, d × (UUID, u16 descriptor handle))
///
/// Decoding takes untrusted bytes (a file can be damaged or edited): anything that does not
/// fit is a `DecodeError`, never a trap, and the store reports it as a damaged bond.
package enum BondBlobs {
    package static let format: UInt8 = 1

    // MARK: Client state

    package static func encode(_ state: GATTBondedClientState) -> [UInt8] {
        var writer = ByteWriter()
        writer.u8(format)
        let configurations = state.clientConfigurations.sorted { $0.key < $1.key }
        writer.u16(UInt16(clamping: configurations.count))
        for (handle, value) in configurations.prefix(Int(UInt16.max)) {
            writer.u16(handle)
            writer.u16(value)
        }
        shortBytes(state.clientSupportedFeatures, into: &writer)
        writer.u8(state.isChangeAware ? 1 : 0)
        shortBytes(state.databaseHash, into: &writer)
        if let counter = state.lastSignCounter {
            writer.u8(1)
            writer.u32(counter)
        } else {
            writer.u8(0)
        }
        return writer.bytes
    }

    package static func clientState(_ bytes: [UInt8]) throws(DecodeError) -> GATTBondedClientState {
        var reader = ByteReader(bytes, context: "GATT client state")
        try formatOctet(&reader)
        var configurations: [UInt16: UInt16] = [:]
        var previous: UInt16 = 0
        for _ in 0..<(try reader.u16("CCCD count")) {
            let handle = try reader.u16("CCCD handle")
            // Ascending, as written: one encoding per value (so none repeats or is 0).
            guard handle > previous else {
                throw reader.error("CCCD handle", .invalidValue(UInt64(handle)))
            }
            previous = handle
            configurations[handle] = try reader.u16("CCCD value")
        }
        let features = try shortBytes(&reader, "Client Supported Features")
        let changeAware = try flag(&reader, "change-aware")
        let hash = try shortBytes(&reader, "Database Hash")
        let counter: UInt32? = try flag(&reader, "has SignCounter") ? try reader.u32("SignCounter") : nil
        try reader.finish()
        return GATTBondedClientState(
            clientConfigurations: configurations, clientSupportedFeatures: features, isChangeAware: changeAware,
            databaseHash: hash, lastSignCounter: counter)
    }

    // MARK: Database cache

    package static func encode(_ cache: GATTDatabaseCache) -> [UInt8] {
        var writer = ByteWriter(capacity: 64)
        writer.u8(format)
        writer.u16(UInt16(clamping: cache.staleRanges.count))
        for range in cache.staleRanges {
            writer.u16(range.lowerBound)
            writer.u16(range.upperBound)
        }
        writer.u16(UInt16(clamping: cache.services.count))
        for entry in cache.services {
            writer.u8(entry.service.isPrimary ? 1 : 0)
            writer.u16(entry.service.startHandle)
            writer.u16(entry.service.handleRange.upperBound)
            uuid(entry.service.uuid, into: &writer)
            writer.u16(UInt16(clamping: entry.includedServices.count))
            for include in entry.includedServices {
                writer.u16(include.handle)
                writer.u16(include.includedServiceRange.lowerBound)
                writer.u16(include.includedServiceRange.upperBound)
                uuid(include.uuid, into: &writer)
            }
            writer.u16(UInt16(clamping: entry.characteristics.count))
            for found in entry.characteristics {
                let characteristic = found.characteristic
                uuid(characteristic.uuid, into: &writer)
                writer.u16(characteristic.declarationHandle)
                writer.u16(characteristic.valueHandle)
                // Discovered properties are the declaration's 8 bits (Part G §3.3.1.1).
                writer.u8(UInt8(truncatingIfNeeded: characteristic.properties.rawValue))
                writer.u16(characteristic.endHandle)
                writer.u16(UInt16(clamping: found.descriptors.count))
                for descriptor in found.descriptors {
                    uuid(descriptor.uuid, into: &writer)
                    writer.u16(descriptor.handle)
                }
            }
        }
        return writer.bytes
    }

    package static func databaseCache(_ bytes: [UInt8]) throws(DecodeError) -> GATTDatabaseCache {
        var reader = ByteReader(bytes, context: "GATT database cache")
        try formatOctet(&reader)
        var stale: [ClosedRange<UInt16>] = []
        for _ in 0..<(try reader.u16("stale range count")) { stale.append(try range(&reader, "stale range")) }
        var services: [GATTDatabaseCache.Service] = []
        for _ in 0..<(try reader.u16("service count")) {
            let primary = try flag(&reader, "primary")
            let handles = try range(&reader, "service handles")
            let service = DiscoveredService(uuid: try uuid(&reader), handleRange: handles, isPrimary: primary)
            var includes: [DiscoveredIncludedService] = []
            for _ in 0..<(try reader.u16("include count")) {
                let handle = try reader.u16("include handle")
                let included = try range(&reader, "included service handles")
                includes.append(
                    DiscoveredIncludedService(handle: handle, includedServiceRange: included, uuid: try uuid(&reader)))
            }
            var characteristics: [GATTDatabaseCache.Characteristic] = []
            for _ in 0..<(try reader.u16("characteristic count")) {
                let type = try uuid(&reader)
                let declaration = try reader.u16("declaration handle")
                let value = try reader.u16("value handle")
                let properties = CharacteristicProperties(rawValue: UInt16(try reader.u8("properties")))
                let end = try reader.u16("end handle")
                guard
                    let characteristic = DiscoveredCharacteristic(
                        uuid: type, declarationHandle: declaration, valueHandle: value, properties: properties,
                        endHandle: end)
                else { throw reader.error("characteristic handles", .invalidValue(UInt64(value))) }
                var descriptors: [DiscoveredDescriptor] = []
                for _ in 0..<(try reader.u16("descriptor count")) {
                    let type = try uuid(&reader)
                    descriptors.append(DiscoveredDescriptor(uuid: type, handle: try reader.u16("descriptor handle")))
                }
                characteristics.append(.init(characteristic: characteristic, descriptors: descriptors))
            }
            services.append(.init(service: service, includedServices: includes, characteristics: characteristics))
        }
        try reader.finish()
        // Rebuilt through the cache's own operations, so its invariants hold whatever the bytes
        // say: everything stored, then the stale ranges forgotten again. Bytes that the
        // operations would have to change (overlapping services, stale ranges over known
        // services, unordered or touching ranges) are not a cache this store wrote.
        var cache = GATTDatabaseCache()
        cache.store(services, discoveredIn: 0x0001...0xFFFF)
        for range in stale { cache.invalidate(range: range) }
        guard cache.services == services, cache.staleRanges == stale else {
            throw reader.error("services", .invalidValue(UInt64(services.count)))
        }
        return cache
    }

    // MARK: Pieces

    private static func formatOctet(_ reader: inout ByteReader) throws(DecodeError) {
        let format = try reader.u8("format")
        guard format == Self.format else { throw reader.error("format", .invalidValue(UInt64(format))) }
    }

    private static func flag(_ reader: inout ByteReader, _ field: StaticString) throws(DecodeError) -> Bool {
        let value = try reader.u8(field)
        guard value <= 1 else { throw reader.error(field, .invalidValue(UInt64(value))) }
        return value == 1
    }

    private static func range(_ reader: inout ByteReader, _ field: StaticString) throws(DecodeError)
        -> ClosedRange<UInt16>
    {
        let first = try reader.u16(field)
        let last = try reader.u16(field)
        guard first != 0, first <= last else { throw reader.error(field, .invalidValue(UInt64(first))) }
        return first...last
    }

    private static func shortBytes(_ bytes: [UInt8], into writer: inout ByteWriter) {
        let kept = bytes.prefix(Int(UInt8.max))
        writer.u8(UInt8(kept.count))
        writer.append(kept)
    }

    private static func shortBytes(_ reader: inout ByteReader, _ field: StaticString) throws(DecodeError) -> [UInt8] {
        let count = Int(try reader.u8(field))
        return Array(try reader.take(count, field))
    }

    private static func uuid(_ value: BluetoothUUID, into writer: inout ByteWriter) {
        let width = value.uuid16 != nil ? 2 : 16
        writer.u8(UInt8(width))
        value.encode(into: &writer, width: width)
    }

    private static func uuid(_ reader: inout ByteReader) throws(DecodeError) -> BluetoothUUID {
        let width = Int(try reader.u8("UUID width"))
        return try BluetoothUUID(from: &reader, width: width)
    }
}
