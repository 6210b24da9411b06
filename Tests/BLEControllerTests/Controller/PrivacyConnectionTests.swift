import BLEWire
import Testing

@testable import BLEController

@Suite("LL privacy in connections and privacy modes (Core 5.4 Vol 6 Part B §6; Vol 4 Part E §7.7.65.10, §7.8.77)")
struct PrivacyConnectionTests {
    typealias F = PrivacyFixture

    /// A and B know each other's IRKs and resolve; A advertises with an RPA toward B.
    static func bonded(enhanced: Bool) -> (air: VirtualAir, a: TestHost, b: TestHost) {
        let (air, a, b) = PrivacyTests.pair()
        F.add(F.identity(of: b), peerIRK: F.irkB, localIRK: F.irkA, to: a)
        F.add(F.identity(of: a), peerIRK: F.irkA, localIRK: F.irkB, to: b)
        F.setResolution(true, a)
        F.setResolution(true, b)
        if enhanced {
            let mask = TestHost.defaultLEMask.union(.enhancedConnectionComplete)
            a.expectSuccess(HCI.LESetEventMask(leEventMask: mask))
            b.expectSuccess(HCI.LESetEventMask(leEventMask: mask))
        }
        Scenario.advertise(a, ownAddressType: .resolvableOrPublic, peer: F.identity(of: b))
        return (air, a, b)
    }

    static func create(
        _ central: TestHost, to peer: LEAddress, own: HCI.OwnAddressType = .resolvableOrPublic
    ) -> HCIStatus {
        central.status(
            HCI.LECreateConnection(
                leScanInterval: 0x10, leScanWindow: 0x10, peerAddressType: peer.type, peerAddress: peer.address,
                ownAddressType: own, connectionParameters: Scenario.parameters))
    }

    static func enhancedComplete(_ host: TestHost) -> LEMetaEvent.EnhancedConnectionComplete? {
        host.waitForLE(after: 0, limit: .seconds(2)) { event -> LEMetaEvent.EnhancedConnectionComplete? in
            if case .enhancedConnectionComplete(let e) = event { e } else { nil }
        }
    }

    static func legacyComplete(_ host: TestHost, limit: Duration = .seconds(2)) -> LEMetaEvent.ConnectionComplete? {
        host.waitForLE(after: 0, limit: limit) { event -> LEMetaEvent.ConnectionComplete? in
            if case .connectionComplete(let c) = event { c } else { nil }
        }
    }

    @Test("Enhanced Connection Complete: identity addresses (0x02) and the local and peer RPAs both sides used")
    func enhancedConnectionComplete() throws {
        let (_, a, b) = Self.bonded(enhanced: true)
        #expect(Self.create(b, to: F.identity(of: a)) == .success)
        let central = try #require(Self.enhancedComplete(b))
        let peripheral = try #require(Self.enhancedComplete(a))
        #expect(central.status == .success && peripheral.status == .success)
        #expect(central.role == .central && peripheral.role == .peripheral)
        #expect(central.peerAddress == LEAddress(a.controller.publicAddress, type: .publicIdentity))
        #expect(peripheral.peerAddress == LEAddress(b.controller.publicAddress, type: .publicIdentity))
        // Each side's local RPA is the other's peer RPA, made from its own local IRK.
        #expect(central.localResolvablePrivateAddress == peripheral.peerResolvablePrivateAddress)
        #expect(peripheral.localResolvablePrivateAddress == central.peerResolvablePrivateAddress)
        #expect(ResolvablePrivateAddress.resolves(central.localResolvablePrivateAddress, with: F.irkB))
        #expect(ResolvablePrivateAddress.resolves(peripheral.localResolvablePrivateAddress, with: F.irkA))
        #expect(try PrivacyTests.localRPA(a, toward: F.identity(of: b)) == peripheral.localResolvablePrivateAddress)
    }

    @Test("LE Connection Complete carries the resolved peer's identity address with type 0x02")
    func legacyConnectionComplete() throws {
        let (_, a, b) = Self.bonded(enhanced: false)
        #expect(Self.create(b, to: F.identity(of: a)) == .success)
        let central = try #require(Self.legacyComplete(b))
        let peripheral = try #require(Self.legacyComplete(a))
        #expect(central.peerAddress == LEAddress(a.controller.publicAddress, type: .publicIdentity))
        #expect(peripheral.peerAddress == LEAddress(b.controller.publicAddress, type: .publicIdentity))
        #expect(central.peerAddress.type.rawValue == 0x02)
    }

    @Test("Without resolution an RPA stays as received: Enhanced Connection Complete has zero peer RPA")
    func unresolvedConnection() throws {
        let (_, a, b) = PrivacyTests.pair()
        F.add(F.identity(of: b), peerIRK: F.irkB, localIRK: F.irkA, to: a)
        let mask = TestHost.defaultLEMask.union(.enhancedConnectionComplete)
        b.expectSuccess(HCI.LESetEventMask(leEventMask: mask))
        Scenario.advertise(a, ownAddressType: .resolvableOrPublic, peer: F.identity(of: b))
        let rpa = try PrivacyTests.localRPA(a, toward: F.identity(of: b))
        // The host resolves by itself and names the RPA it saw.
        #expect(Self.create(b, to: LEAddress(rpa, type: .random), own: .public) == .success)
        let central = try #require(Self.enhancedComplete(b))
        #expect(central.peerAddress == LEAddress(rpa, type: .random))
        #expect(central.peerResolvablePrivateAddress == .zero && central.localResolvablePrivateAddress == .zero)
    }

    @Test("Network privacy ignores a listed peer that advertises its identity; device privacy reports it (type 0x00)")
    func scannerPrivacyModes() {
        let (_, a, b) = PrivacyTests.pair()
        F.add(F.identity(of: a), peerIRK: F.irkA, localIRK: F.irkB, to: b)
        F.setResolution(true, b)
        Scenario.advertise(a)
        Scenario.scan(b)
        b.run(for: .milliseconds(500))
        #expect(b.advertisingReports.isEmpty)
        // A connection attempt toward it is not answered either.
        b.expectSuccess(HCI.LESetScanEnable(leScanEnable: false, filterDuplicates: false))
        #expect(Self.create(b, to: F.identity(of: a), own: .public) == .success)
        b.run(for: .milliseconds(300))
        b.expectSuccess(HCI.LECreateConnectionCancel())
        #expect(Self.legacyComplete(b)?.status == .unknownConnectionIdentifier)
        b.expectSuccess(
            HCI.LESetPrivacyMode(
                peerIdentityAddressType: .public, peerIdentityAddress: a.controller.publicAddress, privacyMode: .device)
        )
        b.clearEvents()
        Scenario.scan(b)
        b.run(for: .milliseconds(500))
        #expect(Set(b.advertisingReports.map(\.address)) == [F.identity(of: a)])
        b.expectSuccess(HCI.LESetScanEnable(leScanEnable: false, filterDuplicates: false))
        #expect(Self.create(b, to: F.identity(of: a), own: .public) == .success)
        #expect(Self.legacyComplete(b)?.peerAddress == F.identity(of: a))
    }

    @Test(
        "An advertiser in network privacy refuses a listed initiator's identity address; in device privacy it accepts")
    func advertiserPrivacyModes() {
        let (_, a, b) = PrivacyTests.pair()
        F.add(F.identity(of: b), peerIRK: F.irkB, localIRK: .zero, to: a)
        F.setResolution(true, a)
        Scenario.advertise(a)
        #expect(Self.create(b, to: F.identity(of: a), own: .public) == .success)
        b.run(for: .milliseconds(500))
        // B believes it sent CONNECT_IND, but A ignored it: no connection on A's side, B's fails.
        #expect(a.connectionCompletes.isEmpty)
        #expect(a.controller.isAdvertising)
        let (_, c, d) = PrivacyTests.pair()
        F.add(F.identity(of: d), peerIRK: F.irkB, localIRK: .zero, to: c)
        c.expectSuccess(
            HCI.LESetPrivacyMode(
                peerIdentityAddressType: .public, peerIdentityAddress: d.controller.publicAddress, privacyMode: .device)
        )
        F.setResolution(true, c)
        Scenario.advertise(c)
        #expect(Self.create(d, to: F.identity(of: c), own: .public) == .success)
        #expect(Self.legacyComplete(c)?.peerAddress == F.identity(of: d))
    }

    @Test("Directed advertising toward a listed peer targets an RPA of its IRK, which only a resolving peer accepts")
    func directedAdvertisingToRPA() throws {
        let (_, a, b) = PrivacyTests.pair()
        F.add(F.identity(of: b), peerIRK: F.irkB, localIRK: F.irkA, to: a)
        // A resolves too: B will answer with an RPA as InitA.
        F.setResolution(true, a)
        Scenario.advertise(
            a, type: .connectableDirectedLowDutyCycle, ownAddressType: .resolvableOrPublic, peer: F.identity(of: b))
        let target = try #require(a.controller.advertisingSets[AdvertisingSet.legacyHandle]?.run?.target)
        #expect(target.kind == .resolvablePrivate && ResolvablePrivateAddress.resolves(target.address, with: F.irkB))
        let peerRPA = try a.returnParameters(
            HCI.LEReadPeerResolvableAddress(
                peerIdentityAddressType: .public, peerIdentityAddress: b.controller.publicAddress))
        #expect(peerRPA.resolvableAddress == target.address)
        // Without resolution B does not recognise itself in TargetA.
        Scenario.scan(b)
        b.run(for: .milliseconds(300))
        #expect(b.advertisingReports.isEmpty)
        b.expectSuccess(HCI.LESetScanEnable(leScanEnable: false, filterDuplicates: false))
        F.add(F.identity(of: a), peerIRK: F.irkA, localIRK: F.irkB, to: b)
        F.setResolution(true, b)
        Scenario.scan(b)
        b.run(for: .milliseconds(300))
        let identityA = LEAddress(a.controller.publicAddress, type: .publicIdentity)
        #expect(b.advertisingReports.contains { $0.eventType == .advDirectInd && $0.address == identityA })
        b.expectSuccess(HCI.LESetScanEnable(leScanEnable: false, filterDuplicates: false))
        #expect(Self.create(b, to: F.identity(of: a)) == .success)
        #expect(Self.legacyComplete(b)?.peerAddress == identityA)
        #expect(Self.legacyComplete(a)?.peerAddress == LEAddress(b.controller.publicAddress, type: .publicIdentity))
    }
}
