import BLEController
import BLEHost
import BLEWire
import Testing

@testable import BLE

@Suite("Managers' power states (CBManagerState) and calls refused in them")
struct PowerTests {
    @Test("A manager starts powered off; powerOn runs the HCI initialisation (resetting) and reaches poweredOn")
    func powerCycle() async throws {
        try await TwoDevices.run(poweredOn: false) { devices in
            let central = devices.central
            #expect(await central.state == .poweredOff)
            let updates = await central.stateUpdates()
            try await central.powerOn()
            #expect(await central.state == .poweredOn)
            await central.powerOff()
            #expect(await central.state == .poweredOff)
            try await central.powerOn()
            await central.close()
            var seen: [ManagerState] = []
            for await state in updates { seen.append(state) }
            #expect(seen == [.poweredOff, .resetting, .poweredOn, .poweredOff, .poweredOn, .poweredOff])

            let peripheralManager = devices.peripheralManager
            try await peripheralManager.powerOn()
            #expect(await peripheralManager.state == .poweredOn)
            await peripheralManager.powerOff()
            #expect(await peripheralManager.state == .poweredOff)
        }
    }

    @Test("A central that is not powered on refuses to scan or connect, before anything is sent")
    func centralPoweredOff() async throws {
        try await TwoDevices.run(poweredOn: false) { devices in
            try await devices.peripheralManager.powerOn()
            try await devices.publish()
            try await devices.central.powerOn()
            let peripheral = try await devices.discover().peripheral
            await devices.central.powerOff()
            await #expect(throws: BLEError.notPoweredOn(.poweredOff)) {
                _ = try await devices.central.scanForPeripherals()
            }
            await #expect(throws: BLEError.notPoweredOn(.poweredOff)) { try await devices.central.connect(peripheral) }
            #expect(await peripheral.state == .disconnected)
            await devices.central.close()
            await #expect(throws: BLEError.closed) { try await devices.central.powerOn() }
        }
    }

    @Test("A peripheral manager that is not powered on refuses to publish, advertise or update values")
    func peripheralManagerPoweredOff() async throws {
        try await TwoDevices.run(poweredOn: false) { devices in
            let manager = devices.peripheralManager
            await #expect(throws: BLEError.notPoweredOn(.poweredOff)) { try await manager.add(Fixture.service) }
            await #expect(throws: BLEError.notPoweredOn(.poweredOff)) {
                try await manager.startAdvertising(Fixture.advertisement)
            }
            try await manager.powerOn()
            try await manager.add(Fixture.includedService)
            let service = try await manager.add(Fixture.service)
            let stream = try #require(service.characteristics?.first { $0.uuid == Fixture.streamUUID })
            await manager.powerOff()
            await #expect(throws: BLEError.notPoweredOn(.poweredOff)) {
                try await manager.updateValue([1], for: stream)
            }
            await #expect(throws: BLEError.notPoweredOn(.poweredOff)) { try await manager.remove(service) }
            #expect(await manager.isAdvertising == false)
        }
    }

    @Test("Powering the peripheral manager off disconnects its centrals with reason 0x15 (power off)")
    func powerOffDisconnects() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            var events = devices.central.events.makeAsyncIterator()
            await devices.peripheralManager.powerOff()
            while let event = await events.next() {
                if case .disconnected(let gone, let reason) = event {
                    #expect(gone == peripheral)
                    #expect(reason == .remoteDeviceTerminatedPowerOff)
                    break
                }
            }
            #expect(await peripheral.state == .disconnected)
            #expect(await devices.peripheralManager.connectedCentrals.isEmpty)
        }
    }
}

@Suite("Host statistics through the managers")
struct ManagerHostStatisticsTests {
    @Test("A connection and discovery on the virtual radio drop nothing: every count stays zero")
    func cleanRunDropsNothing() async throws {
        try await TwoDevices.run { devices in
            _ = try await devices.connectAndDiscover()
            #expect(await devices.central.hostStatistics == HostStatistics())
            #expect(await devices.peripheralManager.hostStatistics == HostStatistics())
        }
    }
}
