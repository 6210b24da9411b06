import BLE
import BLECompanion
import Foundation
import Testing

@Suite("Known devices: retrievePeripherals(withIdentifiers:) answers after an app restart")
struct RetrievePeripheralsTests {
    /// The first run of the app: finds the wearable and remembers it; its central is then
    /// closed, as at the app's end.
    static func firstRun(_ world: IdentityWorld, registry: KnownDevices) async throws -> UUID {
        let discovery = try await world.discoverWearable()
        let device = try #require(try registry.remember(discovery))
        return device.identifier
    }

    /// A central of a restarted app: new controller, nothing seen.
    static func restartedCentral(_ world: IdentityWorld) async throws -> CentralManager {
        let central = await CentralManager(radio: .virtual(world.radio, position: AirPosition(x: 0, y: 3, z: 0)))
        try await central.powerOn()
        return central
    }

    @Test("Retrieve: a new central finds a known identifier by scanning for its key and can connect it")
    func afterRestart() async throws {
        try await IdentityWorld.run { world in
            let registry = try KnownDevices.inMemory()
            let identifier = try await Self.firstRun(world, registry: registry)
            let central = try await Self.restartedCentral(world)
            #expect(await central.retrievePeripherals(withIdentifiers: [identifier]).isEmpty)
            let unknown = UUID()
            let started = world.now
            let found = try await registry.retrievePeripherals(
                withIdentifiers: [unknown, identifier], on: central, timeout: .seconds(5), clock: world.clock)
            #expect(found.map(\.identifier) == [identifier])
            // The scan ended when the device was seen, well before the timeout.
            #expect(started.duration(to: world.now) < .seconds(5))
            #expect(await central.isScanning == false)
            let peripheral = try #require(found.first)
            try await central.connect(peripheral)
            #expect(await peripheral.state == .connected)
            // The central now knows it: asked again, no scan is needed.
            let before = world.now
            let again = try await registry.retrievePeripherals(
                withIdentifiers: [identifier], on: central, clock: world.clock)
            #expect(again.first === peripheral)
            #expect(world.now == before)
            await central.close()
        }
    }

    @Test("Retrieve: a device back at a new address is returned under its new identifier and re-bound")
    func afterAddressChange() async throws {
        try await IdentityWorld.run { world in
            let registry = try KnownDevices.inMemory()
            var events = registry.events().makeAsyncIterator()
            let identifier = try await Self.firstRun(world, registry: registry)
            let newAddress = BluetoothAddress(0x00_1B_DC_00_00_42)
            try await world.replaceWearable(address: newAddress)
            let central = try await Self.restartedCentral(world)
            let found = try await registry.retrievePeripherals(
                withIdentifiers: [identifier], on: central, timeout: .seconds(5), clock: world.clock)
            let peripheral = try #require(found.first)
            #expect(peripheral.address.address == newAddress)
            #expect(peripheral.identifier != identifier)
            #expect(try registry.device(withIdentifier: peripheral.identifier)?.key == .mac(IdentityWorld.mac))
            guard case .added = await events.next() else { throw TestFailure("no added event") }
            guard case .rebound(let old, let new)? = await events.next() else { throw TestFailure("no rebound") }
            #expect(old.identifier == identifier && new.identifier == peripheral.identifier)
            await central.close()
        }
    }

    @Test("Retrieve: a known device that is not around is left out after the timeout")
    func absent() async throws {
        try await IdentityWorld.run { world in
            let registry = try KnownDevices.inMemory()
            let identifier = try await Self.firstRun(world, registry: registry)
            await world.wearable?.close()
            let central = try await Self.restartedCentral(world)
            let started = world.now
            let found = try await registry.retrievePeripherals(
                withIdentifiers: [identifier], on: central, timeout: .seconds(3), clock: world.clock)
            #expect(found.isEmpty)
            #expect(started.duration(to: world.now) >= .seconds(3))
            #expect(await central.isScanning == false)
            await central.close()
        }
    }
}
