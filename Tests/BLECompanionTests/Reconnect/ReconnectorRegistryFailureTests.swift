import BLE
import BLESimulation
import Foundation
import Testing

@testable import BLECompanion

@Suite("Reconnect: a registry that fails is reported, never taken for an unknown device")
struct ReconnectorRegistryFailureTests {
    @Test("The registry's table gone mid-run: the attempt reports registryFailed and still reconnects")
    func registryFailureReported() async throws {
        try await IdentityWorld.run { world in
            let policy = ReconnectPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(4), scanTimeout: .seconds(2))
            let (reconnector, log, registry, _) = try await ReconnectorTests.connectAndWatch(world, policy: policy)
            try await registry.database.write { try $0.execute(sql: "DROP TABLE \(KnownDevicesSchema.table)") }
            await world.moveWearable(to: AirPosition(x: 100_000, y: 0, z: 0))
            try await log.wait(clock: world.clock) { $0 == .linkLost(reason: .connectionTimeout) }
            await world.moveWearable(to: .origin)
            let (_, event) = try await log.wait(clock: world.clock) { $0.isConnected }
            guard case .connected = event else { throw TestFailure("not connected") }
            let failures = log.all.filter { if case .registryFailed = $0.event { true } else { false } }
            #expect(!failures.isEmpty)
            log.stop()
            await reconnector.cancel()
        }
    }
}
