import BLEWire

extension AttributeDatabase {
    /// Adds services at run time (Core Bluetooth's `add(_:)`), without moving any existing
    /// handle: the new definitions take one range after the last handle or, when that would pass
    /// 0xFFFF, the first gap left by a removal that holds them all. Returns their handles; the
    /// range to announce in Service Changed (Core 5.4 Vol 3 Part G §7.1) spans them.
    @discardableResult
    public mutating func add(_ newServices: [GATTService]) throws(AttributeDatabaseError) -> [GATTServiceHandles] {
        guard !newServices.isEmpty else { return [] }
        let needed = newServices.reduce(0) { $0 + Self.attributeCount(of: $1) }
        guard let start = freeRange(of: needed) else { throw .databaseFull(needed: needed) }
        let built = try Self.build(newServices, startingAt: start, existing: definitions, existingHandles: services)
        insert(built, definitions: newServices)
        refreshHash()
        return built.map(\.handles)
    }

    /// Adds one service; see `add(_:)` for many.
    @discardableResult
    public mutating func add(_ service: GATTService) throws(AttributeDatabaseError) -> GATTServiceHandles {
        let handles = try add([service])
        return handles[0]
    }

    /// Removes the service whose declaration is at `handle` (Core Bluetooth's `remove(_:)`),
    /// leaving its handles free. Returns the range to announce in Service Changed (§7.1).
    /// A service still included by another one, and the GAP and GATT services, stay.
    @discardableResult
    public mutating func removeService(at handle: UInt16) throws(AttributeDatabaseError) -> ClosedRange<UInt16> {
        guard let serviceIndex = services.firstIndex(where: { $0.range.lowerBound == handle }) else {
            throw .serviceNotFound(handle: handle)
        }
        let service = services[serviceIndex]
        if service.uuid == GATTAttributeType.gapService || service.uuid == GATTAttributeType.gattService {
            throw .mandatoryService(service.uuid)
        }
        for attribute in attributes where attribute.type == GATTAttributeType.include {
            guard case .value(let value) = attribute.storage, value.count >= 2 else { continue }
            if UInt16(value[0]) | UInt16(value[1]) << 8 == handle {
                throw .serviceIsIncluded(byServiceAt: attribute.serviceHandle)
            }
        }
        removeService(atIndex: serviceIndex)
        refreshHash()
        return service.range
    }

    /// The first handle of a free run of `count` handles: after the last handle when it fits,
    /// else the lowest gap between services that fits.
    func freeRange(of count: Int) -> UInt16? {
        let afterLast = Int(lastHandle) + 1
        if afterLast + count - 1 <= 0xFFFF { return UInt16(afterLast) }
        var next = 1
        for service in services {
            if Int(service.range.lowerBound) - next >= count { return UInt16(next) }
            next = Int(service.range.upperBound) + 1
        }
        return nil
    }
}
