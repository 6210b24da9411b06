import BLE
import Foundation

/// A remote peripheral as one app's central manager sees it (Core Bluetooth's `CBPeripheral`):
/// a handle on the system's peripheral — the same device for every app — whose calls the
/// system performs and whose answers come back through the phone (a suspended app gets them
/// when it runs again, or is woken for them).
public actor PhonePeripheral {
    /// The system peripheral's identifier: the same for every app on the phone.
    public nonisolated let identifier: UUID
    nonisolated let peripheral: Peripheral
    nonisolated let manager: PhoneCentralManager

    public nonisolated var unownedExecutor: UnownedSerialExecutor { manager.unownedExecutor }

    init(peripheral: Peripheral, manager: PhoneCentralManager) {
        self.identifier = peripheral.identifier
        self.peripheral = peripheral
        self.manager = manager
    }

    private nonisolated var system: SystemBluetooth { manager.system }

    /// The advertised name, the latest seen.
    public var name: String? {
        get async { await peripheral.name }
    }

    /// The state as this app sees it: `.connected` once its connect completed, even when
    /// another app's connect brought the link up; `.disconnected` once it cancelled, even
    /// when the link stays up for another app.
    public var state: PeripheralState {
        get async { await system.state(of: identifier, for: manager.app, manager.id) }
    }

    /// The services discovered on the current link (by any app), nil until then.
    public var services: [Service]? {
        get async { await peripheral.services }
    }

    public func discoverServices(_ serviceUUIDs: [BluetoothUUID]? = nil) async throws(BLEError) -> [Service] {
        try await system.perform(.servicesDiscovered, "discover services", on: identifier, for: manager.app, manager.id)
        {
            peripheral throws(BLEError) in try await peripheral.discoverServices(serviceUUIDs)
        }
    }

    public func discoverCharacteristics(_ characteristicUUIDs: [BluetoothUUID]? = nil, for service: Service)
        async throws(BLEError) -> [Characteristic]
    {
        try await system.perform(
            .servicesDiscovered, "discover characteristics of \(service.uuid)", on: identifier, for: manager.app,
            manager.id
        ) { peripheral throws(BLEError) in
            try await peripheral.discoverCharacteristics(characteristicUUIDs, for: service)
        }
    }

    public func discoverDescriptors(for characteristic: Characteristic) async throws(BLEError) -> [Descriptor] {
        try await system.perform(
            .servicesDiscovered, "discover descriptors of \(characteristic.uuid)", on: identifier, for: manager.app,
            manager.id
        ) { peripheral throws(BLEError) in
            try await peripheral.discoverDescriptors(for: characteristic)
        }
    }

    /// Reads the characteristic's value (`didUpdateValueFor`, as an answer).
    public func readValue(for characteristic: Characteristic) async throws(BLEError) -> [UInt8] {
        try await system.perform(
            .readResponse, "read \(characteristic.uuid)", on: identifier, for: manager.app, manager.id
        ) { peripheral throws(BLEError) in
            try await peripheral.readValue(for: characteristic)
        }
    }

    /// Writes the value; with response, the answer comes back through the phone
    /// (`didWriteValueFor`); without response, nothing comes back.
    public func writeValue(_ data: [UInt8], for characteristic: Characteristic, type: WriteType) async throws(BLEError)
    {
        switch type {
        case .withResponse:
            try await system.perform(
                .writeResponse, "write \(characteristic.uuid)", on: identifier, for: manager.app, manager.id
            ) { peripheral throws(BLEError) in
                try await peripheral.writeValue(data, for: characteristic, type: .withResponse)
            }
        case .withoutResponse:
            try await system.writeWithoutResponse(
                data, for: characteristic, on: identifier, for: manager.app, manager.id)
        }
    }

    /// Subscribes this app to (or unsubscribes it from) the characteristic's notifications:
    /// the system writes the Client Characteristic Configuration only for the first app to
    /// subscribe and the last to leave; values come as `.valueUpdated` on the manager's events.
    public func setNotifyValue(_ enabled: Bool, for characteristic: Characteristic) async throws(BLEError) {
        try await system.setNotifyValue(enabled, for: characteristic, on: identifier, for: manager.app, manager.id)
    }

    /// The characteristic `uuid` of service `serviceUUID`, discovering what is not yet
    /// discovered (a convenience for scripted apps).
    public func characteristic(_ uuid: BluetoothUUID, inService serviceUUID: BluetoothUUID)
        async throws(BLEError) -> Characteristic
    {
        var service = await services?.first { $0.uuid == serviceUUID }
        if service == nil { service = try await discoverServices([serviceUUID]).first { $0.uuid == serviceUUID } }
        guard let service else { throw .unknownAttribute }
        if let found = service.characteristics?.first(where: { $0.uuid == uuid }) { return found }
        guard let found = try await discoverCharacteristics([uuid], for: service).first(where: { $0.uuid == uuid })
        else { throw .unknownAttribute }
        return found
    }
}

extension PhonePeripheral: Hashable, CustomStringConvertible {
    public static func == (lhs: PhonePeripheral, rhs: PhonePeripheral) -> Bool { lhs === rhs }
    public nonisolated func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    public nonisolated var description: String { "peripheral \(identifier)" }
}
