import BLEController
import BLEHost
import BLEWire
import Testing

@testable import BLE

/// Core Bluetooth's `connect`: pending until the device appears or the app cancels, several at
/// once through the Filter Accept List (Core 5.4 Vol 6 Part B §4.3; Vol 4 Part E §7.8.12).
@Suite("Pending connects: connect waits for the device, any number at once")
struct PendingConnectTests {
    @Test("LE Create Connection stays pending over three virtual hours; the device appearing connects it")
    func pendingForHours() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let peripheral = try await devices.discover().peripheral
            await devices.peripheralManager.stopAdvertising()
            let central = devices.central
            let connecting = devices.spawn { try await central.connect(peripheral) }
            try await devices.sleep(for: .seconds(3 * 3600))
            #expect(await peripheral.state == .connecting)
            try await devices.peripheralManager.startAdvertising(Fixture.advertisement)
            try await connecting.value
            #expect(await peripheral.state == .connected)
        }
    }

    @Test(
        "Two pending attempts: the device that appears first connects first, the other stays pending (Filter Accept List)"
    )
    func twoPending() async throws {
        try await TwoDevices.run { devices in
            let second = try await devices.addPeripheralManager(at: AirPosition(x: 0, y: 2, z: 0))
            try await devices.publish()
            try await second.startAdvertising(Fixture.advertisement)
            let found = try await devices.discover(2)
            await devices.peripheralManager.stopAdvertising()
            await second.stopAdvertising()
            let central = devices.central
            let first = devices.spawn { try await central.connect(found[0]) }
            let other = devices.spawn { try await central.connect(found[1]) }
            try await devices.sleep(for: .seconds(3600))
            #expect(await found[0].state == .connecting)
            #expect(await found[1].state == .connecting)
            // Whichever of the two managers advertised as found[1] comes back first.
            let secondIsFound1 = await second.stack.host.ownAddress == found[1].address
            try await (secondIsFound1 ? second : devices.peripheralManager).startAdvertising(Fixture.advertisement)
            try await other.value
            #expect(await found[1].state == .connected)
            try await devices.sleep(for: .seconds(600))
            #expect(await found[0].state == .connecting)
            try await (secondIsFound1 ? devices.peripheralManager : second).startAdvertising(Fixture.advertisement)
            try await first.value
            #expect(await found[0].state == .connected)
            await second.close()
        }
    }

    @Test("Cancelling one pending attempt ends it alone: the other still connects")
    func cancelOne() async throws {
        try await TwoDevices.run { devices in
            let second = try await devices.addPeripheralManager(at: AirPosition(x: 0, y: 2, z: 0))
            try await devices.publish()
            try await second.startAdvertising(Fixture.advertisement)
            let found = try await devices.discover(2)
            await devices.peripheralManager.stopAdvertising()
            await second.stopAdvertising()
            let central = devices.central
            let cancelled = devices.spawn { try await central.connect(found[0]) }
            let kept = devices.spawn { try await central.connect(found[1]) }
            try await devices.sleep(for: .seconds(60))
            await central.cancelPeripheralConnection(found[0])
            await #expect(throws: BLEError.connectionCancelled) { try await cancelled.value }
            #expect(await found[0].state == .disconnected)
            try await devices.peripheralManager.startAdvertising(Fixture.advertisement)
            try await second.startAdvertising(Fixture.advertisement)
            try await kept.value
            #expect(await found[1].state == .connected)
            try await devices.sleep(for: .seconds(5))
            // The cancelled device advertised too and was not connected.
            #expect(await found[0].state == .disconnected)
            #expect(await central.retrieveConnectedPeripherals(withServices: []).count == 1)
            await second.close()
        }
    }

    @Test("Cancelling the connecting task cancels its attempt")
    func taskCancellation() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let peripheral = try await devices.discover().peripheral
            await devices.peripheralManager.stopAdvertising()
            let central = devices.central
            let connecting = devices.spawn { try await central.connect(peripheral) }
            try await devices.sleep(for: .seconds(30))
            connecting.cancel()
            await #expect(throws: BLEError.connectionCancelled) { try await connecting.value }
            #expect(await peripheral.state == .disconnected)
        }
    }

    @Test("An attempt with a timeout gives up after it (virtual time)")
    func optionalTimeout() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let peripheral = try await devices.discover().peripheral
            await devices.peripheralManager.stopAdvertising()
            let started = devices.now
            await #expect(throws: BLEError.connectionTimeout(.seconds(30))) {
                try await devices.central.connect(peripheral, options: ConnectOptions(timeout: .seconds(30)))
            }
            #expect(started.duration(to: devices.now) >= .seconds(30))
            #expect(await peripheral.state == .disconnected)
            // The attempt is gone: connecting again works once the device is back.
            try await devices.peripheralManager.startAdvertising(Fixture.advertisement)
            try await devices.central.connect(peripheral)
        }
    }

    @Test("Powering off fails every pending attempt")
    func powerOffFailsPending() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let peripheral = try await devices.discover().peripheral
            await devices.peripheralManager.stopAdvertising()
            let central = devices.central
            let connecting = devices.spawn { try await central.connect(peripheral) }
            try await devices.sleep(for: .seconds(10))
            await central.powerOff()
            await #expect(throws: BLEError.notPoweredOn(.poweredOff)) { try await connecting.value }
        }
    }
}
