import BLEController
import BLEHost
import BLETransport
import BLEVirtualHCI
import BLEWire
import Testing

@testable import BLE

/// The controller going away and coming back: Core Bluetooth's `.resetting` / `.poweredOff`,
/// then `.poweredOn` again.
@Suite("Controller loss and return: Hardware Error reset, transport re-opened")
struct ControllerRecoveryTests {
    static func pipe(of stack: HostStack) async throws -> PipeTransport {
        guard let pipe = await stack.host.transport as? PipeTransport else {
            throw TestFailure("the test radio is not a pipe")
        }
        return pipe
    }

    static func pipe(of manager: CentralManager) async throws -> PipeTransport { try await pipe(of: manager.stack) }

    static func pipe(of manager: PeripheralManager) async throws -> PipeTransport { try await pipe(of: manager.stack) }

    /// HCI Hardware Error (Core 5.4 Vol 4 Part E §7.7.16), as the controller would send it.
    static func hardwareError(_ code: UInt8) -> H4Packet {
        H4Packet(type: .event, payload: [0x10, 0x01, code])
    }

    @Test(
        "Hardware Error: resetting, the link reported disconnected (Hardware Failure), then poweredOn and scanning again"
    )
    func hardwareErrorResets() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            let central = devices.central
            var states = await central.stateUpdates().makeAsyncIterator()
            var events = central.events.makeAsyncIterator()
            var peripheralEvents = await peripheral.events().makeAsyncIterator()
            #expect(await states.next() == .poweredOn)
            try await Self.pipe(of: central).deliver(Self.hardwareError(0x42))
            #expect(await states.next() == .resetting)
            #expect(await states.next() == .poweredOn)
            guard case .disconnected(let gone, let reason)? = await events.next() else {
                throw TestFailure("the link was not reported down")
            }
            #expect(gone === peripheral)
            #expect(reason == .hardwareFailure)
            guard case .disconnected(let own)? = await peripheralEvents.next() else {
                throw TestFailure("the peripheral did not report its disconnection")
            }
            #expect(own == .hardwareFailure)
            #expect(await peripheral.state == .disconnected)
            #expect(await central.state == .poweredOn)
            _ = try await central.scanForPeripherals()
            await central.stopScan()
        }
    }

    @Test("Hardware Error: a pending connection attempt fails with Hardware Failure")
    func hardwareErrorFailsPending() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let peripheral = try await devices.discover().peripheral
            await devices.peripheralManager.stopAdvertising()
            let central = devices.central
            let connecting = devices.spawn { try await central.connect(peripheral) }
            try await devices.sleep(for: .seconds(5))
            try await Self.pipe(of: central).deliver(Self.hardwareError(0x01))
            await #expect(throws: BLEError.connectionFailed(.hardwareFailure)) { try await connecting.value }
            try await devices.sleep(for: .seconds(1))
            #expect(await central.state == .poweredOn)
            // Connecting again works once the device is back.
            try await devices.peripheralManager.startAdvertising(Fixture.advertisement)
            try await central.connect(peripheral)
        }
    }

    @Test("Transport lost then re-opened: poweredOff, the link reported disconnected; reattach brings poweredOn back")
    func transportReopened() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let second = try await devices.addPeripheralManager(at: AirPosition(x: 0, y: 2, z: 0))
            let found = try await devices.discover()
            let peripheral = found.peripheral
            try await devices.central.connect(peripheral)
            let central = devices.central
            var states = await central.stateUpdates().makeAsyncIterator()
            #expect(await states.next() == .poweredOn)
            var events = central.events.makeAsyncIterator()
            try await Self.pipe(of: central).fail(.io("unplugged"))
            #expect(await states.next() == .poweredOff)
            guard case .disconnected(_, let reason)? = await events.next() else {
                throw TestFailure("the link was not reported down")
            }
            #expect(reason == .hardwareFailure)
            #expect(await central.lostTransport == .io("unplugged"))

            // Plugged back in: a controller on the same spot, reached through a new pipe.
            let port = await devices.radio.addController(at: AirPosition(x: 2, y: 0, z: 0))
            try await central.reattach(PipeTransport.attached(to: port))
            #expect(await states.next() == .resetting)
            #expect(await states.next() == .poweredOn)
            #expect(await central.lostTransport == nil)
            // The radio works again: the second peripheral is found and connected.
            try await second.startAdvertising(Fixture.advertisement)
            let again = try await devices.central.scanForPeripherals(withServices: [Fixture.serviceUUID])
            var iterator = again.makeAsyncIterator()
            var target: Peripheral?
            while target == nil, let discovery = await iterator.next() {
                if discovery.peripheral !== peripheral { target = discovery.peripheral }
            }
            await central.stopScan()
            let other = try #require(target)
            try await central.connect(other)
            #expect(await other.state == .connected)
            await second.close()
        }
    }

    @Test("Transport lost: a pending connection attempt fails with Hardware Failure")
    func transportLossFailsPending() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let peripheral = try await devices.discover().peripheral
            await devices.peripheralManager.stopAdvertising()
            let central = devices.central
            let connecting = devices.spawn { try await central.connect(peripheral) }
            try await devices.sleep(for: .seconds(60))
            try await Self.pipe(of: central).fail(.io("unplugged"))
            await #expect(throws: BLEError.connectionFailed(.hardwareFailure)) { try await connecting.value }
            #expect(await peripheral.state == .disconnected)
            #expect(await central.state == .poweredOff)
        }
    }

    @Test(
        "Peripheral manager, Hardware Error: resetting, the central's link reported down on both sides, then poweredOn and advertising again"
    )
    func peripheralManagerHardwareErrorResets() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            let manager = devices.peripheralManager
            var states = await manager.stateUpdates().makeAsyncIterator()
            var managerEvents = manager.events.makeAsyncIterator()
            var peripheralEvents = await peripheral.events().makeAsyncIterator()
            #expect(await states.next() == .poweredOn)
            try await Self.pipe(of: manager).deliver(Self.hardwareError(0x07))
            #expect(await states.next() == .resetting)
            #expect(await states.next() == .poweredOn)
            var managerSawDown = false
            while !managerSawDown, let event = await managerEvents.next() {
                if case .disconnected(_, let reason) = event {
                    #expect(reason == .hardwareFailure)
                    managerSawDown = true
                }
            }
            #expect(managerSawDown)
            #expect(await manager.isAdvertising == false)
            // The central's side: its controller's supervision timer ends the link (0x08).
            var centralSawDown = false
            while !centralSawDown, let event = await peripheralEvents.next() {
                if case .disconnected = event { centralSawDown = true }
            }
            #expect(centralSawDown)
            // The published services stay; advertising again makes the device reachable.
            try await manager.startAdvertising(Fixture.advertisement)
            try await devices.central.connect(peripheral)
            #expect(await peripheral.state == .connected)
        }
    }

    @Test(
        "Peripheral manager, transport lost then re-opened: poweredOff, then reattach brings poweredOn, advertising and its published PSMs back"
    )
    func peripheralManagerTransportReopened() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let manager = devices.peripheralManager
            let psm = try await manager.publishL2CAPChannel(withEncryption: false)
            var states = await manager.stateUpdates().makeAsyncIterator()
            #expect(await states.next() == .poweredOn)
            try await Self.pipe(of: manager).fail(.io("unplugged"))
            #expect(await states.next() == .poweredOff)
            #expect(await manager.isAdvertising == false)
            await #expect(throws: BLEError.self) { try await manager.startAdvertising(Fixture.advertisement) }
            let port = await devices.radio.addController(at: AirPosition(x: 0, y: 3, z: 0))
            try await manager.reattach(PipeTransport.attached(to: port))
            #expect(await states.next() == .resetting)
            #expect(await states.next() == .poweredOn)
            try await manager.startAdvertising(Fixture.advertisement)
            // The new controller has an address of its own: the device found is the one on it.
            let address = try #require(await manager.address)
            let discoveries = try await devices.central.scanForPeripherals(withServices: [Fixture.serviceUUID])
            var found: Peripheral?
            for await discovery in discoveries where discovery.peripheral.address == address {
                found = discovery.peripheral
                break
            }
            await devices.central.stopScan()
            let peripheral = try #require(found)
            try await devices.central.connect(peripheral)
            #expect(await peripheral.state == .connected)
            // The PSM published before the loss is published again on the new controller's host.
            var incoming = await manager.incomingL2CAPChannels().makeAsyncIterator()
            let channel = try await peripheral.openL2CAPChannel(psm)
            #expect(channel.psm == psm)
            #expect(await incoming.next()?.psm == psm)
        }
    }

    @Test("reattach refuses while the transport is still there")
    func reattachRefused() async throws {
        try await TwoDevices.run { devices in
            let port = await devices.radio.addController(at: AirPosition(x: 9, y: 0, z: 0))
            await #expect(throws: BLEError.transportInUse) {
                try await devices.central.reattach(PipeTransport.attached(to: port))
            }
            #expect(await devices.central.state == .poweredOn)
        }
    }
}
