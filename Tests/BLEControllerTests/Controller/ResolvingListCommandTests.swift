import BLESimulation
import BLEWire
import Testing

@testable import BLEController

/// IRKs and identities shared by the privacy tests.
enum PrivacyFixture {
    /// The IRK of the specification's sample data (Core 5.4 Vol 3 Part H Appendix D.7).
    static let sampleIRK = HCI.Key128(0xEC02_34A3_57C8_AD05_3410_10A6_0A39_7D9B)
    static let irkA = HCI.Key128(0x0A0A_0A0A_0A0A_0A0A_0A0A_0A0A_0A0A_0A01)
    static let irkB = HCI.Key128(0x0B0B_0B0B_0B0B_0B0B_0B0B_0B0B_0B0B_0B02)
    static let irkOther = HCI.Key128(0x0C0C_0C0C_0C0C_0C0C_0C0C_0C0C_0C0C_0C03)

    static func identity(of host: TestHost) -> LEAddress { LEAddress(host.controller.publicAddress, type: .public) }

    static func add(
        _ peer: LEAddress, peerIRK: HCI.Key128, localIRK: HCI.Key128, to host: TestHost,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        host.expectSuccess(
            HCI.LEAddDeviceToResolvingList(
                peerIdentityAddressType: peer.type, peerIdentityAddress: peer.address, peerIRK: peerIRK,
                localIRK: localIRK),
            sourceLocation: sourceLocation)
    }

    static func status(_ host: TestHost, add peer: LEAddress, peerIRK: HCI.Key128 = .zero) -> HCIStatus? {
        host.complete(
            HCI.LEAddDeviceToResolvingList(
                peerIdentityAddressType: peer.type, peerIdentityAddress: peer.address, peerIRK: peerIRK,
                localIRK: irkA)
        ).status
    }

    static func setResolution(_ enabled: Bool, _ host: TestHost, sourceLocation: SourceLocation = #_sourceLocation) {
        host.expectSuccess(
            HCI.LESetAddressResolutionEnable(addressResolutionEnable: enabled), sourceLocation: sourceLocation)
    }
}

@Suite("RPAs and the resolving list (Core 5.4 Vol 3 Part H §2.2.2; Vol 4 Part E §7.8.38–§7.8.45, §7.8.77)")
struct ResolvingListCommandTests {
    typealias F = PrivacyFixture

    @Test("ah with the specification's sample data: IRK ec0234a3…9b, prand 708194 → hash 0dfbaa (Vol 3 Part H D.7)")
    func ahSampleData() {
        #expect(ResolvablePrivateAddress.ah(irk: F.sampleIRK, 0x70_8194) == 0x0D_FBAA)
        let address = ResolvablePrivateAddress.make(prand: 0x70_8194, irk: F.sampleIRK)
        #expect(address == BluetoothAddress(0x70_8194_0DFB_AA))
        #expect(ResolvablePrivateAddress.resolves(address, with: F.sampleIRK))
        #expect(!ResolvablePrivateAddress.resolves(address, with: F.irkA))
        // A wrong hash, or a prand without the 0b01 marker, does not resolve.
        #expect(!ResolvablePrivateAddress.resolves(BluetoothAddress(0x70_8194_0DFB_AB), with: F.sampleIRK))
        #expect(!ResolvablePrivateAddress.resolves(BluetoothAddress(0xF0_8194_0DFB_AA), with: F.sampleIRK))
    }

    @Test("Generated RPAs: top bits 0b01, a random part neither all 0 nor all 1, resolvable with their IRK (§1.3.2.2)")
    func generation() {
        var random = SeededRandomGenerator(seed: 42)
        var seen: Set<BluetoothAddress> = []
        for _ in 0..<200 {
            let address = ResolvablePrivateAddress.generate(irk: F.irkA, using: &random)
            #expect(LEAddress(address, type: .random).kind == .resolvablePrivate)
            let randomPart = UInt32(truncatingIfNeeded: address.value >> 24) & ResolvablePrivateAddress.randomPart
            #expect(randomPart != 0 && randomPart != ResolvablePrivateAddress.randomPart)
            #expect(ResolvablePrivateAddress.resolves(address, with: F.irkA))
            #expect(!ResolvablePrivateAddress.resolves(address, with: F.irkB))
            seen.insert(address)
        }
        #expect(seen.count == 200)
    }

    @Test("Add, Remove, Clear, Read Resolving List Size: duplicates 0x12, full 0x07, unknown 0x02")
    func listCommands() throws {
        let host = TestHost(air: VirtualAir(), configuration: .init(resolvingListSize: 2))
        #expect(try host.returnParameters(HCI.LEReadResolvingListSize()).resolvingListSize == 2)
        let one = LEAddress(BluetoothAddress(0x11_2233_4455_66), type: .public)
        let two = LEAddress(BluetoothAddress(0xC1_2233_4455_66), type: .random)
        let three = LEAddress(BluetoothAddress(0x33_2233_4455_66), type: .public)
        #expect(F.status(host, add: one, peerIRK: F.irkA) == .success)
        // The same identity again, or another identity with the same non-zero peer IRK.
        #expect(F.status(host, add: one, peerIRK: F.irkB) == .invalidHCICommandParameters)
        #expect(F.status(host, add: two, peerIRK: F.irkA) == .invalidHCICommandParameters)
        // Identity types other than public (0x00) and random (0x01) are not identities.
        #expect(
            F.status(host, add: LEAddress(three.address, type: .publicIdentity), peerIRK: F.irkB)
                == .invalidHCICommandParameters)
        #expect(F.status(host, add: two, peerIRK: F.irkB) == .success)
        #expect(F.status(host, add: three, peerIRK: F.irkOther) == .memoryCapacityExceeded)
        // The same public/random value under the other type is another device.
        let remove = { (address: LEAddress) in
            host.complete(
                HCI.LERemoveDeviceFromResolvingList(
                    peerIdentityAddressType: address.type, peerIdentityAddress: address.address)
            ).status
        }
        #expect(remove(LEAddress(one.address, type: .random)) == .unknownConnectionIdentifier)
        #expect(remove(one) == .success)
        #expect(remove(one) == .unknownConnectionIdentifier)
        #expect(F.status(host, add: three, peerIRK: F.irkOther) == .success)
        host.expectSuccess(HCI.LEClearResolvingList())
        #expect(remove(two) == .unknownConnectionIdentifier)
        #expect(host.controller.privacy.resolvingList.isEmpty)
    }

    @Test("With resolution enabled the list is locked while advertising, scanning or initiating: 0x0C")
    func lockedWhileInUse() {
        let air = VirtualAir()
        let host = TestHost(air: air)
        let peer = LEAddress(BluetoothAddress(0x11_2233_4455_66), type: .public)
        Scenario.advertise(host)
        // Resolution disabled: the list may change under a running advertiser.
        #expect(F.status(host, add: peer, peerIRK: F.irkA) == .success)
        // Address resolution itself may not be switched while advertising.
        #expect(
            host.complete(HCI.LESetAddressResolutionEnable(addressResolutionEnable: true)).status
                == .commandDisallowed)
        host.expectSuccess(HCI.LESetAdvertisingEnable(advertisingEnable: false))
        F.setResolution(true, host)
        Scenario.scan(host)
        let other = LEAddress(BluetoothAddress(0x22_2233_4455_66), type: .public)
        #expect(F.status(host, add: other, peerIRK: F.irkB) == .commandDisallowed)
        #expect(host.complete(HCI.LEClearResolvingList()).status == .commandDisallowed)
        #expect(
            host.complete(
                HCI.LESetPrivacyMode(
                    peerIdentityAddressType: .public, peerIdentityAddress: peer.address, privacyMode: .device)
            ).status == .commandDisallowed)
        #expect(
            host.complete(
                HCI.LERemoveDeviceFromResolvingList(peerIdentityAddressType: .public, peerIdentityAddress: peer.address)
            )
            .status == .commandDisallowed)
        host.expectSuccess(HCI.LESetScanEnable(leScanEnable: false, filterDuplicates: false))
        #expect(F.status(host, add: other, peerIRK: F.irkB) == .success)
        // A pending create connection locks it too.
        #expect(Scenario.createConnection(host, to: TestHost(air: air, at: AirPosition(x: 5))) == .success)
        #expect(host.complete(HCI.LEClearResolvingList()).status == .commandDisallowed)
        #expect(
            host.complete(HCI.LESetAddressResolutionEnable(addressResolutionEnable: false)).status
                == .commandDisallowed)
    }

    @Test("Set Resolvable Private Address Timeout: 1 s to 1 hour, else 0x12")
    func rpaTimeoutRange() {
        let host = TestHost(air: VirtualAir())
        #expect(host.controller.privacy.rpaTimeout == .seconds(900))
        for value: UInt16 in [0x0000, 0x0E11, 0xFFFF] {
            #expect(
                host.complete(HCI.LESetResolvablePrivateAddressTimeout(rpaTimeout: value)).status
                    == .invalidHCICommandParameters)
        }
        host.expectSuccess(HCI.LESetResolvablePrivateAddressTimeout(rpaTimeout: 0x0001))
        host.expectSuccess(HCI.LESetResolvablePrivateAddressTimeout(rpaTimeout: 0x0E10))
        #expect(host.controller.privacy.rpaTimeout == .seconds(3600))
    }

    @Test("Set Privacy Mode: unknown peer 0x02, invalid mode 0x12; Read Peer/Local RPA of an unknown peer: 0x02")
    func privacyModeAndReads() {
        let host = TestHost(air: VirtualAir())
        let peer = LEAddress(BluetoothAddress(0x11_2233_4455_66), type: .public)
        let setMode = { (mode: HCI.LESetPrivacyMode.PrivacyMode) in
            host.complete(
                HCI.LESetPrivacyMode(
                    peerIdentityAddressType: .public, peerIdentityAddress: peer.address, privacyMode: mode)
            ).status
        }
        #expect(setMode(.device) == .unknownConnectionIdentifier)
        F.add(peer, peerIRK: F.irkB, localIRK: F.irkA, to: host)
        #expect(host.controller.privacy.resolvingList.first?.privacyMode == .network)
        #expect(setMode(.other(2)) == .invalidHCICommandParameters)
        #expect(setMode(.device) == .success)
        #expect(host.controller.privacy.resolvingList.first?.privacyMode == .device)
        let readPeer = HCI.LEReadPeerResolvableAddress(peerIdentityAddressType: .public, peerIdentityAddress: .zero)
        let readLocal = HCI.LEReadLocalResolvableAddress(peerIdentityAddressType: .public, peerIdentityAddress: .zero)
        #expect(host.complete(readPeer).status == .unknownConnectionIdentifier)
        #expect(host.complete(readLocal).status == .unknownConnectionIdentifier)
        // Listed, but no RPA in use toward it yet, and none of its own seen.
        #expect(
            host.complete(
                HCI.LEReadPeerResolvableAddress(peerIdentityAddressType: .public, peerIdentityAddress: peer.address)
            ).status == .unknownConnectionIdentifier)
        #expect(
            host.complete(
                HCI.LEReadLocalResolvableAddress(peerIdentityAddressType: .public, peerIdentityAddress: peer.address)
            ).status == .unknownConnectionIdentifier)
    }

    @Test("Reset empties the resolving list, disables resolution and restores the 900 s timeout")
    func reset() {
        let host = TestHost(air: VirtualAir())
        F.add(
            LEAddress(BluetoothAddress(0x11_2233_4455_66), type: .public), peerIRK: F.irkB, localIRK: F.irkA, to: host)
        F.setResolution(true, host)
        host.expectSuccess(HCI.LESetResolvablePrivateAddressTimeout(rpaTimeout: 5))
        host.expectSuccess(HCI.Reset())
        #expect(host.controller.privacy.resolvingList.isEmpty)
        #expect(!host.controller.privacy.resolutionEnabled)
        #expect(host.controller.privacy.rpaTimeout == .seconds(900))
    }

    @Test("Read Local Supported Commands lists the privacy commands; LE features report LL Privacy")
    func supportedCommands() throws {
        let host = TestHost(air: VirtualAir())
        let reported = try host.returnParameters(HCI.ReadLocalSupportedCommands()).supportedCommands
        let privacy: [HCIOpcode] = [
            HCI.LEAddDeviceToResolvingList.opcode, HCI.LERemoveDeviceFromResolvingList.opcode,
            HCI.LEClearResolvingList.opcode, HCI.LEReadResolvingListSize.opcode,
            HCI.LEReadPeerResolvableAddress.opcode, HCI.LEReadLocalResolvableAddress.opcode,
            HCI.LESetAddressResolutionEnable.opcode, HCI.LESetResolvablePrivateAddressTimeout.opcode,
            HCI.LESetPrivacyMode.opcode,
        ]
        for opcode in privacy { #expect(reported.contains(opcode), "\(opcode)") }
        let features = try host.returnParameters(HCI.LEReadLocalSupportedFeatures()).leFeatures
        #expect(features.contains(.llPrivacy))
    }
}
