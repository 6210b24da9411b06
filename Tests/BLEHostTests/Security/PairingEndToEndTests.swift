import BLEController
import BLESimulation
import BLEWire
import Testing

@testable import BLEHost

/// Pairing between two of our hosts on the virtual radio (Core 5.4 Vol 3 Part H): each method
/// end to end through SMP on CID 0x0006, encryption in the controllers (which disconnect with
/// MIC Failure, 0x3D, when the keys differ), bonds on both sides.
@Suite("Pairing end to end (Core 5.4 Vol 3 Part H) on the virtual radio")
struct PairingEndToEndTests {
    /// Pairs from the central and checks both sides end encrypted with the same key and, when
    /// both bond, hold matching bonds. Returns the central's security and both sides' events.
    private func pairAndCheck(
        _ pair: TwoHosts, authenticated: Bool,
        centralBonds: InMemoryBondStore, peripheralBonds: InMemoryBondStore
    ) async throws -> (central: [SecurityEvent], peripheral: [SecurityEvent]) {
        var peripheralEvents = pair.peripheral.events.makeAsyncIterator()
        var centralEvents = pair.central.events.makeAsyncIterator()
        let (peripheralHandle, centralHandle) = try await pair.connect(
            peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)

        let security = try await pair.central.pair(centralHandle)
        guard case .encrypted(let keySize, let isAuthenticated, let secureConnections) = security else {
            Issue.record("not encrypted after pairing: \(security)")
            return ([], [])
        }
        #expect(keySize == 16)
        #expect(isAuthenticated == authenticated)
        #expect(secureConnections)
        let centralSeen = await PairingHosts.securityEvents(
            &centralEvents, on: centralHandle, until: PairingHosts.isOutcome)
        let peripheralSeen = await PairingHosts.securityEvents(
            &peripheralEvents, on: peripheralHandle, until: PairingHosts.isOutcome)
        // Both links encrypted alike: the controllers compared the keys (a mismatch is a
        // disconnection with MIC Failure before Encryption Change).
        #expect(await pair.peripheral.security(of: peripheralHandle) == security)
        #expect(await pair.central.connection(centralHandle) != nil)

        let centralBond = try #require(centralBonds.bonds().first)
        let peripheralBond = try #require(peripheralBonds.bonds().first)
        #expect(centralBond.peer == (await pair.peripheral.ownAddress))
        #expect(peripheralBond.peer == (await pair.central.ownAddress))
        // Secure Connections: one LTK, the same on both sides.
        #expect(centralBond.peerLongTermKey != nil)
        #expect(centralBond.peerLongTermKey == peripheralBond.localLongTermKey)
        #expect(centralBond.authenticated == authenticated && peripheralBond.authenticated == authenticated)
        #expect(centralBond.peerIRK == (await pair.peripheral.identityResolvingKey))
        #expect(peripheralBond.peerIRK == (await pair.central.identityResolvingKey))
        return (centralSeen, peripheralSeen)
    }

    @Test("Just Works (§2.3.5.6.1): both sides encrypted with one key, bonds saved on both, events reported")
    func justWorks() async throws {
        let centralBonds = InMemoryBondStore()
        let peripheralBonds = InMemoryBondStore()
        let pair = await PairingHosts.make(centralBonds: centralBonds, peripheralBonds: peripheralBonds)
        try await pair.simulation.run {
            let (central, peripheral) = try await pairAndCheck(
                pair, authenticated: false, centralBonds: centralBonds, peripheralBonds: peripheralBonds)
            #expect(central.first == .pairingStarted(.justWorks))
            #expect(peripheral.first == .pairingStarted(.justWorks))
            #expect(central.contains(.changed(.encrypted(keySize: 16, authenticated: false, secureConnections: true))))
            guard case .paired(let bond?)? = central.last else {
                Issue.record("no .paired with a bond: \(central)")
                return
            }
            #expect(bond == centralBonds.bonds().first)
            #expect(await pair.central.statistics == HostStatistics())
            #expect(await pair.peripheral.statistics == HostStatistics())
            await pair.central.stop()
            await pair.peripheral.stop()
        }
    }

    @Test("Numeric Comparison (§2.3.5.6.2): both users see the same six digits and confirm; the key is authenticated")
    func numericComparison() async throws {
        let centralUser = ScriptedUser()
        let peripheralUser = ScriptedUser()
        let centralBonds = InMemoryBondStore()
        let peripheralBonds = InMemoryBondStore()
        let pair = await PairingHosts.make(
            central: PairingHosts.policy(.displayYesNo), peripheral: PairingHosts.policy(.displayYesNo),
            centralAgent: centralUser, peripheralAgent: peripheralUser, centralBonds: centralBonds,
            peripheralBonds: peripheralBonds)
        try await pair.simulation.run {
            let (central, _) = try await pairAndCheck(
                pair, authenticated: true, centralBonds: centralBonds, peripheralBonds: peripheralBonds)
            #expect(central.first == .pairingStarted(.numericComparison))
            let centralValues = await centralUser.compared
            let peripheralValues = await peripheralUser.compared
            #expect(centralValues.count == 1)
            #expect(centralValues == peripheralValues)
            #expect(centralValues.allSatisfy { $0 < 1_000_000 })
            await pair.central.stop()
            await pair.peripheral.stop()
        }
    }

    @Test("Numeric Comparison refused by one user: Numeric Comparison Failed, no bond, the link unencrypted")
    func numericComparisonRefused() async throws {
        let centralBonds = InMemoryBondStore()
        let pair = await PairingHosts.make(
            central: PairingHosts.policy(.displayYesNo), peripheral: PairingHosts.policy(.displayYesNo),
            centralAgent: ScriptedUser(), peripheralAgent: ScriptedUser(confirms: false), centralBonds: centralBonds)
        try await pair.simulation.run {
            var peripheralEvents = pair.peripheral.events.makeAsyncIterator()
            var centralEvents = pair.central.events.makeAsyncIterator()
            let (_, centralHandle) = try await pair.connect(
                peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            await #expect(throws: PairingError.failed(.numericComparisonFailed, byPeer: true)) {
                try await pair.central.pair(centralHandle)
            }
            #expect(await pair.central.security(of: centralHandle) == .none)
            #expect(centralBonds.bonds().isEmpty)
            await pair.central.stop()
            await pair.peripheral.stop()
        }
    }

    @Test("Passkey Entry (§2.3.5.6.3): the peripheral displays, the central's user types it; authenticated")
    func passkeyEntry() async throws {
        let board = PasskeyBoard()
        let centralUser = ScriptedUser(board: board)
        let peripheralUser = ScriptedUser(board: board)
        let centralBonds = InMemoryBondStore()
        let peripheralBonds = InMemoryBondStore()
        let pair = await PairingHosts.make(
            central: PairingHosts.policy(.keyboardOnly), peripheral: PairingHosts.policy(.displayOnly),
            centralAgent: centralUser, peripheralAgent: peripheralUser, centralBonds: centralBonds,
            peripheralBonds: peripheralBonds)
        try await pair.simulation.run {
            let (central, peripheral) = try await pairAndCheck(
                pair, authenticated: true, centralBonds: centralBonds, peripheralBonds: peripheralBonds)
            #expect(central.first == .pairingStarted(.passkeyEntry(displays: false)))
            #expect(peripheral.first == .pairingStarted(.passkeyEntry(displays: true)))
            #expect(await peripheralUser.displayed.count == 1)
            await pair.central.stop()
            await pair.peripheral.stop()
        }
    }

    @Test(
        "Security Request (§3.6.7): the peripheral asks, the central pairs; the peripheral's pair() returns encrypted")
    func securityRequestMakesCentralPair() async throws {
        let centralBonds = InMemoryBondStore()
        let peripheralBonds = InMemoryBondStore()
        let pair = await PairingHosts.make(centralBonds: centralBonds, peripheralBonds: peripheralBonds)
        try await pair.simulation.run {
            var peripheralEvents = pair.peripheral.events.makeAsyncIterator()
            var centralEvents = pair.central.events.makeAsyncIterator()
            let (peripheralHandle, centralHandle) = try await pair.connect(
                peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            let security = try await pair.peripheral.pair(peripheralHandle)
            #expect(security.isEncrypted)
            let central = await PairingHosts.securityEvents(
                &centralEvents, on: centralHandle, until: PairingHosts.isOutcome)
            #expect(central.first == .pairingStarted(.justWorks))
            #expect(await pair.central.security(of: centralHandle) == security)
            #expect(centralBonds.bonds().count == 1 && peripheralBonds.bonds().count == 1)
            await pair.central.stop()
            await pair.peripheral.stop()
        }
    }

    @Test("Concurrent pair() calls wait for the same pairing (one Pairing Request)")
    func concurrentCallersShareOnePairing() async throws {
        let pair = await PairingHosts.make()
        try await pair.simulation.run {
            var peripheralEvents = pair.peripheral.events.makeAsyncIterator()
            var centralEvents = pair.central.events.makeAsyncIterator()
            let (_, centralHandle) = try await pair.connect(
                peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            async let first = pair.central.pair(centralHandle)
            async let second = pair.central.pair(centralHandle)
            let (a, b) = try await (first, second)
            #expect(a == b && a.isEncrypted)
            let events = await PairingHosts.securityEvents(
                &centralEvents, on: centralHandle, until: PairingHosts.isOutcome)
            #expect(events.filter { if case .pairingStarted = $0 { true } else { false } }.count == 1)
            await pair.central.stop()
            await pair.peripheral.stop()
        }
    }
}

@Suite("LE legacy pairing end to end (Core 5.4 Vol 3 Part H §2.3.5.2–§2.3.5.5)")
struct LegacyPairingEndToEndTests {
    @Test(
        "Legacy Passkey Entry with a peripheral without Secure Connections: STK, then distributed LTK/EDIV/Rand; re-encryption from the bond"
    )
    func legacyPasskeyEntry() async throws {
        let board = PasskeyBoard()
        let centralBonds = InMemoryBondStore()
        let peripheralBonds = InMemoryBondStore()
        let pair = await PairingHosts.make(
            central: PairingHosts.policy(.keyboardOnly) { $0.allowsLegacyPairingAsCentral = true },
            peripheral: PairingHosts.policy(.displayOnly), centralAgent: ScriptedUser(board: board),
            peripheralAgent: ScriptedUser(board: board), centralBonds: centralBonds, peripheralBonds: peripheralBonds)
        await pair.peripheral.setSupportsSecureConnections(false)
        try await pair.simulation.run {
            var peripheralEvents = pair.peripheral.events.makeAsyncIterator()
            var centralEvents = pair.central.events.makeAsyncIterator()
            let (peripheralHandle, centralHandle) = try await pair.connect(
                peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            let security = try await pair.central.pair(centralHandle)
            #expect(security == .encrypted(keySize: 16, authenticated: true, secureConnections: false))
            #expect(await PairingHosts.isPaired(&peripheralEvents, on: peripheralHandle))
            #expect(await pair.peripheral.security(of: peripheralHandle) == security)
            // Legacy: each side distributed its own LTK with EDIV and Rand (§3.6.2–§3.6.3).
            let centralBond = try #require(centralBonds.bonds().first)
            let peripheralBond = try #require(peripheralBonds.bonds().first)
            #expect(centralBond.peerLongTermKey != nil)
            #expect(centralBond.peerLongTermKey == peripheralBond.localLongTermKey)
            #expect(centralBond.secureConnections == false)

            // The next connection encrypts with the distributed LTK (LE Long Term Key Request
            // names it by EDIV and Rand).
            await PairingHosts.disconnect(
                pair, centralHandle: centralHandle, peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            let (_, again) = try await pair.connect(peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            let event = await PairingHosts.nextSecurityEvent(&centralEvents, on: again)
            #expect(event == .changed(security))
            await pair.central.stop()
            await pair.peripheral.stop()
        }
    }

    @Test("A central that does not allow legacy pairing (the default) refuses it: Authentication Requirements")
    func legacyRefusedByDefault() async throws {
        let pair = await PairingHosts.make()
        await pair.peripheral.setSupportsSecureConnections(false)
        try await pair.simulation.run {
            var peripheralEvents = pair.peripheral.events.makeAsyncIterator()
            var centralEvents = pair.central.events.makeAsyncIterator()
            let (_, centralHandle) = try await pair.connect(
                peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            await #expect(throws: PairingError.failed(.authenticationRequirements, byPeer: false)) {
                try await pair.central.pair(centralHandle)
            }
            await pair.central.stop()
            await pair.peripheral.stop()
        }
    }
}
