import BLEHost
import BLEWire

/// A service as discovered on the current connection, with what was found inside it.
struct ServiceRecord {
    var service: DiscoveredService
    /// Found by `discoverServices` (listed in `Peripheral.services`), not only as an include.
    var isListed: Bool
    /// Declaration handles of the included services found (nil until discovered).
    var includes: [UInt16]?
    var characteristics: [CharacteristicRecord]?
}

struct CharacteristicRecord {
    var discovered: DiscoveredCharacteristic
    var serviceUUID: BluetoothUUID
    var descriptors: [DescriptorRecord]?
    var value: [UInt8]?
    var isNotifying = false
}

struct DescriptorRecord {
    var discovered: DiscoveredDescriptor
    var value: [UInt8]?
}

extension Peripheral {
    // MARK: Snapshots

    func snapshot(_ record: ServiceRecord, visited: Set<UInt16> = []) -> Service {
        let start = record.service.startHandle
        // Includes may form a cycle on a hostile server: each service appears once per path.
        let included = record.includes.map { handles in
            handles.compactMap { handle -> Service? in
                guard !visited.contains(handle), let included = serviceRecords[handle] else { return nil }
                return snapshot(included, visited: visited.union([start]))
            }
        }
        return Service(
            uuid: record.service.uuid, isPrimary: record.service.isPrimary, handleRange: record.service.handleRange,
            includedServices: included, characteristics: record.characteristics?.map { snapshot($0) },
            owner: identifier)
    }

    func snapshot(_ record: CharacteristicRecord) -> Characteristic {
        Characteristic(
            uuid: record.discovered.uuid, properties: record.discovered.properties,
            declarationHandle: record.discovered.declarationHandle, handle: record.discovered.valueHandle,
            serviceUUID: record.serviceUUID, value: record.value, isNotifying: record.isNotifying,
            descriptors: record.descriptors?.map { snapshot($0, of: record.discovered.valueHandle) }, owner: identifier)
    }

    func snapshot(_ record: DescriptorRecord, of characteristicHandle: UInt16) -> Descriptor {
        Descriptor(
            uuid: record.discovered.uuid, handle: record.discovered.handle,
            characteristicHandle: characteristicHandle, value: record.value, owner: identifier)
    }

    // MARK: Look-ups

    /// The record of `service`, which must have been discovered on this connection.
    func locate(_ service: Service) throws(BLEError) -> ServiceRecord {
        guard service.owner == identifier, let record = serviceRecords[service.handleRange.lowerBound],
            record.service.uuid == service.uuid, record.service.handleRange == service.handleRange
        else { throw .unknownAttribute }
        return record
    }

    /// Where the record of a characteristic value handle is: service handle and index.
    func characteristicPosition(valueHandle: UInt16) -> (UInt16, Int)? {
        for (start, record) in serviceRecords where record.service.handleRange.contains(valueHandle) {
            if let index = record.characteristics?.firstIndex(where: { $0.discovered.valueHandle == valueHandle }) {
                return (start, index)
            }
        }
        return nil
    }

    /// The record of `characteristic`, which must have been discovered on this connection.
    func locate(_ characteristic: Characteristic) throws(BLEError) -> (UInt16, Int, CharacteristicRecord) {
        guard characteristic.owner == identifier,
            case let (start, index)? = characteristicPosition(valueHandle: characteristic.handle),
            let record = serviceRecords[start]?.characteristics?[index], record.discovered.uuid == characteristic.uuid
        else { throw .unknownAttribute }
        return (start, index, record)
    }

    /// Where the record of `descriptor` is: service handle, characteristic index, descriptor
    /// index.
    func locate(_ descriptor: Descriptor) throws(BLEError) -> (UInt16, Int, Int) {
        guard descriptor.owner == identifier,
            case let (start, index)? = characteristicPosition(valueHandle: descriptor.characteristicHandle),
            let position = serviceRecords[start]?.characteristics?[index].descriptors?.firstIndex(where: {
                $0.discovered.handle == descriptor.handle && $0.discovered.uuid == descriptor.uuid
            })
        else { throw .unknownAttribute }
        return (start, index, position)
    }

    /// A GATT client on the current connection, and the connection's count.
    func client() throws(BLEError) -> (GATTClient<HostATTBearer>, UInt64) {
        guard case .connected(let handle) = link else { throw .notConnected }
        return (GATTClient(bearer: HostATTBearer(host: stack.host, connection: handle)), connectionCount)
    }

    /// After a procedure: its results belong to the connection it ran on.
    func checkStillConnected(_ count: UInt64) throws(BLEError) {
        guard count == connectionCount, case .connected = link else { throw .notConnected }
    }
}
