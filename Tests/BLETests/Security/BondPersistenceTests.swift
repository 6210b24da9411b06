import BLEHost
import BLEWire
import Testing

@testable import BLE

@Suite("What bonding promises across connections (Core 5.4 Vol 3 Part G §3.3.3.3, §2.5.2, §7.3)")
struct BondPersistenceTests {
    /// Waits for the manager to report `central` subscribed to the characteristic `uuid`.
    private static func subscribed(
        _ events: EventStream<PeripheralManagerEvent>, to uuid: BluetoothUUID
    ) async -> Central? {
        for await event in events {
            if case .subscribed(let central, let characteristic) = event, characteristic.uuid == uuid { return central }
        }
        return nil
    }

    @Test(
        "Part G §3.3.3.3: a bonded central's subscription persists; after reconnection updateValue reaches it without a new subscription"
    )
    func subscriptionsPersist() async throws {
        try await TwoDevices.run { devices in
            try await devices.seedBonds()
            let manager = devices.peripheralManager
            var (peripheral, characteristics) = try await devices.connectToSecured()
            var handle = try await devices.handle(of: peripheral)
            _ = try await devices.centralHost.encrypt(handle)
            let stream = try #require(characteristics[SecurityFixture.streamUUID])
            try await peripheral.setNotifyValue(true, for: stream)
            await devices.central.cancelPeripheralConnection(peripheral)
            // The peripheral saved the configuration in the bond at disconnection.
            let saved = try #require(await devices.peripheralBond()?.gattClientState)
            #expect(saved.clientConfigurations.values.contains(0x0001))

            // Reconnect: the link is encrypted with the bond's key and the subscription is back.
            let events = manager.events
            let waiting = devices.spawn { await Self.subscribed(events, to: SecurityFixture.streamUUID) }
            try await devices.central.connect(peripheral)
            handle = try await devices.handle(of: peripheral)
            _ = try await devices.centralHost.encrypt(handle)
            let central = try #require(try await waiting.value)
            let published = try #require(
                (await manager.services).flatMap { $0.characteristics ?? [] }.first {
                    $0.uuid == SecurityFixture.streamUUID
                })
            #expect(await manager.subscribedCentrals(for: published) == [central])
            characteristics = try await devices.characteristics(of: peripheral)
            let again = try #require(characteristics[SecurityFixture.streamUUID])
            let values = try await peripheral.values(for: again)
            #expect(try await manager.updateValue([0x42], for: published))
            var iterator = values.makeAsyncIterator()
            #expect(await iterator.next() == [0x42])
        }
    }

    @Test(
        "Part G §2.5.2, §7.3: reconnecting to a bonded peripheral whose Database Hash matches sends no discovery request"
    )
    func cacheSkipsDiscovery() async throws {
        try await TwoDevices.run { devices in
            try await devices.seedBonds()
            let (peripheral, first) = try await devices.connectToSecured()
            // The first connection discovered the whole database and kept it in the bond.
            let bond = try #require(await devices.centralBond())
            #expect(bond.gattDatabase?.isComplete == true)
            #expect(bond.gattDatabaseHash?.count == 16)
            await devices.central.cancelPeripheralConnection(peripheral)

            let counting = CountingATTServer(await devices.peripheralManager.server)
            await devices.peripheralHost.setATTServer(counting)
            try await devices.central.connect(peripheral)
            let characteristics = try await devices.characteristics(of: peripheral)
            let services = try #require(await peripheral.services)
            _ = try await peripheral.discoverDescriptors(
                for: try #require(characteristics[SecurityFixture.streamUUID]))
            #expect(counting.count("discovery") == 0)
            #expect(counting.count("hash") >= 1)
            #expect(Set(characteristics.keys) == Set(first.keys))
            #expect(services.map(\.uuid).contains(SecurityFixture.serviceUUID))
            // The cached handles work.
            let encrypted = try #require(characteristics[SecurityFixture.encryptedUUID])
            #expect(try await peripheral.readValue(for: encrypted) == [0xE1])
        }
    }

    @Test("Part G §2.5.2.1, §7.3: a database changed while away (another Database Hash) is rediscovered")
    func changedDatabaseRediscovered() async throws {
        try await TwoDevices.run { devices in
            try await devices.seedBonds()
            let manager = devices.peripheralManager
            let (peripheral, _) = try await devices.connectToSecured()
            await devices.central.cancelPeripheralConnection(peripheral)
            // The peripheral adds a service while the central is away: the hash differs.
            try await manager.add(
                MutableService(
                    uuid: 0xFAB0,
                    characteristics: [
                        MutableCharacteristic(
                            uuid: 0xFAB1, properties: .read, permissions: .readable, value: .stored([1]))
                    ]))
            let counting = CountingATTServer(await manager.server)
            await devices.peripheralHost.setATTServer(counting)
            try await devices.central.connect(peripheral)
            // Encrypted with the bond: the server finds the client change-unaware (§2.5.2.1).
            _ = try await devices.centralHost.encrypt(try await devices.handle(of: peripheral))
            let services = try await peripheral.discoverServices()
            #expect(counting.count("discovery") > 0)
            #expect(services.map(\.uuid).contains(0xFAB0))
            let hash = await devices.centralBond()?.gattDatabaseHash
            let server = await manager.server
            #expect(hash == server.withServer { $0.database.hash })
        }
    }

    @Test(
        "Part G §7.1, §2.5.2: a Service Changed indication makes only its range stale; the next discovery refreshes it alone"
    )
    func serviceChangedRefreshesRange() async throws {
        try await TwoDevices.run { devices in
            try await devices.seedBonds()
            let manager = devices.peripheralManager
            let counting = CountingATTServer(await manager.server)
            await devices.peripheralHost.setATTServer(counting)
            let (peripheral, _) = try await devices.connectToSecured()
            let full = counting.count("discovery")
            var events = await peripheral.events().makeAsyncIterator()
            let added = try await manager.add(
                MutableService(
                    uuid: 0xFAB0,
                    characteristics: [
                        MutableCharacteristic(
                            uuid: 0xFAB1, properties: .read, permissions: .readable, value: .stored([1]))
                    ]))
            while let event = await events.next() {
                if case .servicesModified = event { break }
            }
            let stale = try #require(await devices.centralBond()?.gattDatabase?.staleRanges)
            #expect(stale.count == 1 && stale.first?.contains(added.handleRange.lowerBound) == true)
            let before = counting.count("discovery")
            let services = try await peripheral.discoverServices()
            let refresh = counting.count("discovery") - before
            #expect(services.map(\.uuid).contains(0xFAB0))
            #expect(refresh > 0 && refresh < full)
            let server = await manager.server
            #expect(await devices.centralBond()?.gattDatabaseHash == server.withServer { $0.database.hash })
            #expect(await devices.centralBond()?.gattDatabase?.isComplete == true)
        }
    }
}

@Suite("A bonded client's state comes back only to the bonded device (Core 5.4 Vol 3 Part G §3.3.3.3; Part H §2.4.4)")
struct BondedStateRestorationTests {
    @Test(
        "Part H §2.4.4: a central using a bonded address is given no saved subscription until it encrypts with the bond's key"
    )
    func restoredOnlyOnceEncrypted() async throws {
        try await TwoDevices.run { devices in
            let manager = devices.peripheralManager
            try await manager.add(SecurityFixture.service)
            try await manager.startAdvertising(AdvertisementData(serviceUUIDs: [SecurityFixture.serviceUUID]))
            let published = try #require(
                (await manager.services).flatMap { $0.characteristics ?? [] }.first {
                    $0.uuid == SecurityFixture.streamUUID
                })
            let server = await manager.server
            let cccd = try #require(
                server.withServer { server -> UInt16? in
                    guard
                        case .characteristicValue(_, _, let cccd)? = server.database.attribute(at: published.handle)?
                            .role
                    else { return nil }
                    return cccd
                })
            // The peripheral's bond says this central subscribed; the central holds no key yet.
            try await devices.seedBonds(onCentral: false)
            var bond = try #require(await devices.peripheralBond())
            bond.gattClientState = GATTBondedClientState(
                clientConfigurations: [cccd: 0x0001], databaseHash: server.withServer { $0.database.hash })
            try await devices.peripheralHost.configuration.bondStore.save(bond)

            let events = manager.events
            let waiting = devices.spawn {
                for await event in events {
                    if case .subscribed(let central, _) = event { return Optional(central) }
                }
                return nil
            }
            let (peripheral, _) = try await devices.connectToSecured(publish: false)
            // Connected and discovered, not encrypted: nothing restored.
            #expect(await manager.subscribedCentrals(for: published).isEmpty)
            // Encrypted with the bond's key: the subscription is back.
            try await devices.seedBonds(onPeripheral: false)
            _ = try await devices.centralHost.encrypt(try await devices.handle(of: peripheral))
            let central = try #require(try await waiting.value)
            #expect(await manager.subscribedCentrals(for: published) == [central])
        }
    }
}
