import BLEWire
import Testing

@testable import BLEHost

@Suite("GATT client: Service Changed and the database cache")
struct DatabaseCacheTests {
    @Test("Vol 3 Part G §7.1 the Service Changed value is the affected start and end handle, little-endian")
    func serviceChangedParse() throws {
        let changed = try ServiceChanged(value: [0x10, 0x00, 0xFF, 0xFF])
        #expect(changed.affectedRange == 0x0010...0xFFFF)
        #expect(changed.octets == [0x10, 0x00, 0xFF, 0xFF])
        #expect(try ServiceChanged(value: [0x05, 0x00, 0x05, 0x00]).affectedRange == 0x0005...0x0005)
        #expect(ServiceChanged.uuid == 0x2A05)
    }

    @Test(
        "Vol 3 Part G §7.1 Service Changed: a wrong length, a start of 0x0000 or an end before the start is invalid",
        arguments: [
            [0x10, 0x00, 0xFF], [0x10, 0x00, 0xFF, 0xFF, 0x00], [], [0x00, 0x00, 0x05, 0x00], [0x10, 0x00, 0x0F, 0x00],
        ]
            as [[UInt8]])
    func serviceChangedInvalid(value: [UInt8]) {
        #expect(throws: GATTError.self) { try ServiceChanged(value: value) }
        do {
            _ = try ServiceChanged(value: value)
        } catch {
            #expect(error.isInvalidResponse)
        }
    }

    /// Two services: 0x0001…0x0005 (GAP, one characteristic) and 0x0010…0x001F (Heart Rate).
    func filledCache() -> GATTDatabaseCache {
        let gap = DiscoveredService(uuid: 0x1800, handleRange: 0x0001...0x0005)
        let name = DiscoveredCharacteristic(
            uuid: 0x2A00, declarationHandle: 0x0002, valueHandle: 0x0003, properties: [.read], endHandle: 0x0005)!
        let heartRate = DiscoveredService(uuid: 0x180D, handleRange: 0x0010...0x001F)
        let include = DiscoveredIncludedService(handle: 0x0011, includedServiceRange: 0x0030...0x0034, uuid: 0x180F)
        let measurement = DiscoveredCharacteristic(
            uuid: 0x2A37, declarationHandle: 0x0012, valueHandle: 0x0013, properties: [.notify], endHandle: 0x0015)!
        let location = DiscoveredCharacteristic(
            uuid: 0x2A38, declarationHandle: 0x0016, valueHandle: 0x0017, properties: [.read], endHandle: 0x001F)!
        var cache = GATTDatabaseCache()
        cache.store(
            [
                .init(
                    service: heartRate, includedServices: [include],
                    characteristics: [
                        .init(
                            characteristic: measurement,
                            descriptors: [
                                DiscoveredDescriptor(uuid: 0x2902, handle: 0x0014),
                                DiscoveredDescriptor(uuid: 0x2901, handle: 0x0015),
                            ]),
                        .init(characteristic: location),
                    ]),
                .init(service: gap, characteristics: [.init(characteristic: name)]),
            ], discoveredIn: 0x0001...0xFFFF)
        return cache
    }

    @Test("Vol 3 Part G §2.5.2 a fresh cache is all stale; storing a whole discovery completes it, in handle order")
    func storeComplete() {
        var cache = GATTDatabaseCache()
        #expect(cache.staleRanges == [0x0001...0xFFFF])
        #expect(!cache.isComplete)
        cache = filledCache()
        #expect(cache.isComplete)
        #expect(cache.services.map(\.service.uuid) == [0x1800, 0x180D])
    }

    @Test("Vol 3 Part G §2.5.2 lookups by handle name the service, include, declaration, value or descriptor there")
    func lookupsByHandle() throws {
        let cache = filledCache()
        #expect(cache.service(containing: 0x0004)?.service.uuid == 0x1800)
        #expect(cache.service(containing: 0x0008) == nil)
        #expect(cache.service(containing: 0x001F)?.service.uuid == 0x180D)
        #expect(cache.service(containing: 0x0020) == nil)
        #expect(cache.service(containing: 0x0000) == nil)
        let measurement = try #require(cache.characteristic(valueHandle: 0x0013))
        #expect(measurement.uuid == 0x2A37)
        #expect(cache.characteristic(valueHandle: 0x0012) == nil)
        #expect(cache.characteristic(containing: 0x0015)?.characteristic == measurement)
        #expect(cache.descriptor(handle: 0x0014)?.uuid == 0x2902)
        #expect(cache.descriptor(handle: 0x0013) == nil)

        #expect(cache.attribute(at: 0x0010) == .serviceDeclaration(cache.services[1].service))
        #expect(
            cache.attribute(at: 0x0011)
                == .include(cache.services[1].includedServices[0], in: cache.services[1].service))
        #expect(cache.attribute(at: 0x0012) == .characteristicDeclaration(measurement))
        #expect(cache.attribute(at: 0x0013) == .characteristicValue(measurement))
        #expect(
            cache.attribute(at: 0x0015)
                == .descriptor(DiscoveredDescriptor(uuid: 0x2901, handle: 0x0015), of: measurement))
        // Inside the location characteristic's range but not a handle discovery saw.
        #expect(cache.attribute(at: 0x0019) == nil)
        #expect(cache.attribute(at: 0x0009) == nil)
    }

    @Test("Vol 3 Part G §2.5.2 lookups by UUID find services, characteristics and descriptors")
    func lookupsByUUID() throws {
        let cache = filledCache()
        #expect(cache.services(withUUID: 0x180D).map(\.handleRange) == [0x0010...0x001F])
        #expect(cache.services(withUUID: 0x180F).isEmpty)
        let measurement = try #require(cache.characteristics(withUUID: 0x2A37).first)
        #expect(cache.characteristics(withUUID: 0x2A38).map(\.valueHandle) == [0x0017])
        #expect(cache.clientCharacteristicConfiguration(of: measurement)?.handle == 0x0014)
        #expect(cache.descriptors(withUUID: 0x2901, of: measurement).map(\.handle) == [0x0015])
        let location = try #require(cache.characteristics(withUUID: 0x2A38).first)
        #expect(cache.clientCharacteristicConfiguration(of: location) == nil)
    }

    @Test("Vol 3 Part G §7.1 invalidating a range removes the services it touches, widened to their whole extent")
    func invalidate() {
        var cache = filledCache()
        let widened = cache.invalidate(range: 0x0014...0x0014)
        #expect(widened == 0x0010...0x001F)
        #expect(cache.staleRanges == [0x0010...0x001F])
        #expect(cache.services.map(\.service.uuid) == [0x1800])
        #expect(cache.characteristic(valueHandle: 0x0013) == nil)

        // A range across both services and the gap between them, merged with what is stale.
        #expect(cache.invalidate(range: 0x0004...0x0008) == 0x0001...0x0008)
        #expect(cache.staleRanges == [0x0001...0x0008, 0x0010...0x001F])
        cache.invalidate(range: 0x0009...0x000F)
        #expect(cache.staleRanges == [0x0001...0x001F])
        #expect(cache.services.isEmpty)

        // A range outside every service is stale as it is.
        var other = filledCache()
        #expect(other.invalidate(range: 0x0100...0x0200) == 0x0100...0x0200)
        #expect(other.services.count == 2)
        other.invalidateAll()
        #expect(other.staleRanges == [0x0001...0xFFFF])
        #expect(other.services.isEmpty)
    }

    @Test("Vol 3 Part G §7.1 storing a rediscovered range clears only that range and replaces what overlaps")
    func storePartial() {
        var cache = GATTDatabaseCache()
        let battery = DiscoveredService(uuid: 0x180F, handleRange: 0x0030...0x0034)
        cache.store([.init(service: battery)], discoveredIn: 0x0020...0x003F)
        #expect(cache.staleRanges == [0x0001...0x001F, 0x0040...0xFFFF])
        #expect(!cache.isComplete)

        // Rediscovery finds the service grown; the old one is replaced, not kept beside it.
        let grown = DiscoveredService(uuid: 0x180F, handleRange: 0x0030...0x0038)
        cache.store([.init(service: grown)], discoveredIn: 0x0030...0x0038)
        #expect(cache.services.map(\.service) == [grown])

        // Of two new services that overlap, the later is dropped.
        let clash = DiscoveredService(uuid: 0x1811, handleRange: 0x0036...0x0040)
        cache.store([.init(service: grown), .init(service: clash)], discoveredIn: 0x0030...0x0040)
        #expect(cache.services.map(\.service) == [grown])
        #expect(cache.staleRanges == [0x0001...0x001F, 0x0041...0xFFFF])
    }
}
