import BLE
import Foundation
import Testing

@testable import BLEPhone

/// An app's peripheral manager through the system's one GATT server (Core Bluetooth's
/// `CBPeripheralManager`; Core Bluetooth Programming Guide, "Performing Common Peripheral Role
/// Tasks", "Adding Support for State Preservation and Restoration").
@Suite("Phone: peripheral manager through the system service")
struct PhonePeripheralManagerTests {
    static let serviceUUID = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let readUUID = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let notifyUUID = BluetoothUUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")!

    static let service = MutableService(
        uuid: serviceUUID,
        characteristics: [
            MutableCharacteristic(
                uuid: readUUID, properties: [.read, .write], permissions: [.readable, .writeable], value: .dynamic),
            MutableCharacteristic(uuid: notifyUUID, properties: .notify, permissions: .readable, value: .dynamic),
        ])

    /// A watch-like central device that connects to the phone's app service.
    static func connectDevice(on bed: BluetoothTestBed) async throws -> (
        CentralManager, Peripheral, [BluetoothUUID: Characteristic]
    ) {
        let device = await CentralManager(radio: .virtual(bed.radio, position: AirPosition(x: -2, y: 0, z: 0)))
        try await device.powerOn()
        var discoveries = try await device.scanForPeripherals(withServices: [serviceUUID]).makeAsyncIterator()
        guard let found = await discoveries.next() else { throw BedFailure("the phone's service was not found") }
        await device.stopScan()
        try await device.connect(found.peripheral)
        let service = try #require(try await found.peripheral.discoverServices([serviceUUID]).first)
        let characteristics = try await found.peripheral.discoverCharacteristics(for: service)
        return (device, found.peripheral, Dictionary(uniqueKeysWithValues: characteristics.map { ($0.uuid, $0) }))
    }

    @Test(
        "Reads, writes and subscriptions of the app's characteristics reach the app as .peripheral deliveries; updateValue notifies"
    )
    func requestsAndSubscriptions() async throws {
        try await BluetoothTestBed.run(advertising: false) { bed in
            let context = await bed.launch("com.example.peripheral", modes: [.bluetoothPeripheral])
            let manager = await context.peripheralManager()
            try await manager.add(Self.service)
            try await manager.startAdvertising(localName: "phoneapp", serviceUUIDs: [Self.serviceUUID])
            let app = Task(executorPreference: bed.simulation.executor) {
                var notify: Characteristic?
                for await event in manager.events {
                    switch event {
                    case .readRequest(var request):
                        request.value = [0x42]
                        await manager.respond(to: request, withResult: .success)
                    case .writeRequests(let requests):
                        await manager.respond(to: requests[0], withResult: .success)
                    case .subscribed(_, let characteristic):
                        notify = characteristic
                        _ = try? await manager.updateValue([5, 6], for: characteristic)
                    default:
                        continue
                    }
                    if notify != nil { return }
                }
            }
            let (device, peripheral, characteristics) = try await Self.connectDevice(on: bed)
            let read = try #require(characteristics[Self.readUUID])
            let notify = try #require(characteristics[Self.notifyUUID])
            #expect(try await peripheral.readValue(for: read) == [0x42])
            try await peripheral.writeValue([1], for: read, type: .withResponse)
            let values = try await peripheral.notifications(for: notify)
            var iterator = values.makeAsyncIterator()
            #expect(await iterator.next() == [5, 6])
            await app.value
            let kinds = bed.log.entries.filter { $0.app == context.app }.map(\.kind)
            #expect(kinds == [.readRequest, .writeRequest, .subscription])
            #expect(bed.log.entries.allSatisfy { $0.manager.role == .peripheral })
            await device.close()
        }
    }

    @Test(
        "Kill with a restore identifier: services stay published, advertising and subscribers stay; the new manager's willRestoreState lists them"
    )
    func peripheralManagerRestoration() async throws {
        try await BluetoothTestBed.run(advertising: false) { bed in
            let first = await bed.launch(
                "com.example.peripheral", modes: [.bluetoothPeripheral], restoreIdentifiers: ["server"])
            let manager = await first.peripheralManager(restoreIdentifier: "server")
            try await manager.add(Self.service)
            try await manager.startAdvertising(localName: "phoneapp", serviceUUIDs: [Self.serviceUUID])
            let (device, peripheral, characteristics) = try await Self.connectDevice(on: bed)
            try await peripheral.setNotifyValue(true, for: try #require(characteristics[Self.notifyUUID]))
            try await bed.sleep(for: .seconds(1))
            first.executor.discard()
            await bed.system.appTerminated(first.app, reason: .memoryPressure)
            // Still published and still advertised (in the background: the overflow area).
            #expect(await bed.system.peripheralManager?.services.contains { $0.uuid == Self.serviceUUID } == true)
            #expect(await bed.system.peripheralManager?.isAdvertising == true)
            let record = try #require(await bed.system.restorationRecord(for: first.app))
            #expect(record.peripheralManagers.first?.services == [Self.serviceUUID.description])
            #expect(
                record.peripheralManagers.first?.subscribedCentrals.map(\.characteristic) == [
                    Self.notifyUUID.description
                ])

            let second = await bed.launch(
                "com.example.peripheral", modes: [.bluetoothPeripheral], restoreIdentifiers: ["server"], launchNumber: 2
            )
            let restored = await second.peripheralManager(restoreIdentifier: "server")
            var events = restored.events.makeAsyncIterator()
            guard case .willRestoreState(let state)? = await events.next() else {
                Issue.record("the first event is not willRestoreState")
                return
            }
            #expect(state.services.map(\.uuid) == [Self.serviceUUID])
            #expect(state.advertisement == PhoneAdvertisement(localName: "phoneapp", serviceUUIDs: [Self.serviceUUID]))
            #expect(state.subscribedCentrals.map(\.characteristic.uuid) == [Self.notifyUUID])
            guard case .stateUpdated(.poweredOn)? = await events.next() else {
                Issue.record("the second event is not the state")
                return
            }
            // The restored app notifies its subscriber.
            let characteristic = try #require(state.subscribedCentrals.first?.characteristic)
            #expect(try await restored.updateValue([1], for: characteristic))
            await device.close()
        }
    }

    @Test("Kill without a restore identifier: the app's services are removed and its advertising stops")
    func killRemovesServices() async throws {
        try await BluetoothTestBed.run(advertising: false) { bed in
            let context = await bed.launch("com.example.peripheral", modes: [.bluetoothPeripheral])
            let manager = await context.peripheralManager()
            try await manager.add(Self.service)
            try await manager.startAdvertising(localName: "phoneapp", serviceUUIDs: [Self.serviceUUID])
            context.executor.discard()
            await bed.system.appTerminated(context.app, reason: .crash)
            #expect(await bed.system.peripheralManager?.services.contains { $0.uuid == Self.serviceUUID } == false)
            #expect(await bed.system.peripheralManager?.isAdvertising == false)
        }
    }

    @Test("Without an interceptor, deliveries go through Phone.offer and are traced")
    func throughThePhone() async throws {
        try await BluetoothTestBed.run { bed in
            await bed.system.interceptDeliveries(nil)
            let context = await bed.launch("com.example.app")
            let central = await context.centralManager()
            var events = central.events.makeAsyncIterator()
            try await central.scanForPeripherals(withServices: [BluetoothTestBed.serviceUUID])
            _ = try await bed.next(&events) { event -> Bool? in
                if case .discovered = event { return true }
                return nil
            }
            let trace = await bed.phone.trace
            #expect(
                trace.contains { entry in
                    if case .eventDelivered(.discovery, _) = entry.event { entry.app == context.app } else { false }
                })
        }
    }
}

/// The foreground-only rule for a peripheral manager's values.
@Suite("Phone: foreground-only peripheral manager")
struct ForegroundOnlyPeripheralTests {
    @Test(
        "A foreground-only app in the background: a remote read of its dynamic value fails at once, and is traced as dropped"
    )
    func remoteReadFailsInBackground() async throws {
        try await BluetoothTestBed.run(advertising: false) { bed in
            let context = await bed.launch("com.example.plain")
            let manager = await context.peripheralManager()
            try await manager.add(PhonePeripheralManagerTests.service)
            try await manager.startAdvertising(
                localName: "plain", serviceUUIDs: [PhonePeripheralManagerTests.serviceUUID])
            let (device, peripheral, characteristics) = try await PhonePeripheralManagerTests.connectDevice(on: bed)
            await bed.set(context, .background)
            let read = try #require(characteristics[PhonePeripheralManagerTests.readUUID])
            await #expect(throws: BLEError.self) { try await peripheral.readValue(for: read) }
            #expect(bed.log.entries(of: context.app, .readRequest).isEmpty)
            #expect(await bed.system.statistics.refusedReads == 1)
            let trace = await bed.phone.trace
            #expect(trace.contains { if case .eventDropped(.readRequest, _, _) = $0.event { true } else { false } })
            await device.close()
        }
    }
}
