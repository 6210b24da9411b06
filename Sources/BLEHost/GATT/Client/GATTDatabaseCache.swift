import BLEWire

/// What a client has discovered of a server's attribute database (Core 5.4 Vol 3 Part G §2.5.2,
/// Attribute Caching): services with their includes, characteristics and descriptors, and the
/// handle ranges still to be (re)discovered.
///
/// A fresh cache knows nothing and holds the whole handle space as stale. Discovery results are
/// `store`d for the range they cover; a Service Changed indication (§7.1) `invalidate`s only its
/// range, so that `GATTClient.refresh(_:)` rediscovers only that range. Services are kept in
/// handle order and never overlap.
public struct GATTDatabaseCache: Hashable, Sendable {
    /// A service and everything discovered inside it.
    public struct Service: Hashable, Sendable {
        public var service: DiscoveredService
        public var includedServices: [DiscoveredIncludedService]
        /// In handle order.
        public var characteristics: [Characteristic]

        public init(
            service: DiscoveredService, includedServices: [DiscoveredIncludedService] = [],
            characteristics: [Characteristic] = []
        ) {
            self.service = service
            self.includedServices = includedServices
            self.characteristics = characteristics
        }
    }

    /// A characteristic and its descriptors.
    public struct Characteristic: Hashable, Sendable {
        public var characteristic: DiscoveredCharacteristic
        /// In handle order.
        public var descriptors: [DiscoveredDescriptor]

        public init(characteristic: DiscoveredCharacteristic, descriptors: [DiscoveredDescriptor] = []) {
            self.characteristic = characteristic
            self.descriptors = descriptors
        }
    }

    /// What a handle holds, as far as discovery tells (§3.1–§3.3).
    public enum Attribute: Hashable, Sendable {
        case serviceDeclaration(DiscoveredService)
        case include(DiscoveredIncludedService, in: DiscoveredService)
        case characteristicDeclaration(DiscoveredCharacteristic)
        /// The handle reads, writes, notifications and indications name.
        case characteristicValue(DiscoveredCharacteristic)
        case descriptor(DiscoveredDescriptor, of: DiscoveredCharacteristic)
    }

    /// The known services, in handle order, never overlapping.
    public private(set) var services: [Service] = []
    /// Ranges not yet (re)discovered, in order, disjoint and not adjacent.
    public private(set) var staleRanges: [ClosedRange<UInt16>] = [GATTClientSupport.all]

    /// An empty cache: the whole database is stale.
    public init() {}

    /// Nothing is left to discover.
    public var isComplete: Bool { staleRanges.isEmpty }

    // MARK: Updating

    /// Records `discovered`, the result of discovering `range` (`GATTClient.discoverDatabase`):
    /// services previously known there, or overlapping a new one, are replaced, and `range` is
    /// no longer stale. A new service overlapping an earlier new one is dropped.
    public mutating func store(_ discovered: [Service], discoveredIn range: ClosedRange<UInt16>) {
        var accepted: [Service] = []
        for candidate in discovered.sorted(by: { $0.service.startHandle < $1.service.startHandle }) {
            if let last = accepted.last, last.service.handleRange.overlaps(candidate.service.handleRange) { continue }
            accepted.append(candidate)
        }
        services.removeAll { old in
            old.service.handleRange.overlaps(range)
                || accepted.contains { $0.service.handleRange.overlaps(old.service.handleRange) }
        }
        services.append(contentsOf: accepted)
        services.sort { $0.service.startHandle < $1.service.startHandle }
        removeStale(range)
    }

    /// Forgets what is known of `range` (a Service Changed range, §7.1): every service
    /// overlapping it is removed, and the range, widened to those services' whole extent so that
    /// rediscovery finds them whole, becomes stale. Returns the widened range.
    @discardableResult
    public mutating func invalidate(range: ClosedRange<UInt16>) -> ClosedRange<UInt16> {
        var lower = range.lowerBound
        var upper = range.upperBound
        for entry in services where entry.service.handleRange.overlaps(range) {
            lower = min(lower, entry.service.startHandle)
            upper = max(upper, entry.service.endHandle)
        }
        let widened = lower...upper
        services.removeAll { $0.service.handleRange.overlaps(widened) }
        addStale(widened)
        return widened
    }

    /// Forgets everything (Database Out Of Sync, a new bond without a stored database, §2.5.2).
    public mutating func invalidateAll() {
        services = []
        staleRanges = [GATTClientSupport.all]
    }

    // MARK: Lookups by handle

    /// The service whose handle range holds `handle`.
    public func service(containing handle: UInt16) -> Service? {
        // The last service starting at or before `handle` is the only candidate.
        var low = 0
        var high = services.count
        while low < high {
            let middle = (low + high) / 2
            if services[middle].service.startHandle <= handle { low = middle + 1 } else { high = middle }
        }
        guard low > 0, services[low - 1].service.handleRange.contains(handle) else { return nil }
        return services[low - 1]
    }

    /// The characteristic whose handles (declaration through end) hold `handle`.
    public func characteristic(containing handle: UInt16) -> Characteristic? {
        service(containing: handle)?.characteristics.first { $0.characteristic.handleRange.contains(handle) }
    }

    /// The characteristic whose value is at `valueHandle` (routing a notification, §4.10).
    public func characteristic(valueHandle: UInt16) -> DiscoveredCharacteristic? {
        guard let found = characteristic(containing: valueHandle)?.characteristic,
            found.valueHandle == valueHandle
        else { return nil }
        return found
    }

    /// The descriptor at `handle`.
    public func descriptor(handle: UInt16) -> DiscoveredDescriptor? {
        characteristic(containing: handle)?.descriptors.first { $0.handle == handle }
    }

    /// What `handle` holds, nil when it is in no known service or discovery did not see it.
    public func attribute(at handle: UInt16) -> Attribute? {
        guard let entry = service(containing: handle) else { return nil }
        if entry.service.startHandle == handle { return .serviceDeclaration(entry.service) }
        if let include = entry.includedServices.first(where: { $0.handle == handle }) {
            return .include(include, in: entry.service)
        }
        guard let found = entry.characteristics.first(where: { $0.characteristic.handleRange.contains(handle) })
        else { return nil }
        let characteristic = found.characteristic
        if characteristic.declarationHandle == handle { return .characteristicDeclaration(characteristic) }
        if characteristic.valueHandle == handle { return .characteristicValue(characteristic) }
        return found.descriptors.first { $0.handle == handle }.map { .descriptor($0, of: characteristic) }
    }

    // MARK: Lookups by UUID

    /// The known services of type `uuid`, in handle order.
    public func services(withUUID uuid: BluetoothUUID) -> [DiscoveredService] {
        services.lazy.map(\.service).filter { $0.uuid == uuid }
    }

    /// The known characteristics of type `uuid`, in handle order.
    public func characteristics(withUUID uuid: BluetoothUUID) -> [DiscoveredCharacteristic] {
        services.flatMap { $0.characteristics.map(\.characteristic).filter { $0.uuid == uuid } }
    }

    /// The descriptors of type `uuid` of `characteristic`.
    public func descriptors(withUUID uuid: BluetoothUUID, of characteristic: DiscoveredCharacteristic)
        -> [DiscoveredDescriptor]
    {
        guard let found = self.characteristic(containing: characteristic.valueHandle),
            found.characteristic == characteristic
        else { return [] }
        return found.descriptors.filter { $0.uuid == uuid }
    }

    /// The Client Characteristic Configuration descriptor of `characteristic` (§3.3.3.3).
    public func clientCharacteristicConfiguration(of characteristic: DiscoveredCharacteristic)
        -> DiscoveredDescriptor?
    {
        descriptors(withUUID: BluetoothUUID(ClientCharacteristicConfiguration.uuid), of: characteristic).first
    }

    // MARK: Stale ranges

    /// Adds `range` to the stale ranges, merging those it overlaps or touches.
    private mutating func addStale(_ range: ClosedRange<UInt16>) {
        var lower = Int(range.lowerBound)
        var upper = Int(range.upperBound)
        var kept: [ClosedRange<UInt16>] = []
        for stale in staleRanges {
            if Int(stale.upperBound) + 1 < lower || Int(stale.lowerBound) > upper + 1 {
                kept.append(stale)
            } else {
                lower = min(lower, Int(stale.lowerBound))
                upper = max(upper, Int(stale.upperBound))
            }
        }
        kept.append(UInt16(lower)...UInt16(upper))
        staleRanges = kept.sorted { $0.lowerBound < $1.lowerBound }
    }

    /// Removes `range` from the stale ranges, splitting those it cuts.
    private mutating func removeStale(_ range: ClosedRange<UInt16>) {
        var kept: [ClosedRange<UInt16>] = []
        for stale in staleRanges {
            guard stale.overlaps(range) else {
                kept.append(stale)
                continue
            }
            if stale.lowerBound < range.lowerBound { kept.append(stale.lowerBound...(range.lowerBound - 1)) }
            if stale.upperBound > range.upperBound { kept.append((range.upperBound + 1)...stale.upperBound) }
        }
        staleRanges = kept
    }
}
