import BLEController
import BLESimulation
import BLETransport
import BLEVirtualHCI
import BLEWire
import Testing

@testable import BLEHost

/// Two hosts on the virtual radio with the configurations a privacy test needs.
struct PrivacyPair: Sendable {
    let radio: VirtualRadio
    let peripheral: Host
    let central: Host

    static let peripheralIRK = SMPKey128(high: 0x1111_2222_3333_4444, low: 0x5555_6666_7777_8888)
    static let centralIRK = SMPKey128(high: 0x9999_AAAA_BBBB_CCCC, low: 0xDDDD_EEEE_FFFF_0000)
    static let key = LongTermKey(key: SMPKey128(high: 0x0123_4567_89AB_CDEF, low: 0x0011_2233_4455_6677))

    static func make(
        renewal: Duration = .seconds(60), centralResolvesInController: Bool = true,
        peripheralStore: any BondStore = InMemoryBondStore(), centralStore: any BondStore = InMemoryBondStore()
    ) async -> PrivacyPair {
        let radio = VirtualRadio()
        let peripheralPort = await radio.addController(at: .origin)
        let centralPort = await radio.addController(at: AirPosition(x: 2, y: 0, z: 0))
        var peripheralConfiguration = HostConfiguration()
        peripheralConfiguration.identityResolvingKey = peripheralIRK
        peripheralConfiguration.security.privacy = PrivacyPolicy(addressRenewal: renewal)
        peripheralConfiguration.bondStore = peripheralStore
        var centralConfiguration = HostConfiguration()
        centralConfiguration.identityResolvingKey = centralIRK
        centralConfiguration.security.resolvesInController = centralResolvesInController
        centralConfiguration.bondStore = centralStore
        let simulation = radio.simulation
        return PrivacyPair(
            radio: radio,
            peripheral: Host(
                transport: PipeTransport.attached(to: peripheralPort), clock: simulation.clock,
                executor: simulation.executor, configuration: peripheralConfiguration),
            central: Host(
                transport: PipeTransport.attached(to: centralPort), clock: simulation.clock,
                executor: simulation.executor, configuration: centralConfiguration))
    }

    func sleep(_ duration: Duration) async throws { try await radio.simulation.clock.sleep(for: duration) }

    /// Legacy connectable advertising from the peripheral's current address.
    func advertise(_ enable: Bool) async throws {
        if enable {
            try await peripheral.send(
                HCI.LESetAdvertisingParameters(
                    advertisingIntervalMin: 0x0020, advertisingIntervalMax: 0x0020,
                    ownAddressType: await peripheral.ownAddressType))
            try await peripheral.send(HCI.LESetAdvertisingData(advertisingData: [0x02, 0x01, 0x06]))
        }
        try await peripheral.send(HCI.LESetAdvertisingEnable(advertisingEnable: enable))
    }

    /// Scans until the first advertising report; returns its address.
    func scanOnce(_ events: inout EventStream<HostEvent>.Iterator) async throws -> LEAddress {
        try await central.send(HCI.LESetScanParameters(ownAddressType: await central.ownAddressType))
        try await central.send(HCI.LESetScanEnable(leScanEnable: true))
        var found: LEAddress?
        while found == nil, let event = await events.next() {
            if case .advertisingReport(let report) = event { found = report.address }
        }
        try await central.send(HCI.LESetScanEnable(leScanEnable: false))
        return try #require(found)
    }

    /// Connects the central to `peer` (through `initiatorAddress`, as the central manager does).
    func connect(to peer: LEAddress, _ events: inout EventStream<HostEvent>.Iterator) async throws -> ConnectionInfo {
        let target = await central.initiatorAddress(for: peer)
        try await central.send(
            HCI.LECreateConnection(
                leScanInterval: 0x0010, leScanWindow: 0x0010, peerAddressType: target.type.isRandom ? .random : .public,
                peerAddress: target.address, ownAddressType: await central.ownAddressType,
                connectionParameters: HCI.ConnectionParameters(
                    connectionIntervalMin: 24, connectionIntervalMax: 24, supervisionTimeout: 400)))
        while let event = await events.next() {
            if case .connected(let info) = event { return info }
        }
        throw HostError.stopped
    }

    func stop() async {
        await central.stop()
        await peripheral.stop()
    }
}

@Suite("Host privacy: its own RPA and its peers' (Core 5.4 Vol 6 Part B §1.3.2.2–§1.3.2.3; Vol 3 Part C §10.7)")
struct HostPrivacyTests {
    @Test("The RPA is made from the host's IRK and renewed after addressRenewal on virtual time, not before (§1.3.2.2)")
    func rotation() async throws {
        let pair = await PrivacyPair.make(renewal: .seconds(60))
        try await pair.radio.simulation.run {
            try await pair.peripheral.start()
            let identity = try #require(await pair.peripheral.ownAddress)
            #expect(identity.type == .public)
            let first = try #require(await pair.peripheral.currentAddress)
            #expect(first.kind == .resolvablePrivate)
            #expect(PrivateAddress.resolves(first.address, with: PrivacyPair.peripheralIRK))
            #expect(await pair.peripheral.ownAddressType == .random)
            try await pair.sleep(.seconds(59))
            #expect(await pair.peripheral.currentAddress == first, "not renewed before the period")
            try await pair.sleep(.seconds(2))
            let second = try #require(await pair.peripheral.currentAddress)
            #expect(second != first, "renewed after the period")
            #expect(PrivateAddress.resolves(second.address, with: PrivacyPair.peripheralIRK))
            try await pair.sleep(.seconds(60))
            #expect(await pair.peripheral.currentAddress != second)
            // The identity (what bonds are keyed by) never changes.
            #expect(await pair.peripheral.ownAddress == identity)
            await pair.stop()
        }
    }

    @Test("While legacy advertising uses the RPA the controller refuses a new one (Vol 4 Part E §7.8.4): it waits")
    func renewalWaitsForAdvertising() async throws {
        let pair = await PrivacyPair.make(renewal: .seconds(60))
        try await pair.radio.simulation.run {
            try await pair.peripheral.start()
            try await pair.central.start()
            var centralEvents = pair.central.events.makeAsyncIterator()
            try await pair.advertise(true)
            let first = try #require(await pair.peripheral.currentAddress)
            #expect(try await pair.scanOnce(&centralEvents) == first, "the address on air is currentAddress")
            try await pair.sleep(.seconds(61))
            // Renewal due, but advertising goes on undisturbed from the same address.
            #expect(await pair.peripheral.currentAddress == first)
            #expect(await pair.peripheral.privacy.renewalPending)
            #expect(try await pair.scanOnce(&centralEvents) == first)
            // Advertising stopped: the next start takes a new address.
            try await pair.advertise(false)
            await pair.peripheral.prepareOwnAddress()
            let second = try #require(await pair.peripheral.currentAddress)
            #expect(second != first)
            try await pair.advertise(true)
            var seen = try await pair.scanOnce(&centralEvents)
            // Reports already in flight may still carry the old address.
            while seen == first { seen = try await pair.scanOnce(&centralEvents) }
            #expect(seen == second)
            await pair.stop()
        }
    }

    @Test("Resolution in the controller (Vol 4 Part E §7.8.38, §7.8.44): reports and the link carry the bonded identity")
    func resolutionInController() async throws {
        try await resolution(inController: true)
    }

    @Test("Resolution in the host (Vol 6 Part B §1.3.2.3): the same identity when the controller does not resolve")
    func resolutionInHost() async throws {
        try await resolution(inController: false)
    }

    private func resolution(inController: Bool) async throws {
        let centralStore = InMemoryBondStore()
        let pair = await PrivacyPair.make(centralResolvesInController: inController, centralStore: centralStore)
        try await pair.radio.simulation.run {
            try await pair.peripheral.start()
            try await pair.central.start()
            let identity = try #require(await pair.peripheral.ownAddress)
            let local = try #require(await pair.central.ownAddress)
            centralStore.save(
                Bond(
                    local: local, peer: identity, peerLongTermKey: PrivacyPair.key, peerIRK: PrivacyPair.peripheralIRK,
                    authenticated: false, secureConnections: true, keySize: 16))
            await pair.central.bondsChanged()
            #expect(await pair.central.privacy.controllerResolves == inController)
            #expect(await pair.central.privacy.resolvingList == (inController ? [identity] : []))
            var centralEvents = pair.central.events.makeAsyncIterator()
            try await pair.advertise(true)
            let onAir = try #require(await pair.peripheral.currentAddress)
            #expect(onAir.kind == .resolvablePrivate)
            let reported = try await pair.scanOnce(&centralEvents)
            #expect(reported == identity.resolvedForm, "the report names the identity, typed 0x02")
            #expect(reported.peerIdentifier == identity.peerIdentifier)
            let info = try await pair.connect(to: reported, &centralEvents)
            #expect(info.peerAddress == identity.resolvedForm)
            #expect(await pair.central.encryption[info.handle]?.peer == identity)
            var resolved = false
            var encryptionTried = false
            while !(resolved && encryptionTried), let event = await centralEvents.next() {
                if case .security(info.handle, .identityResolved(identity)) = event { resolved = true }
                // Bonded, so the central encrypts at once — the peripheral has no key: it fails,
                // but it was tried with the bond found by identity.
                if case .encryptionChanged(info.handle, _, _) = event { encryptionTried = true }
            }
            #expect(resolved)
            await pair.stop()
        }
    }

    @Test("A removed bond leaves the controller's resolving list; the host's IRK list follows at once")
    func resolvingListFollowsBonds() async throws {
        let centralStore = InMemoryBondStore()
        let pair = await PrivacyPair.make(centralStore: centralStore)
        try await pair.radio.simulation.run {
            try await pair.peripheral.start()
            try await pair.central.start()
            let identity = try #require(await pair.peripheral.ownAddress)
            let local = try #require(await pair.central.ownAddress)
            centralStore.save(
                Bond(
                    local: local, peer: identity, peerIRK: PrivacyPair.peripheralIRK, authenticated: false,
                    secureConnections: true, keySize: 16))
            await pair.central.bondsChanged()
            #expect(await pair.central.privacy.resolvingList == [identity])
            #expect(try await pair.central.removeBond(peer: identity))
            #expect(await pair.central.privacy.peerIRKs.isEmpty)
            try await pair.sleep(.milliseconds(100))
            #expect(await pair.central.privacy.resolvingList.isEmpty)
            await pair.stop()
        }
    }

    @Test("The host's IRK (Vol 3 Part H §2.4.2.1): kept in the bond store at first start, taken from it afterwards")
    func identityKeyFromStore() async throws {
        let radio = VirtualRadio()
        let store = InMemoryBondStore()
        try await radio.simulation.run {
            var irks: [SMPKey128] = []
            for _ in 0..<2 {
                let port = await radio.addController(at: .origin)
                var configuration = HostConfiguration()
                configuration.bondStore = store
                let host = Host(
                    transport: PipeTransport.attached(to: port), clock: radio.simulation.clock,
                    executor: radio.simulation.executor, configuration: configuration)
                try await host.start()
                irks.append(await host.identityResolvingKey)
                await host.stop()
            }
            #expect(irks[0] == irks[1])
            #expect(store.localIdentity() == irks[0])
            // A configured IRK wins, and the store keeps its own.
            let port = await radio.addController(at: .origin)
            var configuration = HostConfiguration()
            configuration.bondStore = store
            configuration.identityResolvingKey = PrivacyPair.centralIRK
            let host = Host(
                transport: PipeTransport.attached(to: port), clock: radio.simulation.clock,
                executor: radio.simulation.executor, configuration: configuration)
            try await host.start()
            #expect(await host.identityResolvingKey == PrivacyPair.centralIRK)
            #expect(store.localIdentity() == irks[0])
            await host.stop()
        }
    }
}
