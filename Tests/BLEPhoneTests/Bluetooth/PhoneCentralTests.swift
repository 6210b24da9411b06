import BLE
import Foundation
import Testing

@testable import BLEPhone

/// Core Bluetooth through the phone: an app's central manager is a client of the system's
/// (Core Bluetooth Programming Guide; phone-rules.md).
@Suite("Phone: central manager through the system service")
struct PhoneCentralTests {
    @Test(
        "Scan, connect, discover, write and subscribe through the phone; a notification is a .valueUpdate delivery keyed by peripheral and characteristic"
    )
    func scanConnectWriteNotify() async throws {
        try await BluetoothTestBed.run { bed in
            let context = await bed.launch("com.example.app")
            let central = await context.centralManager()
            var deviceEvents = bed.device.events.makeAsyncIterator()
            let (peripheral, stream, events) = try await bed.connectToDevice(central)
            var appEvents = events
            #expect(await peripheral.state == .connected)
            #expect(await peripheral.name == BluetoothTestBed.deviceName)

            let control = try await peripheral.characteristic(
                BluetoothTestBed.controlUUID, inService: BluetoothTestBed.serviceUUID)
            try await peripheral.writeValue([7, 8], for: control, type: .withResponse)
            #expect(try await peripheral.readValue(for: control) == [7, 8])

            try await peripheral.setNotifyValue(true, for: stream)
            let local = try await bed.waitForSubscription(&deviceEvents)
            #expect(try await bed.device.updateValue([1, 2, 3], for: local))
            let (updated, value) = try await bed.next(&appEvents) { event -> (Characteristic, [UInt8])? in
                if case .valueUpdated(_, let characteristic, let value) = event { return (characteristic, value) }
                return nil
            }
            #expect(updated.uuid == BluetoothTestBed.streamUUID)
            #expect(value == [1, 2, 3])

            let app = context.app
            let kinds = bed.log.entries.filter { $0.app == app }.map(\.kind)
            #expect(kinds.starts(with: [.discovery, .connection]))
            #expect(kinds.contains(.writeResponse) && kinds.contains(.readResponse))
            #expect(kinds.contains(.notificationStateUpdate))
            let update = try #require(bed.log.entries(of: app, .valueUpdate).first)
            #expect(update.coalescingKey == "\(peripheral.identifier) \(stream.handle)")
            #expect(update.manager == central.id)
            #expect(update.alert == nil)
        }
    }

    @Test("A manager's first event is its state (centralManagerDidUpdateState)")
    func firstEventIsState() async throws {
        try await BluetoothTestBed.run { bed in
            let context = await bed.launch("com.example.app")
            let central = await context.centralManager()
            var events = central.events.makeAsyncIterator()
            guard case .stateUpdated(let state)? = await events.next() else {
                Issue.record("the first event is not a state update")
                return
            }
            #expect(state == .poweredOn)
            #expect(await central.state == .poweredOn)
        }
    }

    @Test("Several apps hold one link: a cancel by one ends only its hold; the last one's cancel ends the link")
    func sharedLink() async throws {
        try await BluetoothTestBed.run { bed in
            let first = await bed.launch("com.example.first")
            let second = await bed.launch("com.example.second")
            let firstCentral = await first.centralManager()
            let secondCentral = await second.centralManager()
            let (firstPeripheral, _, _) = try await bed.connectToDevice(firstCentral)
            // The second app connects to the same device: the link exists, it has it at once.
            let secondPeripheral = try #require(
                await secondCentral.retrievePeripherals(withIdentifiers: [firstPeripheral.identifier]).first)
            var secondEvents = secondCentral.events.makeAsyncIterator()
            try await secondCentral.connect(secondPeripheral)
            _ = try await bed.next(&secondEvents) { event -> Bool? in
                if case .connected = event { return true }
                return nil
            }
            let system = try #require(await bed.system.known([firstPeripheral.identifier]).first)

            await firstCentral.cancelPeripheralConnection(firstPeripheral)
            try await bed.sleep(for: .seconds(1))
            #expect(await firstPeripheral.state == .disconnected)
            #expect(await secondPeripheral.state == .connected)
            #expect(await system.state == .connected)
            #expect(await bed.device.connectedCentrals.count == 1)

            await secondCentral.cancelPeripheralConnection(secondPeripheral)
            try await bed.sleep(for: .seconds(1))
            #expect(await system.state == .disconnected)
            #expect(await bed.device.connectedCentrals.isEmpty)
            let reasons = bed.log.entries.filter { $0.kind == .disconnection }.map(\.app.bundleIdentifier)
            #expect(reasons == ["com.example.first", "com.example.second"])
        }
    }

    @Test("A pending connect never times out: it completes when the device appears, an hour later")
    func pendingConnectWaits() async throws {
        try await BluetoothTestBed.run { bed in
            let context = await bed.launch("com.example.app")
            let central = await context.centralManager()
            var events = central.events.makeAsyncIterator()
            try await central.scanForPeripherals(withServices: [BluetoothTestBed.serviceUUID])
            let peripheral = try await bed.next(&events) { event -> PhonePeripheral? in
                if case .discovered(let peripheral, _, _) = event { return peripheral }
                return nil
            }
            await central.stopScan()
            await bed.device.stopAdvertising()
            try await central.connect(peripheral)
            try await bed.sleep(for: .seconds(3600))
            #expect(await peripheral.state == .connecting)
            #expect(bed.log.entries(of: context.app, .connectionFailure).isEmpty)
            try await bed.device.startAdvertising(
                AdvertisementData(localName: "headset", serviceUUIDs: [BluetoothTestBed.serviceUUID]))
            _ = try await bed.next(&events) { event -> Bool? in
                if case .connected = event { return true }
                return nil
            }
            #expect(await peripheral.state == .connected)
        }
    }

    @Test("NotifyOnConnection / Disconnection / Notification give the delivery an alert text; without them none")
    func alerts() async throws {
        try await BluetoothTestBed.run { bed in
            let context = await bed.launch("com.example.app")
            let central = await context.centralManager()
            var deviceEvents = bed.device.events.makeAsyncIterator()
            let options = PhoneConnectOptions(
                notifyOnConnection: true, notifyOnDisconnection: true, notifyOnNotification: true)
            let (peripheral, stream, events) = try await bed.connectToDevice(central, options: options)
            var appEvents = events
            try await peripheral.setNotifyValue(true, for: stream)
            let local = try await bed.waitForSubscription(&deviceEvents)
            try await bed.device.updateValue([1], for: local)
            _ = try await bed.next(&appEvents) { event -> Bool? in
                if case .valueUpdated = event { return true }
                return nil
            }
            let app = context.app
            #expect(bed.log.entries(of: app, .connection).map(\.alert) == ["com.example.app: connected to \"headset\""])
            #expect(
                bed.log.entries(of: app, .valueUpdate).map(\.alert) == [
                    "com.example.app: notification from \"headset\""
                ])
            #expect(bed.log.entries(of: app, .discovery).allSatisfy { $0.alert == nil })
            // The device goes away (power off: Remote Device Terminated, 0x15): the disconnection alert.
            await bed.device.powerOff()
            _ = try await bed.next(&appEvents) { event -> Bool? in
                if case .disconnected = event { return true }
                return nil
            }
            #expect(
                bed.log.entries(of: app, .disconnection).map(\.alert) == ["com.example.app: \"headset\" disconnected"])
        }
    }

    @Test("With several apps asking for the alert, only the most recently foregrounded gets it")
    func alertToMostRecentlyForegrounded() async throws {
        try await BluetoothTestBed.run { bed in
            let options = PhoneConnectOptions(notifyOnConnection: true)
            let first = await bed.launch("com.example.first")
            let firstCentral = await first.centralManager()
            let (peripheral, _, _) = try await bed.connectToDevice(firstCentral, options: options)
            await firstCentral.cancelPeripheralConnection(peripheral)
            try await bed.sleep(for: .seconds(1))
            let second = await bed.launch("com.example.second")
            let secondCentral = await second.centralManager()
            await bed.set(first, .background)
            await bed.set(second, .background)
            // Both ask again; the second came to the front last.
            try await firstCentral.connect(peripheral, options: options)
            let secondPeripheral = try #require(
                await secondCentral.retrievePeripherals(withIdentifiers: [peripheral.identifier]).first)
            try await secondCentral.connect(secondPeripheral, options: options)
            try await bed.sleep(for: .seconds(2))
            let connections = bed.log.entries.filter { $0.kind == .connection }
            #expect(connections.count == 3)
            let last = connections.suffix(2)
            #expect(last.compactMap(\.alert) == ["com.example.second: connected to \"headset\""])
        }
    }
}
