import BLEWire
import Testing

@testable import BLE
@testable import BLEHost

@Suite("A bond made on a live link keeps what GATT knows (Core 5.4 Vol 3 Part G §3.3.3.3, §2.5.2)")
struct BondCreationTests {
    @Test("Part G §3.3.3.3: a bond saved while the client is connected encrypted holds its subscriptions")
    func bondCreatedKeepsSubscriptions() async throws {
        try await TwoDevices.run { devices in
            try await devices.seedBonds()
            let (peripheral, characteristics) = try await devices.connectToSecured()
            _ = try await devices.centralHost.encrypt(try await devices.handle(of: peripheral))
            let stream = try #require(characteristics[SecurityFixture.streamUUID])
            try await peripheral.setNotifyValue(true, for: stream)
            // What pairing saves: a new bond, with nothing of GATT in it.
            var fresh = try #require(await devices.peripheralBond())
            fresh.gattClientState = nil
            try await devices.peripheralHost.configuration.bondStore.save(fresh)
            await devices.peripheralHost.saveBond(fresh)
            let saved = try #require(await devices.peripheralBond()?.gattClientState)
            #expect(saved.clientConfigurations.values.contains(0x0001))
            // The central's side: a new bond keeps the database discovered on the link.
            var centralFresh = try #require(await devices.centralBond())
            centralFresh.gattDatabase = nil
            centralFresh.gattDatabaseHash = nil
            try await devices.centralHost.configuration.bondStore.save(centralFresh)
            await devices.centralHost.saveBond(centralFresh)
            #expect(await devices.centralBond()?.gattDatabase?.isComplete == true)
        }
    }

    @Test("Part C §10.3.2: Insufficient Authentication without a bond makes the central pair and retry once")
    func pairsOnDemand() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, characteristics) = try await devices.connectToSecured()
            let encrypted = try #require(characteristics[SecurityFixture.encryptedUUID])
            #expect(try await peripheral.readValue(for: encrypted) == [0xE1])
            #expect(await devices.centralHost.security(of: try await devices.handle(of: peripheral)).isEncrypted)
            #expect(await devices.centralBond() != nil)
        }
    }
}
