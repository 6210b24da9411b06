import BLE
import BLECompanion
import BLESimulation
import Foundation
import Testing

@Suite("Reconnect: auto-reconnect to a known device on the virtual radio")
struct ReconnectorTests {
    /// Connects the wearable, remembers it, and starts a reconnector on it.
    static func connectAndWatch(
        _ world: IdentityWorld, policy: ReconnectPolicy,
        random: some RandomNumberGenerator & Sendable = SeededRandomGenerator(seed: 7)
    ) async throws -> (Reconnector, ReconnectLog, KnownDevices, Peripheral) {
        let registry = try KnownDevices.inMemory()
        let discovery = try await world.discoverWearable()
        let device = try #require(try registry.remember(discovery))
        try await world.central.connect(discovery.peripheral)
        let reconnector = Reconnector(
            device: device.key, central: world.central, centralEvents: world.central.events, registry: registry,
            policy: policy, clock: world.clock, executor: world.simulation.executor, random: random)
        let log = ReconnectLog(reconnector, simulation: world.simulation)
        await reconnector.start(connectedTo: discovery.peripheral)
        return (reconnector, log, registry, discovery.peripheral)
    }

    @Test("Reconnect: out of range past the supervision timeout (0x08), back in range, reconnected")
    func outOfRange() async throws {
        try await IdentityWorld.run { world in
            let policy = ReconnectPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(4), scanTimeout: .seconds(2))
            let (reconnector, log, _, peripheral) = try await Self.connectAndWatch(world, policy: policy)
            await world.moveWearable(to: AirPosition(x: 100_000, y: 0, z: 0))
            let lost = try await log.wait(clock: world.clock) { $0 == .linkLost(reason: .connectionTimeout) }
            // Some attempts fail while it is away.
            try await log.wait(clock: world.clock) { $0.failedAttempt == 2 }
            await world.moveWearable(to: .origin)
            let (time, event) = try await log.wait(clock: world.clock) { $0.isConnected }
            guard case .connected(let again, _) = event else { throw TestFailure("not connected") }
            // Same address: the same peripheral object, connected again.
            #expect(again === peripheral)
            #expect(await again.state == .connected)
            #expect(await reconnector.phase == .connected(again))
            #expect(time > lost.time)
            log.stop()
            await reconnector.cancel()
        }
    }

    @Test("Reconnect: the device comes back under a new address; it is re-bound by its MAC and reconnected")
    func newAddress() async throws {
        try await IdentityWorld.run { world in
            let policy = ReconnectPolicy(initialDelay: .seconds(1), scanTimeout: .seconds(3))
            let (reconnector, log, registry, peripheral) = try await Self.connectAndWatch(world, policy: policy)
            let newAddress = BluetoothAddress(0x00_1B_DC_00_00_99)
            // The old controller powers off (the link drops with 0x15), a new one advertises the same MAC.
            try await world.replaceWearable(address: newAddress)
            try await log.wait(clock: world.clock) { $0 == .linkLost(reason: .remoteDeviceTerminatedPowerOff) }
            let (_, event) = try await log.wait(clock: world.clock) { $0.isConnected }
            guard case .connected(let again, _) = event else { throw TestFailure("not connected") }
            #expect(again.address.address == newAddress)
            #expect(again.identifier != peripheral.identifier)
            #expect(await again.state == .connected)
            let rebound = log.all.compactMap { entry -> (KnownDevice, KnownDevice)? in
                if case .rebound(let old, let new) = entry.event { return (old, new) }
                return nil
            }
            #expect(rebound.count == 1)
            #expect(rebound.first?.0.identifier == peripheral.identifier)
            #expect(rebound.first?.1.identifier == again.identifier)
            let record = try registry.device(forKey: .mac(IdentityWorld.mac))
            #expect(record?.identifier == again.identifier)
            #expect(record?.address == again.address)
            log.stop()
            await reconnector.cancel()
        }
    }

    @Test("Reconnect: waits between attempts follow the policy exactly on the virtual clock (scripted jitter)")
    func exactBackoff() async throws {
        try await IdentityWorld.run { world in
            let policy = ReconnectPolicy(
                initialDelay: .seconds(1), multiplier: 2, maximumDelay: .seconds(5), jitter: 0.5, maximumAttempts: 6,
                scanTimeout: .seconds(1))
            // Draws 0, 0.5, 0.75, 0.25, 0.5: factors 0.5, 1, 1.25, 0.75, 1 on bases 1, 2, 4, 5 (cap), 5 s.
            let units = [0, 0.5, 0.75, 0.25, 0.5]
            let random = ScriptedRandom(units.map(ScriptedRandom.output(forUnit:)))
            let (reconnector, log, _, _) = try await Self.connectAndWatch(world, policy: policy, random: random)
            // The device is gone for good.
            await world.wearable?.close()
            try await log.wait(clock: world.clock) { $0 == .gaveUp(attempts: 6) }
            let entries = log.all
            let expected: [Duration] = [.milliseconds(500), .seconds(2), .seconds(5), .milliseconds(3750), .seconds(5)]
            for attempt in 2...6 {
                let failed = try #require(entries.first { $0.event.failedAttempt == attempt - 1 })
                let waiting = try #require(entries.first { $0.event.waiting?.attempt == attempt })
                let started = try #require(entries.first { $0.event.attempting == attempt })
                #expect(waiting.event.waiting?.delay == expected[attempt - 2])
                // The wait starts when the attempt before fails, and lasts exactly the delay.
                #expect(waiting.time == failed.time)
                #expect(waiting.time.duration(to: started.time) == expected[attempt - 2])
            }
            // The first attempt follows the loss at once.
            let lost = try #require(entries.first { if case .linkLost = $0.event { true } else { false } })
            #expect(entries.first { $0.event.attempting == 1 }?.time == lost.time)
            #expect(entries.filter { $0.event.attempting != nil }.count == 6)
            #expect(await reconnector.phase == .gaveUp)
        }
    }

    @Test("Reconnect: while the radio is off no attempt runs; powered on, attempts start over and reconnect")
    func pausedWhileRadioOff() async throws {
        try await IdentityWorld.run { world in
            let policy = ReconnectPolicy(initialDelay: .seconds(2), jitter: 0, scanTimeout: .seconds(1))
            let (reconnector, log, _, _) = try await Self.connectAndWatch(world, policy: policy)
            // The wearable stops advertising and drops the link; attempts fail.
            await world.wearable?.powerOff()
            try await log.wait(clock: world.clock) { $0.waiting?.attempt == 2 }
            await world.central.powerOff()
            let paused = try await log.wait(clock: world.clock) { $0 == .paused(.poweredOff) }
            try await world.wearable?.powerOn()
            try await world.wearable?.startAdvertising(IdentityWorld.advertisement)
            // A minute off: nothing is attempted.
            try await world.clock.sleep(for: .seconds(60))
            let during = log.all.filter { $0.time > paused.time && $0.event.attempting != nil }
            #expect(during.isEmpty)
            #expect(await reconnector.phase == .paused)
            try await world.central.powerOn()
            let resumed = try await log.wait(clock: world.clock) { $0 == .resumed }
            let connected = try await log.wait(clock: world.clock) { $0.isConnected }
            // Started over: attempt 1, at once.
            #expect(connected.event == log.all.first { $0.event.isConnected }?.event)
            guard case .connected(let peripheral, let attempt) = connected.event else { throw TestFailure("") }
            #expect(attempt == 1)
            #expect(log.all.first { $0.time >= resumed.time && $0.event.attempting != nil }?.time == resumed.time)
            #expect(await peripheral.state == .connected)
            log.stop()
            await reconnector.cancel()
        }
    }

    @Test("Reconnect: a link this side closed (0x16, radio on) is not reconnected")
    func localDisconnect() async throws {
        try await IdentityWorld.run { world in
            let (reconnector, log, _, peripheral) = try await Self.connectAndWatch(world, policy: ReconnectPolicy())
            await world.central.cancelPeripheralConnection(peripheral)
            try await log.wait(clock: world.clock) { $0 == .closedLocally }
            try await world.clock.sleep(for: .seconds(30))
            #expect(!log.all.contains { $0.event.attempting != nil })
            #expect(await peripheral.state == .disconnected)
            #expect(await reconnector.phase == .watching)
            await reconnector.cancel()
            try await log.wait(clock: world.clock) { $0 == .cancelled }
            log.stop()
        }
    }
}
