import BLEController
import BLEHost
import BLEWire
import Testing

@testable import BLE

@Suite("Connecting and disconnecting (Core 5.4 Vol 3 Part C §9.3; Vol 4 Part E §7.8.12, §7.8.13, §7.1.6)")
struct ConnectionTests {
    @Test("connect makes the link and exchanges the ATT_MTU; both sides report it")
    func connect() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let peripheral = try await devices.discover().peripheral
            var centralEvents = devices.central.events.makeAsyncIterator()
            var managerEvents = devices.peripheralManager.events.makeAsyncIterator()
            try await devices.central.connect(peripheral)
            #expect(await peripheral.state == .connected)
            #expect(await peripheral.mtu == 247)
            #expect(await peripheral.maximumWriteValueLength(for: .withoutResponse) == 244)
            #expect(await peripheral.maximumWriteValueLength(for: .withResponse) == 512)
            guard case .connected(let connected)? = await centralEvents.next() else {
                Issue.record("no connected event")
                return
            }
            #expect(connected == peripheral)
            guard case .connected(let central)? = await managerEvents.next() else {
                Issue.record("no central connected")
                return
            }
            let centrals = await devices.peripheralManager.connectedCentrals
            #expect(centrals.map(\.identifier) == [central.identifier])
            #expect(centrals.first?.maximumUpdateValueLength == 244)
            // Connecting a connected peripheral returns at once.
            try await devices.central.connect(peripheral)
            // As in Core Bluetooth, advertising goes on after the connection.
            #expect(await devices.peripheralManager.isAdvertising)
        }
    }

    @Test("cancelPeripheralConnection disconnects: 0x16 here, Remote User Terminated Connection (0x13) there")
    func disconnect() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            var centralEvents = devices.central.events.makeAsyncIterator()
            var managerEvents = devices.peripheralManager.events.makeAsyncIterator()
            await devices.central.cancelPeripheralConnection(peripheral)
            #expect(await peripheral.state == .disconnected)
            var centralReason: HCIStatus?
            while centralReason == nil, let event = await centralEvents.next() {
                if case .disconnected(let gone, let reason) = event, gone == peripheral { centralReason = reason }
            }
            #expect(centralReason == .connectionTerminatedByLocalHost)
            var managerReason: HCIStatus?
            while managerReason == nil, let event = await managerEvents.next() {
                if case .disconnected(_, let reason) = event { managerReason = reason }
            }
            #expect(managerReason == .remoteUserTerminatedConnection)
            #expect(await devices.central.retrieveConnectedPeripherals(withServices: []).isEmpty)
            // And it connects again.
            try await devices.central.connect(peripheral)
            #expect(await peripheral.state == .connected)
        }
    }

    @Test("Connecting to a peripheral that stopped advertising times out in virtual time and is cancelled")
    func connectTimeout() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let peripheral = try await devices.discover().peripheral
            await devices.peripheralManager.stopAdvertising()
            var events = devices.central.events.makeAsyncIterator()
            let start = devices.now
            await #expect(throws: BLEError.connectionTimeout(.seconds(2))) {
                try await devices.central.connect(peripheral, options: ConnectOptions(timeout: .seconds(2)))
            }
            let elapsed = start.duration(to: devices.now)
            #expect(elapsed >= .seconds(2))
            #expect(elapsed < .seconds(3))
            #expect(await peripheral.state == .disconnected)
            guard case .failedToConnect(let failed, let error)? = await events.next() else {
                Issue.record("no failedToConnect event")
                return
            }
            #expect(failed == peripheral)
            #expect(error == .connectionTimeout(.seconds(2)))
            // The initiator was cancelled: a new attempt succeeds once the peripheral advertises.
            try await devices.peripheralManager.startAdvertising(Fixture.advertisement)
            try await devices.central.connect(peripheral)
            #expect(await peripheral.state == .connected)
        }
    }

    @Test("cancelPeripheralConnection cancels a pending connection attempt")
    func cancelAttempt() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let peripheral = try await devices.discover().peripheral
            await devices.peripheralManager.stopAdvertising()
            let central = devices.central
            let attempt = devices.spawn { try await central.connect(peripheral) }
            try await devices.sleep(for: .milliseconds(500))
            #expect(await peripheral.state == .connecting)
            await #expect(throws: BLEError.connectionInProgress) { try await central.connect(peripheral) }
            await central.cancelPeripheralConnection(peripheral)
            await #expect(throws: BLEError.connectionCancelled) { try await attempt.value }
            #expect(await peripheral.state == .disconnected)
        }
    }

    @Test("retrieveConnectedPeripherals lists connected peripherals offering the services discovered")
    func retrieveConnected() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            let central = devices.central
            #expect(await central.retrieveConnectedPeripherals(withServices: []) == [peripheral])
            #expect(await central.retrieveConnectedPeripherals(withServices: [Fixture.serviceUUID]).isEmpty)
            try await peripheral.discoverServices()
            #expect(await central.retrieveConnectedPeripherals(withServices: [Fixture.serviceUUID]) == [peripheral])
            #expect(await central.retrieveConnectedPeripherals(withServices: [0xAAAA]).isEmpty)
            #expect(await central.retrievePeripherals(withIdentifiers: [peripheral.identifier]) == [peripheral])
            #expect(await central.retrievePeripherals(withIdentifiers: [Central.unknownIdentifier]).isEmpty)
        }
    }

    @Test("readRSSI reads the link's RSSI (HCI Read RSSI, Vol 4 Part E §7.5.4)")
    func rssi() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            let rssi = try await peripheral.readRSSI()
            #expect((-100..<0).contains(rssi))
        }
    }

    @Test("A peripheral that is not connected refuses every GATT call and readRSSI at once")
    func notConnected() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, service, characteristics) = try await devices.connectAndDiscover()
            let stored = try #require(characteristics[Fixture.storedUUID])
            let stream = try #require(characteristics[Fixture.streamUUID])
            await devices.central.cancelPeripheralConnection(peripheral)
            await #expect(throws: BLEError.notConnected) { try await peripheral.discoverServices() }
            await #expect(throws: BLEError.notConnected) { try await peripheral.discoverCharacteristics(for: service) }
            await #expect(throws: BLEError.notConnected) { try await peripheral.discoverIncludedServices(for: service) }
            await #expect(throws: BLEError.notConnected) { try await peripheral.discoverDescriptors(for: stored) }
            await #expect(throws: BLEError.notConnected) { try await peripheral.readValue(for: stored) }
            await #expect(throws: BLEError.notConnected) {
                try await peripheral.writeValue([1], for: stream, type: .withoutResponse)
            }
            await #expect(throws: BLEError.notConnected) { try await peripheral.setNotifyValue(true, for: stream) }
            await #expect(throws: BLEError.notConnected) { try await peripheral.values(for: stream) }
            await #expect(throws: BLEError.notConnected) { try await peripheral.readRSSI() }
            #expect(await peripheral.canSendWriteWithoutResponse == false)
            #expect(await peripheral.services == nil)
            // After reconnecting, attributes of the earlier connection must be discovered again.
            try await devices.central.connect(peripheral)
            await #expect(throws: BLEError.unknownAttribute) { try await peripheral.readValue(for: stored) }
        }
    }
}

extension Central {
    static let unknownIdentifier = LEAddress(BluetoothAddress(0x1234), type: .random).peerIdentifier
}

@Suite("Connections end with the manager's power and the caller's task")
struct ConnectionLifetimeTests {
    @Test("Powering the central off disconnects: 0x16 here, Remote Device Terminated due to Power Off (0x15) there")
    func centralPowerOff() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            var managerEvents = devices.peripheralManager.events.makeAsyncIterator()
            var centralEvents = devices.central.events.makeAsyncIterator()
            await devices.central.powerOff()
            #expect(await peripheral.state == .disconnected)
            var centralReason: HCIStatus?
            while centralReason == nil, let event = await centralEvents.next() {
                if case .disconnected(_, let reason) = event { centralReason = reason }
            }
            #expect(centralReason == .connectionTerminatedByLocalHost)
            var managerReason: HCIStatus?
            while managerReason == nil, let event = await managerEvents.next() {
                if case .disconnected(_, let reason) = event { managerReason = reason }
            }
            #expect(managerReason == .remoteDeviceTerminatedPowerOff)
        }
    }

    @Test("Cancelling the task that connects cancels the attempt (LE Create Connection Cancel)")
    func taskCancellation() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let peripheral = try await devices.discover().peripheral
            await devices.peripheralManager.stopAdvertising()
            let central = devices.central
            let attempt = devices.spawn { try await central.connect(peripheral) }
            try await devices.sleep(for: .milliseconds(200))
            attempt.cancel()
            await #expect(throws: BLEError.connectionCancelled) { try await attempt.value }
            #expect(await peripheral.state == .disconnected)
            // The controller's initiator is free again.
            try await devices.peripheralManager.startAdvertising(Fixture.advertisement)
            try await central.connect(peripheral)
            #expect(await peripheral.state == .connected)
        }
    }
}
