import BLEHost
import BLEWire
import Logging

/// A service as published: its definition and the handles the database gave it.
struct PublishedService {
    let definition: GATTService
    let handles: GATTServiceHandles
}

/// Publishing services (Core 5.4 Vol 3 Part G §3; Core Bluetooth's `add(_:)`, `remove(_:)`,
/// `removeAllServices()`).
extension PeripheralManager {
    /// Publishes a service: its attributes take a new handle range, existing handles never move.
    /// Returns the service as published, with its handles.
    @discardableResult
    public func add(_ service: MutableService) throws(BLEError) -> Service {
        try checkPoweredOn()
        let added = server.withServer { server -> Result<GATTServiceHandles, AttributeDatabaseError> in
            do throws(AttributeDatabaseError) {
                return .success(try server.add([service])[0])
            } catch {
                return .failure(error)
            }
        }
        let handles: GATTServiceHandles
        switch added {
        case .success(let value): handles = value
        case .failure(let error): throw .database(error)
        }
        let entry = PublishedService(definition: service, handles: handles)
        published[handles.range.lowerBound] = entry
        announceChange(of: handles.range)
        return snapshot(entry)
    }

    /// Removes a published service (its handles are left free).
    public func remove(_ service: Service) throws(BLEError) {
        try checkPoweredOn()
        guard service.owner == owner, let entry = published[service.handleRange.lowerBound] else {
            throw .unknownAttribute
        }
        let removed = server.withServer { server -> Result<ClosedRange<UInt16>, AttributeDatabaseError> in
            do throws(AttributeDatabaseError) {
                return .success(try server.removeService(at: entry.handles.range.lowerBound))
            } catch {
                return .failure(error)
            }
        }
        switch removed {
        case .success(let range): announceChange(of: range)
        case .failure(let error): throw .database(error)
        }
        published[entry.handles.range.lowerBound] = nil
        let valueHandles = Set(entry.handles.characteristics.map(\.valueHandle))
        for connection in subscriptions.keys {
            subscriptions[connection] = subscriptions[connection]?.filter { !valueHandles.contains($0.key) }
        }
        // Callers of `updateValueWhenReady` for these characteristics find them gone.
        wakeUpdateWaiters()
    }

    /// Sends a Service Changed indication naming `range` (Core 5.4 Vol 3 Part G §7.1) to every
    /// connected central that enabled it; the server marks the others change-unaware and tells
    /// them at their next request (§2.5.2.1). Each goes after the indications already queued
    /// on that link (one outstanding per bearer, Vol 3 Part F §3.3.2).
    private func announceChange(of range: ClosedRange<UInt16>) {
        let indications = server.withServer { $0.serviceChanged(range: range) }
        let host = stack.host
        for (connection, pdu) in indications {
            guard case .handleValueIndication(let indication) = pdu else { continue }
            let value = Array(indication.value)
            let attributeHandle = indication.handle
            stack.spawn {
                do {
                    try await host.indicate(value, attributeHandle: attributeHandle, on: connection.handle)
                } catch {
                    let link = connection.handle
                    host.logger.notice("Service Changed indication on link \(link.rawValue) not confirmed: \(error)")
                }
            }
        }
    }

    /// Removes every published service, the included ones last.
    public func removeAllServices() throws(BLEError) {
        try checkPoweredOn()
        // A service still included by another cannot go first (Vol 3 Part G §3.2).
        var remaining = published.values.sorted { $0.handles.range.lowerBound > $1.handles.range.lowerBound }
        while !remaining.isEmpty {
            let before = remaining.count
            for entry in remaining {
                if (try? remove(snapshot(entry))) != nil {
                    remaining.removeAll { $0.handles.range == entry.handles.range }
                }
            }
            guard remaining.count < before else { break }
        }
    }

    /// The services published, in handle order.
    public var services: [Service] {
        published.values.sorted { $0.handles.range.lowerBound < $1.handles.range.lowerBound }.map { snapshot($0) }
    }

    // MARK: Snapshots

    func snapshot(_ entry: PublishedService) -> Service {
        let included = entry.definition.includedServices.compactMap { definition in
            published.values.filter { $0.definition == definition }.min {
                $0.handles.range.lowerBound < $1.handles.range.lowerBound
            }
        }
        return Service(
            uuid: entry.handles.uuid, isPrimary: entry.handles.isPrimary, handleRange: entry.handles.range,
            includedServices: included.map { snapshot($0) },
            characteristics: entry.handles.characteristics.compactMap {
                characteristicSnapshot(valueHandle: $0.valueHandle)
            },
            owner: owner)
    }

    /// A snapshot of the published characteristic whose value is at `valueHandle`: its stored
    /// value, whether a central subscribed, its descriptors.
    func characteristicSnapshot(valueHandle: UInt16) -> Characteristic? {
        guard let entry = publishedService(containing: valueHandle),
            let handles = entry.handles.characteristics.first(where: { $0.valueHandle == valueHandle })
        else { return nil }
        let (properties, value, descriptorValues) = server.withServer { server in
            let database = server.database
            var properties: CharacteristicProperties = []
            if case .characteristicValue(let declared, _, _)? = database.attribute(at: valueHandle)?.role {
                properties = declared
            }
            let descriptors = handles.descriptorHandles.map { handle in
                (handle, database.attribute(at: handle)?.type, Self.stored(database.attribute(at: handle)))
            }
            return (properties, Self.stored(database.attribute(at: valueHandle)), descriptors)
        }
        let descriptors = descriptorValues.compactMap { handle, type, value in
            type.map {
                Descriptor(uuid: $0, handle: handle, characteristicHandle: valueHandle, value: value, owner: owner)
            }
        }
        let subscribed = subscriptions.values.contains { $0[valueHandle] != nil }
        return Characteristic(
            uuid: handles.uuid, properties: properties, declarationHandle: handles.declarationHandle,
            handle: valueHandle, serviceUUID: entry.handles.uuid, value: value, isNotifying: subscribed,
            descriptors: descriptors, owner: owner)
    }

    /// The published service whose range holds `handle`: the database finds it by binary
    /// search (a scan of `published` would make publishing n services cost n²).
    func publishedService(containing handle: UInt16) -> PublishedService? {
        let start = server.withServer { $0.database.service(containing: handle)?.range.lowerBound }
        return start.flatMap { published[$0] }
    }

    /// The published characteristic `characteristic` names, and its definition.
    func locate(_ characteristic: Characteristic) throws(BLEError) -> (PublishedService, GATTCharacteristic) {
        guard characteristic.owner == owner,
            let entry = publishedService(containing: characteristic.handle),
            let index = entry.handles.characteristics.firstIndex(where: { $0.valueHandle == characteristic.handle })
        else { throw .unknownAttribute }
        return (entry, entry.definition.characteristics[index])
    }

    private static func stored(_ attribute: ServerAttribute?) -> [UInt8]? {
        guard case .value(let value)? = attribute?.storage else { return nil }
        return value
    }
}
