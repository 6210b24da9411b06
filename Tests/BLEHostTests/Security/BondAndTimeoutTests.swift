import BLEController
import BLESimulation
import BLEWire
import Testing

@testable import BLEHost

@Suite("Bonds across connections and the SMP timeout (Core 5.4 Vol 3 Part H §2.4, §3.4; Part C §10.3)")
struct BondAndTimeoutTests {
    @Test("Reconnection to a bonded peer re-encrypts from the bond (LE Enable Encryption) with no SMP traffic")
    func reconnectionReEncrypts() async throws {
        let centralBonds = InMemoryBondStore()
        let peripheralBonds = InMemoryBondStore()
        let pair = await PairingHosts.make(centralBonds: centralBonds, peripheralBonds: peripheralBonds)
        try await pair.simulation.run {
            var peripheralEvents = pair.peripheral.events.makeAsyncIterator()
            var centralEvents = pair.central.events.makeAsyncIterator()
            let (firstPeripheralHandle, firstHandle) = try await pair.connect(
                peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            let paired = try await pair.central.pair(firstHandle)
            // The responder completes when the initiator's keys arrive (§3.6.1), after the
            // central's pair() returned.
            #expect(await PairingHosts.isPaired(&peripheralEvents, on: firstPeripheralHandle))
            await PairingHosts.disconnect(
                pair, centralHandle: firstHandle, peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)

            let (peripheralHandle, centralHandle) = try await pair.connect(
                peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            // The central encrypts at once from the bond; nothing of pairing happens.
            let centralSeen = await PairingHosts.securityEvents(&centralEvents, on: centralHandle) {
                if case .changed(.encrypted) = $0 { true } else { false }
            }
            #expect(centralSeen == [.changed(paired)])
            let peripheralSeen = await PairingHosts.securityEvents(&peripheralEvents, on: peripheralHandle) {
                if case .changed(.encrypted) = $0 { true } else { false }
            }
            #expect(peripheralSeen == [.changed(paired)])
            // A Security Request on a link encrypted as asked needs nothing more (§2.4.6).
            #expect(try await pair.peripheral.pair(peripheralHandle) == paired)
            #expect(await pair.central.statistics.unexpectedSMPCommands == 0)
            await pair.central.stop()
            await pair.peripheral.stop()
        }
    }

    @Test(
        "A peripheral that lost the bond answers LE Long Term Key Request negatively: the central reports .peerLostBond (PIN or Key Missing)"
    )
    func peerLostBond() async throws {
        let centralBonds = InMemoryBondStore()
        let peripheralBonds = InMemoryBondStore()
        let pair = await PairingHosts.make(centralBonds: centralBonds, peripheralBonds: peripheralBonds)
        try await pair.simulation.run {
            var peripheralEvents = pair.peripheral.events.makeAsyncIterator()
            var centralEvents = pair.central.events.makeAsyncIterator()
            let (firstPeripheralHandle, firstHandle) = try await pair.connect(
                peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            _ = try await pair.central.pair(firstHandle)
            #expect(await PairingHosts.isPaired(&peripheralEvents, on: firstPeripheralHandle))
            await PairingHosts.disconnect(
                pair, centralHandle: firstHandle, peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            let centralAddress = try #require(await pair.central.ownAddress)
            #expect(try await pair.peripheral.removeBond(peer: centralAddress))

            let (_, centralHandle) = try await pair.connect(
                peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            let event = await PairingHosts.nextSecurityEvent(&centralEvents, on: centralHandle) {
                if case .peerLostBond = $0 { true } else { false }
            }
            #expect(event == .peerLostBond(peer: try #require(await pair.peripheral.ownAddress)))
            #expect(await pair.central.security(of: centralHandle) == .unencrypted(keyAvailable: true))
            #expect(await pair.peripheral.statistics.longTermKeyRequestsWithoutKey == 1)
            // Encrypting again with the bond meets the same answer.
            await #expect(throws: PairingError.encryptionFailed(.pinOrKeyMissing)) {
                try await pair.central.encrypt(centralHandle)
            }
            await pair.central.stop()
            await pair.peripheral.stop()
        }
    }

    @Test(
        "SMP timeout (§3.4): a peer that stops answering fails pairing after 30 s of virtual time; SMP is closed on the link"
    )
    func smpTimeout() async throws {
        // The peripheral's user never answers the authorization; its own SMP timer is longer,
        // so that it still answers later — into a link where the central closed SMP.
        let peripheralUser = ScriptedUser(holdsAuthorization: true)
        let pair = await PairingHosts.make(
            peripheral: PairingHosts.policy(.noInputNoOutput) { $0.pairingTimeout = .seconds(120) },
            peripheralAgent: peripheralUser)
        try await pair.simulation.run {
            var peripheralEvents = pair.peripheral.events.makeAsyncIterator()
            var centralEvents = pair.central.events.makeAsyncIterator()
            let (peripheralHandle, centralHandle) = try await pair.connect(
                peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            let clock = pair.simulation.clock
            let start = clock.now
            await #expect(throws: PairingError.timeout) { try await pair.central.pair(centralHandle) }
            let elapsed = start.duration(to: clock.now)
            #expect(elapsed >= .seconds(30) && elapsed < .seconds(31), "failed after \(elapsed)")
            #expect(await pair.central.statistics.smpTimeouts == 1)
            // No further SMP on the link: pairing again is refused at once…
            await #expect(throws: PairingError.securityManagerClosed) { try await pair.central.pair(centralHandle) }
            // …and the peer's late Pairing Response is dropped and counted.
            await peripheralUser.release()
            // (The peripheral's session then waits for a public key that never comes, and
            // times out after its 120 s: by then its Pairing Response reached the central.)
            let peripheralOutcome = await PairingHosts.nextSecurityEvent(&peripheralEvents, on: peripheralHandle) {
                PairingHosts.isOutcome($0)
            }
            #expect(peripheralOutcome == .pairingFailed(.timeout))
            #expect(await pair.central.statistics.smpPDUsAfterTimeout >= 1)
            #expect(await pair.central.security(of: centralHandle) == .none)
            #expect(await pair.central.connection(centralHandle) != nil)
            await pair.central.stop()
            await pair.peripheral.stop()
        }
    }
}

@Suite("Key distribution before the caller goes on (Core 5.4 Vol 3 Part H §3.6.1)")
struct KeyDeliveryTests {
    @Test(
        "The central's pair() returns once its keys are sent: a disconnection right after leaves the peripheral bonded")
    func disconnectRightAfterPairing() async throws {
        let centralBonds = InMemoryBondStore()
        let peripheralBonds = InMemoryBondStore()
        let pair = await PairingHosts.make(centralBonds: centralBonds, peripheralBonds: peripheralBonds)
        try await pair.simulation.run {
            var peripheralEvents = pair.peripheral.events.makeAsyncIterator()
            var centralEvents = pair.central.events.makeAsyncIterator()
            let (_, centralHandle) = try await pair.connect(
                peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            _ = try await pair.central.pair(centralHandle)
            await PairingHosts.disconnect(
                pair, centralHandle: centralHandle, peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            #expect(peripheralBonds.bonds().first?.peer == (await pair.central.ownAddress))
            #expect(peripheralBonds.bonds().first?.peerIRK == (await pair.central.identityResolvingKey))
            await pair.central.stop()
            await pair.peripheral.stop()
        }
    }
}
