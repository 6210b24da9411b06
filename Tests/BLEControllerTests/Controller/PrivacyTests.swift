import BLESimulation
import BLEWire
import Testing

@testable import BLEController

@Suite("LL privacy on air (Core 5.4 Vol 6 Part B §1.3.2, §6; Vol 4 Part E §7.7.65, §7.8.44, §7.8.77)")
struct PrivacyTests {
    typealias F = PrivacyFixture

    /// An advertiser A and a scanner/initiator B two metres apart.
    static func pair() -> (air: VirtualAir, a: TestHost, b: TestHost) {
        let air = VirtualAir()
        return (air, TestHost(air: air), TestHost(air: air, at: AirPosition(x: 2)))
    }

    /// Reports from the scanner's host with the time each arrived.
    static func timedReports(_ host: TestHost) -> [(time: VirtualInstant, address: LEAddress)] {
        host.events.flatMap { entry -> [(time: VirtualInstant, address: LEAddress)] in
            guard case .le(.advertisingReport(let report)) = entry.event else { return [] }
            return report.reports.map { (entry.time, $0.address) }
        }
    }

    static func localRPA(_ host: TestHost, toward peer: LEAddress) throws -> BluetoothAddress {
        try host.returnParameters(
            HCI.LEReadLocalResolvableAddress(peerIdentityAddressType: peer.type, peerIdentityAddress: peer.address)
        ).resolvableAddress
    }

    @Test(
        "Own address 0x02 toward a listed peer: AdvA is an RPA of the local IRK, as Read Local Resolvable Address says")
    func advertisingWithRPA() throws {
        let (_, a, b) = Self.pair()
        F.add(F.identity(of: b), peerIRK: F.irkB, localIRK: F.irkA, to: a)
        Scenario.advertise(a, ownAddressType: .resolvableOrPublic, peer: F.identity(of: b))
        Scenario.scan(b)
        b.run(for: .milliseconds(500))
        let addresses = Set(b.advertisingReports.map(\.address))
        #expect(addresses.count == 1)
        let advA = try #require(addresses.first)
        #expect(advA.type == .random && advA.kind == .resolvablePrivate)
        #expect(ResolvablePrivateAddress.resolves(advA.address, with: F.irkA))
        #expect(try Self.localRPA(a, toward: F.identity(of: b)) == advA.address)
    }

    @Test("Own address 0x02/0x03 without a usable entry falls back to the public or random address (§7.8.5)")
    func fallback() throws {
        let random = BluetoothAddress(0xC5_5555_5555_55)
        let stranger = LEAddress(BluetoothAddress(0x99_9999_9999_99), type: .public)
        for (type, listed, expected) in [
            (HCI.OwnAddressType.resolvableOrPublic, false, AddressType.public),
            (.resolvableOrRandom, false, .random),
            // Listed, but with an all-zero local IRK: no RPA either.
            (.resolvableOrPublic, true, .public),
        ] {
            let (_, a, b) = Self.pair()
            a.expectSuccess(HCI.LESetRandomAddress(randomAddress: random))
            if listed { F.add(F.identity(of: b), peerIRK: F.irkB, localIRK: .zero, to: a) }
            Scenario.advertise(a, ownAddressType: type, peer: listed ? F.identity(of: b) : stranger)
            Scenario.scan(b)
            b.run(for: .milliseconds(300))
            let advA = try #require(b.advertisingReports.first?.address)
            #expect(advA.type == expected)
            #expect(advA.address == (expected == .public ? a.controller.publicAddress : random))
        }
    }

    @Test("RPAs are renewed at the RPA timeout; a shorter timeout set later applies to the running timer (§7.8.45)")
    func regenerationAtTimeout() throws {
        let (air, a, b) = Self.pair()
        F.add(F.identity(of: b), peerIRK: F.irkB, localIRK: F.irkA, to: a)
        a.expectSuccess(HCI.LESetResolvablePrivateAddressTimeout(rpaTimeout: 1))
        let enabled = air.now
        Scenario.advertise(a, ownAddressType: .resolvableOrPublic, peer: F.identity(of: b))
        Scenario.scan(b)
        b.run(for: .milliseconds(3500))
        // The first time each address was heard.
        var firsts: [(time: VirtualInstant, address: BluetoothAddress)] = []
        for report in Self.timedReports(b) where firsts.last?.address != report.address.address {
            firsts.append((report.time, report.address.address))
        }
        #expect(firsts.count == 4)
        #expect(Set(firsts.map(\.address)).count == firsts.count)
        for (index, first) in firsts.enumerated() {
            #expect(ResolvablePrivateAddress.resolves(first.address, with: F.irkA))
            // Renewed every second from the enable; heard with the next advertising event
            // (interval 20 ms plus advDelay of at most 10 ms).
            let renewal = enabled.advanced(by: .seconds(index))
            #expect(first.time >= renewal && first.time < renewal.advanced(by: .milliseconds(31)))
        }
        #expect(try Self.localRPA(a, toward: F.identity(of: b)) == firsts.last?.address)

        // A timeout of 1 hour, then 1 s again 2.5 s into the current RPA's life: it expires at once.
        a.expectSuccess(HCI.LESetResolvablePrivateAddressTimeout(rpaTimeout: 3600))
        b.run(for: .milliseconds(2500))
        let before = try Self.localRPA(a, toward: F.identity(of: b))
        let changed = air.now
        a.expectSuccess(HCI.LESetResolvablePrivateAddressTimeout(rpaTimeout: 1))
        b.run(for: .milliseconds(100))
        let after = try Self.localRPA(a, toward: F.identity(of: b))
        #expect(before != after)
        let heard = Self.timedReports(b).first { $0.time >= changed && $0.address.address == after }
        #expect(heard != nil)
    }

    @Test(
        "Resolution on: a resolved AdvA is reported as the identity (type 0x02), an unresolvable RPA as received"
    )
    func resolutionInReports() throws {
        let (air, a, b) = Self.pair()
        let c = TestHost(air: air, at: AirPosition(x: -2))
        F.add(F.identity(of: b), peerIRK: F.irkB, localIRK: F.irkA, to: a)
        F.add(F.identity(of: b), peerIRK: F.irkB, localIRK: F.irkOther, to: c)
        F.add(F.identity(of: a), peerIRK: F.irkA, localIRK: F.irkB, to: b)
        F.setResolution(true, b)
        Scenario.advertise(a, ownAddressType: .resolvableOrPublic, peer: F.identity(of: b))
        Scenario.advertise(c, ownAddressType: .resolvableOrPublic, peer: F.identity(of: b))
        Scenario.scan(b)
        b.run(for: .milliseconds(500))
        let addresses = Set(b.advertisingReports.map(\.address))
        let identityA = LEAddress(a.controller.publicAddress, type: .publicIdentity)
        #expect(addresses.contains(identityA))
        #expect(identityA.type.rawValue == 0x02)
        // C's RPA comes from an IRK B does not know: it stays as received.
        let rpaC = try Self.localRPA(c, toward: F.identity(of: b))
        #expect(addresses.contains(LEAddress(rpaC, type: .random)))
        #expect(addresses.count == 2)
        // The peer RPA B resolved is what Read Peer Resolvable Address gives.
        let peer = try b.returnParameters(
            HCI.LEReadPeerResolvableAddress(
                peerIdentityAddressType: .public, peerIdentityAddress: a.controller.publicAddress))
        #expect(peer.resolvableAddress == (try Self.localRPA(a, toward: F.identity(of: b))))
    }

    @Test(
        "Extended advertising: AdvA resolved in reports; ScanA an RPA the advertiser resolves (Scan Request Received)"
    )
    func extendedAdvertisingAndScanRequests() throws {
        let (_, a, b) = Self.pair()
        F.add(F.identity(of: b), peerIRK: F.irkB, localIRK: F.irkA, to: a)
        F.add(F.identity(of: a), peerIRK: F.irkA, localIRK: F.irkB, to: b)
        F.setResolution(true, a)
        F.setResolution(true, b)
        let parameters = HCI.LESetExtendedAdvertisingParameters(
            advertisingEventProperties: [.scannable], primaryAdvertisingIntervalMin: 0x40,
            primaryAdvertisingIntervalMax: 0x40, ownAddressType: .resolvableOrPublic, peerAddressType: .public,
            peerAddress: b.controller.publicAddress, advertisingSID: 1, scanRequestNotificationEnable: true)
        #expect(a.complete(parameters).status == .success)
        a.expectSuccess(HCI.LESetExtendedScanResponseData(advertisingHandle: 0, scanResponseData: [0x02, 0x01, 0x06]))
        a.expectSuccess(
            HCI.LESetExtendedAdvertisingEnable(
                enable: true, sets: [.init(advertisingHandle: 0, duration: 0, maxExtendedAdvertisingEvents: 0)]))
        b.expectSuccess(
            HCI.LESetExtendedScanParameters(
                ownAddressType: .resolvableOrPublic,
                le1M: .init(scanType: .active, scanInterval: 0x20, scanWindow: 0x20)))
        b.expectSuccess(HCI.LESetExtendedScanEnable(enable: true))
        b.run(for: .milliseconds(500))
        let reported = Set(b.extendedReports.map(\.address))
        #expect(reported == [LEAddress(a.controller.publicAddress, type: .publicIdentity)])
        #expect(b.extendedReports.contains { $0.eventType.contains(.scanResponse) })
        let scanners = a.leEvents.compactMap { event -> LEAddress? in
            if case .scanRequestReceived(let r) = event { r.scannerAddress } else { nil }
        }
        #expect(!scanners.isEmpty)
        #expect(Set(scanners) == [LEAddress(b.controller.publicAddress, type: .publicIdentity)])
    }
}
