import BLEController
import BLEHost
import BLESimulation
import BLEWire
import Testing

@testable import BLE

/// A central and a peripheral that bonded earlier (matching bonds seeded in both stores, as a
/// Secure Connections pairing leaves them, IRKs included), both using resolvable private
/// addresses renewed every minute.
struct BondedPrivatePair: Sendable {
    let radio: VirtualRadio
    let central: CentralManager
    let peripheralManager: PeripheralManager

    static let centralIdentity = LEAddress(BluetoothAddress(0xC0_00_00_00_00_01), type: .random)
    static let peripheralIdentity = LEAddress(BluetoothAddress(0xC0_00_00_00_00_02), type: .random)
    static let centralIRK = SMPKey128(high: 0x0C0C_0C0C_0C0C_0C0C, low: 0x1111_2222_3333_4444)
    static let peripheralIRK = SMPKey128(high: 0x0D0D_0D0D_0D0D_0D0D, low: 0x5555_6666_7777_8888)
    static let key = LongTermKey(key: SMPKey128(high: 0x0123_4567_89AB_CDEF, low: 0x0011_2233_4455_6677))
    static let renewal: Duration = .seconds(60)

    static func configuration(
        identity: LEAddress, irk: SMPKey128, bond: Bond, resolvesInController: Bool
    ) -> HostConfiguration {
        var configuration = HostConfiguration()
        configuration.randomStaticAddress = identity.address
        configuration.identityResolvingKey = irk
        configuration.security.privacy = PrivacyPolicy(addressRenewal: renewal)
        configuration.security.resolvesInController = resolvesInController
        configuration.bondStore = InMemoryBondStore([bond])
        return configuration
    }

    static func run(
        resolvesInController: Bool, _ body: @escaping @Sendable (BondedPrivatePair) async throws -> Void
    ) async throws {
        let radio = VirtualRadio()
        let centralBond = Bond(
            local: centralIdentity, peer: peripheralIdentity, peerLongTermKey: key, peerIRK: peripheralIRK,
            authenticated: false, secureConnections: true, keySize: 16)
        let peripheralBond = Bond(
            local: peripheralIdentity, peer: centralIdentity, localLongTermKey: key, peerIRK: centralIRK,
            authenticated: false, secureConnections: true, keySize: 16)
        try await radio.simulation.run {
            let peripheralManager = try await PeripheralManager(
                radio: .virtual(radio),
                configuration: configuration(
                    identity: peripheralIdentity, irk: peripheralIRK, bond: peripheralBond,
                    resolvesInController: resolvesInController),
                gap: GAPServiceConfiguration(deviceName: "private sensor"))
            let central = await CentralManager(
                radio: .virtual(radio, position: AirPosition(x: 2, y: 0, z: 0)),
                configuration: configuration(
                    identity: centralIdentity, irk: centralIRK, bond: centralBond,
                    resolvesInController: resolvesInController))
            try await peripheralManager.powerOn()
            try await central.powerOn()
            let pair = BondedPrivatePair(radio: radio, central: central, peripheralManager: peripheralManager)
            do {
                try await body(pair)
            } catch {
                await central.close()
                await peripheralManager.close()
                throw error
            }
            await central.close()
            await peripheralManager.close()
        }
    }

    func sleep(_ duration: Duration) async throws { try await radio.simulation.clock.sleep(for: duration) }

    func discover() async throws -> Discovery {
        let discoveries = try await central.scanForPeripherals(withServices: [Fixture.serviceUUID])
        var iterator = discoveries.makeAsyncIterator()
        guard let found = await iterator.next() else { throw TestFailure("the scan ended without a discovery") }
        await central.stopScan()
        return found
    }

    /// The security of `host`'s only link once its encryption settled (virtual time).
    func settledSecurity(of host: Host) async throws -> LinkSecurity {
        for _ in 0..<200 {
            if let link = await host.liveConnections.first, case .encrypted = await host.security(of: link.handle) {
                return await host.security(of: link.handle)
            }
            try await sleep(.milliseconds(10))
        }
        guard let link = await host.liveConnections.first else { return .none }
        return await host.security(of: link.handle)
    }
}

@Suite("Privacy across reconnections (Core 5.4 Vol 3 Part C §10.7, Vol 6 Part B §1.3.2.2, Vol 3 Part H §2.4.4)")
struct PrivacyReconnectionTests {
    @Test(
        "A bonded peripheral on a NEW resolvable private address keeps its identifier and the central re-encrypts from the bond",
        arguments: [true, false])
    func reconnectFromNewAddress(resolvesInController: Bool) async throws {
        try await BondedPrivatePair.run(resolvesInController: resolvesInController) { pair in
            let centralHost = pair.central.stack.host
            let peripheralHost = pair.peripheralManager.stack.host
            try await pair.peripheralManager.add(Fixture.includedService)
            try await pair.peripheralManager.add(Fixture.service)
            try await pair.peripheralManager.startAdvertising(Fixture.advertisement)
            let firstAddress = try #require(await pair.peripheralManager.address)
            #expect(firstAddress.kind == .resolvablePrivate)
            #expect(await peripheralHost.ownAddress == BondedPrivatePair.peripheralIdentity)

            // First connection: found by its identity, encrypted with the bond's key.
            let first = try await pair.discover()
            #expect(first.peripheral.identifier == BondedPrivatePair.peripheralIdentity.peerIdentifier)
            var managerEvents = pair.peripheralManager.events.makeAsyncIterator()
            try await pair.central.connect(first.peripheral)
            let security = try await pair.settledSecurity(of: centralHost)
            #expect(security == .encrypted(keySize: 16, authenticated: false, secureConnections: true))
            #expect(try await pair.settledSecurity(of: peripheralHost) == security)
            var firstCentral: Central?
            while firstCentral == nil, let event = await managerEvents.next() {
                if case .connected(let central) = event { firstCentral = central }
            }
            #expect(firstCentral?.identifier == BondedPrivatePair.centralIdentity.peerIdentifier)
            await pair.central.cancelPeripheralConnection(first.peripheral)

            // A renewal period later, both advertise and initiate from new addresses.
            try await pair.sleep(BondedPrivatePair.renewal + .seconds(1))
            let secondAddress = try #require(await pair.peripheralManager.address)
            #expect(secondAddress != firstAddress)
            #expect(PrivateAddress.resolves(secondAddress.address, with: BondedPrivatePair.peripheralIRK))

            let second = try await pair.discover()
            #expect(second.peripheral.identifier == first.peripheral.identifier)
            #expect(second.peripheral === first.peripheral)
            // What the central heard on air was the new address.
            let heard: BluetoothAddress
            if resolvesInController {
                let identity = BondedPrivatePair.peripheralIdentity
                heard = try await centralHost.send(
                    HCI.LEReadPeerResolvableAddress(
                        peerIdentityAddressType: identity.type, peerIdentityAddress: identity.address)
                ).resolvableAddress
            } else {
                heard = try #require(await centralHost.lastSeenAddress(of: BondedPrivatePair.peripheralIdentity)).address
            }
            #expect(heard == secondAddress.address)

            try await pair.central.connect(second.peripheral)
            #expect(try await pair.settledSecurity(of: centralHost) == security)
            #expect(try await pair.settledSecurity(of: peripheralHost) == security)
            var secondCentral: Central?
            while secondCentral == nil, let event = await managerEvents.next() {
                if case .connected(let central) = event { secondCentral = central }
            }
            #expect(secondCentral?.identifier == firstCentral?.identifier)
            #expect(await centralHost.statistics.longTermKeyRequestsWithoutKey == 0)
            #expect(await peripheralHost.statistics.longTermKeyRequestsWithoutKey == 0)
        }
    }
}
