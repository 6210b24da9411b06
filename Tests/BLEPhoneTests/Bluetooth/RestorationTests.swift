import BLE
import Foundation
import Testing

@testable import BLEPhone

/// State preservation and restoration (Core Bluetooth Programming Guide, "Adding Support for
/// State Preservation and Restoration"; TN3115), and the radio's power.
@Suite("Phone: restoration and power")
struct RestorationTests {
    static let restoreID = "central"

    @Test(
        "Kill with a restore identifier keeps link and subscription; the new manager gets willRestoreState, then poweredOn, then the held notification"
    )
    func killAndRestore() async throws {
        try await BluetoothTestBed.run { bed in
            let first = await bed.launch(
                "com.example.app", modes: [.bluetoothCentral], restoreIdentifiers: [Self.restoreID])
            let central = await first.centralManager(restoreIdentifier: Self.restoreID)
            #expect(central.restoreIdentifier == Self.restoreID)
            var deviceEvents = bed.device.events.makeAsyncIterator()
            let (peripheral, stream, _) = try await bed.connectToDevice(central)
            try await peripheral.setNotifyValue(true, for: stream)
            let local = try await bed.waitForSubscription(&deviceEvents)

            // Memory pressure purges the app: its instance is gone, the system keeps its state.
            bed.log.hold(first.app)
            first.executor.discard()
            await bed.system.appTerminated(first.app, reason: .memoryPressure)
            let ids = await bed.system.restoreIdentifiers(for: first.app)
            #expect(ids.centrals == [Self.restoreID] && ids.peripherals.isEmpty)
            let record = try #require(await bed.system.restorationRecord(for: first.app))
            #expect(record.centrals.first?.peripherals.map(\.state) == [.connected])
            #expect(record.centrals.first?.subscriptions.map(\.valueHandle) == [stream.handle])
            try await bed.sleep(for: .seconds(60))
            #expect(await bed.device.connectedCentrals.count == 1)

            // The device notifies: the phone holds the event for a relaunch.
            #expect(try await bed.device.updateValue([9, 9], for: local))
            try await bed.sleep(for: .seconds(1))
            #expect(bed.log.entries(of: first.app, .valueUpdate).count == 1)

            let second = await bed.launch(
                "com.example.app", modes: [.bluetoothCentral], restoreIdentifiers: [Self.restoreID], launchNumber: 2)
            await bed.set(second, .background)
            let restored = await second.centralManager(restoreIdentifier: Self.restoreID)
            bed.log.release(second.app)
            var events = restored.events.makeAsyncIterator()
            guard case .willRestoreState(let state)? = await events.next() else {
                Issue.record("the first event is not willRestoreState")
                return
            }
            #expect(state.peripherals.map(\.identifier) == [peripheral.identifier])
            #expect(await state.peripherals.first?.state == .connected)
            #expect(state.subscriptions.map(\.characteristic.uuid) == [BluetoothTestBed.streamUUID])
            #expect(state.scanOptions == nil)
            guard case .stateUpdated(.poweredOn)? = await events.next() else {
                Issue.record("the second event is not the state")
                return
            }
            guard case .valueUpdated(let from, let characteristic, let value)? = await events.next() else {
                Issue.record("the held notification did not follow")
                return
            }
            #expect(from === state.peripherals.first)
            #expect(characteristic.uuid == BluetoothTestBed.streamUUID)
            #expect(value == [9, 9])
            #expect(await bed.phone.trace.contains { if case .restored = $0.event { true } else { false } })
        }
    }

    @Test("Kill without a restore identifier: the app's link ends and it is forgotten")
    func killWithoutRestoreIdentifier() async throws {
        try await BluetoothTestBed.run { bed in
            let context = await bed.launch("com.example.app", modes: [.bluetoothCentral])
            let central = await context.centralManager()
            let (peripheral, _, _) = try await bed.connectToDevice(central)
            let system = try #require(await bed.system.known([peripheral.identifier]).first)
            context.executor.discard()
            await bed.system.appTerminated(context.app, reason: .memoryPressure)
            try await bed.sleep(for: .seconds(1))
            #expect(await system.state == .disconnected)
            #expect(await bed.device.connectedCentrals.isEmpty)
            #expect(await bed.system.restorationRecord(for: context.app) == nil)
        }
    }

    @Test("A restore identifier the declaration does not list is ignored (warning): nothing is preserved")
    func undeclaredRestoreIdentifier() async throws {
        try await BluetoothTestBed.run { bed in
            let context = await bed.launch("com.example.app", modes: [.bluetoothCentral])
            let central = await context.centralManager(restoreIdentifier: "undeclared")
            #expect(central.restoreIdentifier == nil)
            #expect(await bed.system.statistics.undeclaredRestoreIdentifiers == 1)
            #expect(await bed.system.restorationRecord(for: context.app) == nil)
        }
    }

    @Test(
        "A pending connect and a scan are preserved; the restored peripheral is .connecting; the record round-trips as JSON"
    )
    func pendingAndScanPreserved() async throws {
        try await BluetoothTestBed.run { bed in
            let first = await bed.launch(
                "com.example.app", modes: [.bluetoothCentral], restoreIdentifiers: [Self.restoreID])
            let central = await first.centralManager(restoreIdentifier: Self.restoreID)
            var events = central.events.makeAsyncIterator()
            try await central.scanForPeripherals(withServices: [BluetoothTestBed.serviceUUID])
            let peripheral = try await bed.next(&events) { event -> PhonePeripheral? in
                if case .discovered(let peripheral, _, _) = event { return peripheral }
                return nil
            }
            await bed.device.stopAdvertising()
            try await central.connect(peripheral, options: PhoneConnectOptions(notifyOnConnection: true))
            first.executor.discard()
            await bed.system.appTerminated(first.app, reason: .crash)
            let record = try #require(await bed.system.restorationRecord(for: first.app))
            let decoded = try JSONDecoder().decode(RestorationRecord.self, from: JSONEncoder().encode(record))
            #expect(decoded == record)
            #expect(record.centrals.first?.scan?.services == ["FFF0"])
            #expect(record.centrals.first?.peripherals.first?.state == .connecting)
            #expect(record.centrals.first?.peripherals.first?.options.notifyOnConnection == true)

            let second = await bed.launch(
                "com.example.app", modes: [.bluetoothCentral], restoreIdentifiers: [Self.restoreID], launchNumber: 2)
            let restored = await second.centralManager(restoreIdentifier: Self.restoreID)
            var restoredEvents = restored.events.makeAsyncIterator()
            guard case .willRestoreState(let state)? = await restoredEvents.next() else {
                Issue.record("no willRestoreState")
                return
            }
            #expect(await state.peripherals.first?.state == .connecting)
            #expect(state.scanServices == [BluetoothTestBed.serviceUUID])
            #expect(state.wasScanning)
        }
    }

    @Test(
        "A merely resumed app makes no new manager and gets no willRestoreState; a second manager with the same identifier in one instance is not restored"
    )
    func noRestoreWithinOneInstance() async throws {
        try await BluetoothTestBed.run { bed in
            let context = await bed.launch(
                "com.example.app", modes: [.bluetoothCentral], restoreIdentifiers: [Self.restoreID])
            _ = await context.centralManager(restoreIdentifier: Self.restoreID)
            let again = await context.centralManager(restoreIdentifier: Self.restoreID)
            #expect(again.restoreIdentifier == nil)
            var events = again.events.makeAsyncIterator()
            guard case .stateUpdated? = await events.next() else {
                Issue.record("the first event is not the state")
                return
            }
        }
    }

    @Test("Radio off: every manager gets poweredOff, scans stop, links go down; on again: poweredOn")
    func powerOffAndOn() async throws {
        try await BluetoothTestBed.run { bed in
            let context = await bed.launch("com.example.app")
            let central = await context.centralManager()
            let (peripheral, _, events) = try await bed.connectToDevice(central)
            var appEvents = events
            let other = await bed.launch("com.example.scanner")
            let scanner = await other.centralManager()
            try await scanner.scanForPeripherals(withServices: nil)
            #expect(await bed.system.central.isScanning)

            await bed.system.radioPowerChanged(on: false)
            let off = try await bed.next(&appEvents) { event -> ManagerState? in
                if case .stateUpdated(let state) = event { return state }
                return nil
            }
            #expect(off == .poweredOff)
            let reason = try await bed.next(&appEvents) { event -> HCIStatus? in
                if case .disconnected(_, let reason) = event { return reason }
                return nil
            }
            // This side ended the link (Core 5.4 Vol 4 Part E §7.7.5: 0x16).
            #expect(reason == .connectionTerminatedByLocalHost)
            #expect(await peripheral.state == .disconnected)
            #expect(await bed.system.central.isScanning == false)
            #expect(await scanner.isScanning == false)
            #expect(await central.state == .poweredOff)
            await #expect(throws: BLEError.notPoweredOn(.poweredOff)) {
                try await central.scanForPeripherals(withServices: nil)
            }

            await bed.system.radioPowerChanged(on: true)
            let on = try await bed.next(&appEvents) { event -> ManagerState? in
                if case .stateUpdated(let state) = event { return state }
                return nil
            }
            #expect(on == .poweredOn)
            #expect(await central.state == .poweredOn)
        }
    }

    @Test("OverflowArea: one bit per UUID, stable, 16-bit and 128-bit forms of one UUID alike")
    func overflowBits() {
        let short: BluetoothUUID = 0x180D
        let long = BluetoothUUID("0000180D-0000-1000-8000-00805F9B34FB")!
        #expect(OverflowArea.bit(for: short) == OverflowArea.bit(for: long))
        let data = OverflowArea.manufacturerData(for: [short])
        #expect(data.companyIdentifier == 0x004C)
        #expect(data.data.count == 17)
        var advertisement = AdvertisementData()
        advertisement.manufacturerData = data
        #expect(OverflowArea.contains(short, in: advertisement))
        #expect((0..<128).contains(OverflowArea.bit(for: BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!)))
    }
}
