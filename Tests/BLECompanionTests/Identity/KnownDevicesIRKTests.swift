import BLE
import BLEHost
import BLESimulation
import BLEWire
import Foundation
import Testing

@testable import BLECompanion

@Suite("Known devices by their IRK (Core 5.4 Vol 3 Part H §2.4.2.1; Vol 6 Part B §1.3.2.3)")
struct KnownDevicesIRKTests {
    /// Vol 3 Part H Appendix D.7: this IRK and prand 708194 make 70:81:94:0D:FB:AA.
    static let sampleIRK = SMPKey128(hex: "ec0234a3 57c8ad05 341010a6 0a397d9b")!
    static let sampleRPA = LEAddress(BluetoothAddress(0x70_8194_0DFB_AA), type: .random)
    static let identity = LEAddress(BluetoothAddress(0xC0_55_44_33_22_11), type: .random)
    static let local = LEAddress(BluetoothAddress(0x00_1B_DC_00_00_09), type: .public)

    static func bond(peer: LEAddress = identity, irk: SMPKey128? = sampleIRK) -> Bond {
        Bond(local: local, peer: peer, peerIRK: irk, authenticated: false, secureConnections: true, keySize: 16)
    }

    @Test("A bond's IRK makes a record (key irk:…, at the identity address); its RPAs resolve to it, nothing else does")
    func adoptAndResolve() throws {
        let registry = try KnownDevices.inMemory()
        let added = try registry.adoptIdentities(from: [Self.bond(), Self.bond(peer: Self.local, irk: nil)])
        let octets = Self.sampleIRK.bigEndianOctets
        #expect(added.map(\.key) == [.irk(octets)])
        #expect(added.first?.irk == octets)
        #expect(added.first?.address == Self.identity)
        #expect(try registry.device(resolving: Self.sampleRPA)?.key == .irk(octets))
        // The same bits as a public address, a static address, another RPA: no match.
        #expect(try registry.device(resolving: LEAddress(Self.sampleRPA.address, type: .public)) == nil)
        #expect(try registry.device(resolving: Self.identity) == nil)
        #expect(try registry.device(resolving: LEAddress(BluetoothAddress(0x70_8194_0DFB_AB), type: .random)) == nil)
        // Adopting again changes nothing.
        #expect(try registry.adoptIdentities(from: [Self.bond()]).isEmpty)
        #expect(try registry.all().count == 1)
    }

    @Test("A device known by its identity address gets the IRK in its record, not a second record")
    func fillsKnownDevice() throws {
        let registry = try KnownDevices.inMemory()
        try registry.observe(
            key: .identityAddress(Self.identity), address: Self.identity, identifier: Self.identity.peerIdentifier,
            name: "tag")
        let changed = try registry.adoptIdentities(from: [Self.bond()])
        #expect(changed.map(\.key) == [.identityAddress(Self.identity)])
        #expect(try registry.all().count == 1)
        #expect(try registry.device(resolving: Self.sampleRPA)?.name == "tag")
    }

    @Test("A device on private addresses is recognised by its IRK at each new address, and re-bound (§1.3.2.2 renewal)")
    func recognisedAcrossAddressChanges() async throws {
        let radio = VirtualRadio()
        let deviceIRK = SMPKey128(high: 0x0A0B_0C0D_0E0F_1011, low: 0x1213_1415_1617_1819)
        try await radio.simulation.run {
            var configuration = HostConfiguration()
            configuration.identityResolvingKey = deviceIRK
            configuration.security.privacy = PrivacyPolicy(addressRenewal: .seconds(60))
            let device = try await PeripheralManager(radio: .virtual(radio), configuration: configuration)
            // The phone holds no bond: its host leaves the addresses as they are on air.
            let central = await CentralManager(radio: .virtual(radio, position: AirPosition(x: 2, y: 0, z: 0)))
            try await device.powerOn()
            try await central.powerOn()
            let identity = try #require(await device.stack.host.ownAddress)
            let registry = try KnownDevices.inMemory()
            try registry.adoptIdentities(from: [Self.bond(peer: identity, irk: deviceIRK)])
            try await device.startAdvertising(AdvertisementData(localName: "private", serviceUUIDs: [0xFE01]))

            func scan() async throws -> Discovery {
                let discoveries = try await central.scanForPeripherals(withServices: [0xFE01])
                var iterator = discoveries.makeAsyncIterator()
                let found = try #require(await iterator.next())
                await central.stopScan()
                return found
            }
            let first = try await scan()
            #expect(first.peripheral.address.kind == .resolvablePrivate)
            #expect(registry.identification.key(for: first) == nil, "no MAC, no identity address")
            let seen = try #require(try registry.observe(first))
            #expect(seen.device.key == .irk(deviceIRK.bigEndianOctets))
            #expect(seen.device.address == first.peripheral.address)

            try await radio.simulation.clock.sleep(for: .seconds(61))
            let second = try await scan()
            #expect(second.peripheral.address != first.peripheral.address)
            guard case .rebound(let old, let new)? = try registry.observe(second) else {
                Issue.record("not re-bound")
                return
            }
            #expect(old.key == new.key)
            #expect(new.address == second.peripheral.address)
            #expect(try registry.all().count == 1)

            // A search by key finds it by its IRK at its next address too.
            try await radio.simulation.clock.sleep(for: .seconds(61))
            let key = DeviceKey.irk(deviceIRK.bigEndianOctets)
            let found = try #require(
                try await registry.find(key, on: central, timeout: .seconds(5), clock: radio.simulation.clock))
            #expect(found.peripheral.address != second.peripheral.address)
            #expect(found.peripheral.address.kind == .resolvablePrivate)
            #expect(try registry.device(forKey: key)?.address == found.peripheral.address)
            await central.close()
            await device.close()
        }
    }
}
