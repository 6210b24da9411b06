import BLEWire
import Crypto
import Testing

@testable import BLEHost

/// Every pairing method in both roles: an initiator and a responder `PairingSession` run
/// against each other (Core 5.4 Vol 3 Part H §2.3.5), making the same key and exchanging keys
/// crosswise (§3.6.1).
@Suite("PairingSession: every method, initiator against responder (Core 5.4 Vol 3 Part H §2.3.5)")
struct PairingSessionMethodTests {
    static func policy(
        _ io: SMP.IOCapability, legacyAsCentral: Bool = false, requiresMITM: Bool = false
    ) -> SecurityPolicy {
        var policy = SecurityPolicy()
        policy.ioCapability = io
        policy.allowsLegacyPairingAsCentral = legacyAsCentral
        policy.requiresMITM = requiresMITM
        return policy
    }

    /// Both sides completed with the same key and each holds what the other distributed.
    static func expectCompleted(
        _ h: PairingHarness, method: PairingMethod, secureConnections: Bool, authenticated: Bool,
        keySize: Int = 16, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let i = h.keys[.initiator], let r = h.keys[.responder] else {
            Issue.record("pairing did not complete: \(h.errors)", sourceLocation: sourceLocation)
            return
        }
        // The key the initiator encrypts with is the one the responder gives the controller.
        #expect(h.encryptionKey[.initiator]?.0 == h.encryptionKey[.responder]?.0, sourceLocation: sourceLocation)
        #expect(
            h.encryptionKey[.initiator]?.1
                == .encrypted(keySize: keySize, authenticated: authenticated, secureConnections: secureConnections),
            sourceLocation: sourceLocation)
        #expect(h.methods[.initiator] == method || h.methods[.responder] == method, sourceLocation: sourceLocation)
        for keys in [i, r] {
            #expect(keys.secureConnections == secureConnections, sourceLocation: sourceLocation)
            #expect(keys.authenticated == authenticated, sourceLocation: sourceLocation)
            #expect(keys.keySize == keySize, sourceLocation: sourceLocation)
            #expect(keys.bonded, sourceLocation: sourceLocation)
        }
        // Crosswise: what one distributed, the other holds.
        #expect(i.peerLongTermKey != nil && i.peerLongTermKey == r.localLongTermKey, sourceLocation: sourceLocation)
        #expect(r.peerLongTermKey != nil && r.peerLongTermKey == i.localLongTermKey, sourceLocation: sourceLocation)
        #expect(i.peerIRK == PairingHarness.peripheralIRK, sourceLocation: sourceLocation)
        #expect(r.peerIRK == PairingHarness.centralIRK, sourceLocation: sourceLocation)
        #expect(i.peerIdentityAddress == PairingHarness.peripheralAddress, sourceLocation: sourceLocation)
        #expect(r.peerIdentityAddress == PairingHarness.centralAddress, sourceLocation: sourceLocation)
        #expect(i.peerCSRK != nil && i.peerCSRK == r.localCSRK, sourceLocation: sourceLocation)
        #expect(r.peerCSRK != nil && r.peerCSRK == i.localCSRK, sourceLocation: sourceLocation)
        if secureConnections {
            // One LTK from f5, EDIV and Rand 0 (§2.4.2.3); the same both ways.
            #expect(i.peerLongTermKey == i.localLongTermKey, sourceLocation: sourceLocation)
            #expect(i.peerLongTermKey?.ediv == 0 && i.peerLongTermKey?.rand == 0, sourceLocation: sourceLocation)
        } else {
            // Legacy: each side's own random LTK, neither the STK.
            #expect(i.peerLongTermKey != i.localLongTermKey, sourceLocation: sourceLocation)
            #expect(i.peerLongTermKey != h.encryptionKey[.initiator]?.0, sourceLocation: sourceLocation)
        }
        #expect(h.initiator.isFinished && h.responder.isFinished, sourceLocation: sourceLocation)
        #expect(h.errors.isEmpty, sourceLocation: sourceLocation)
    }

    // MARK: LE Secure Connections

    @Test("Secure Connections Just Works (§2.3.5.6.2): unauthenticated, Secure Connections, 16 octets")
    func secureConnectionsJustWorks() {
        var h = PairingHarness()
        h.run()
        Self.expectCompleted(h, method: .justWorks, secureConnections: true, authenticated: false)
        #expect(h.comparedNumbers.isEmpty)
    }

    @Test("Secure Connections Numeric Comparison (§2.3.5.6.2): both sides show the same six digits")
    func numericComparison() {
        var h = PairingHarness(initiator: Self.policy(.displayYesNo), responder: Self.policy(.keyboardDisplay))
        h.run()
        Self.expectCompleted(h, method: .numericComparison, secureConnections: true, authenticated: true)
        #expect(h.comparedNumbers[.initiator] != nil)
        #expect(h.comparedNumbers[.initiator] == h.comparedNumbers[.responder])
        #expect((h.comparedNumbers[.initiator] ?? 1_000_000) < 1_000_000)
    }

    @Test(
        "Secure Connections Passkey Entry (§2.3.5.6.3), 20 rounds, each role displaying",
        arguments: [(SMP.IOCapability.keyboardOnly, SMP.IOCapability.displayOnly), (.displayOnly, .keyboardOnly)])
    func passkeyEntry(initiatorIO: SMP.IOCapability, responderIO: SMP.IOCapability) {
        var h = PairingHarness(initiator: Self.policy(initiatorIO), responder: Self.policy(responderIO))
        h.run()
        Self.expectCompleted(h, method: h.methods[.initiator]!, secureConnections: true, authenticated: true)
        #expect(h.methods[.initiator] == .passkeyEntry(displays: initiatorIO == .displayOnly))
        #expect(h.methods[.responder] == .passkeyEntry(displays: responderIO == .displayOnly))
        // 20 Pairing Confirm and 20 Pairing Random each way.
        let confirms = h.sent[.initiator]!.filter { $0.code == .pairingConfirm }.count
        let randoms = h.sent[.responder]!.filter { $0.code == .pairingRandom }.count
        #expect(confirms == 20 && randoms == 20)
    }

    @Test("Secure Connections Passkey Entry with two keyboards: both type the same passkey")
    func passkeyBothInput() {
        var h = PairingHarness(initiator: Self.policy(.keyboardOnly), responder: Self.policy(.keyboardOnly))
        h.answer = { _, question, harness in
            if case .enterPasskey = question { return .passkey(314_159) }
            return PairingHarness.defaultAnswer(.initiator, question, harness)
        }
        h.run()
        Self.expectCompleted(h, method: .passkeyEntry(displays: false), secureConnections: true, authenticated: true)
    }

    @Test(
        "Secure Connections Out of Band (§2.3.5.6.4): data one way or both ways",
        arguments: [false, true])
    func outOfBand(bothWays: Bool) throws {
        let iKey = P256.KeyAgreement.PrivateKey()
        let rKey = P256.KeyAgreement.PrivateKey()
        let iRandom = SMPKey128(high: 0xAAAA, low: 0x0001)
        let rRandom = SMPKey128(high: 0xBBBB, low: 0x0002)
        let iData = PairingSession.localOutOfBandData(random: iRandom, privateKey: iKey)
        let rData = PairingSession.localOutOfBandData(random: rRandom, privateKey: rKey)
        var h = PairingHarness { configuration, side in
            configuration.privateKey = side == .initiator ? iKey : rKey
            configuration.localOutOfBandRandom = side == .initiator ? iRandom : rRandom
            // The initiator read the responder's data (an NFC tag); the responder the
            // initiator's only when `bothWays`.
            configuration.hasPeerOutOfBandData = side == .initiator || bothWays
        }
        h.answer = { side, question, harness in
            if case .outOfBandData = question { return .outOfBand(side == .initiator ? rData : iData) }
            return PairingHarness.defaultAnswer(side, question, harness)
        }
        h.run()
        Self.expectCompleted(h, method: .outOfBand, secureConnections: true, authenticated: true)
    }

    // MARK: LE legacy pairing

    static func legacyHarness(
        _ initiatorIO: SMP.IOCapability = .noInputNoOutput, _ responderIO: SMP.IOCapability = .noInputNoOutput,
        configure: @escaping (inout PairingSession.Configuration, PairingHarness.Side) -> Void = { _, _ in }
    ) -> PairingHarness {
        PairingHarness(
            initiator: policy(initiatorIO, legacyAsCentral: true), responder: policy(responderIO)
        ) { configuration, side in
            // The peripheral is a legacy-only device.
            if side == .responder { configuration.supportsSecureConnections = false }
            configure(&configuration, side)
        }
    }

    @Test("Legacy Just Works (§2.3.5.2): TK 0, STK from s1, LTK/EDIV/Rand distributed both ways")
    func legacyJustWorks() {
        var h = Self.legacyHarness()
        h.run()
        Self.expectCompleted(h, method: .justWorks, secureConnections: false, authenticated: false)
        #expect(h.sent[.responder]!.contains { $0.code == .encryptionInformation })
        #expect(h.sent[.initiator]!.contains { $0.code == .centralIdentification })
    }

    @Test(
        "Legacy Passkey Entry (§2.3.5.3): TK is the passkey, either side displaying",
        arguments: [(SMP.IOCapability.keyboardOnly, SMP.IOCapability.displayOnly), (.displayYesNo, .keyboardOnly)])
    func legacyPasskey(initiatorIO: SMP.IOCapability, responderIO: SMP.IOCapability) {
        var h = Self.legacyHarness(initiatorIO, responderIO)
        h.run()
        Self.expectCompleted(h, method: h.methods[.initiator]!, secureConnections: false, authenticated: true)
        #expect(h.displayedPasskey != nil)
    }

    @Test("Legacy Passkey Entry, two KeyboardDisplay devices: the initiator displays (Table 2.8)")
    func legacyKeyboardDisplayBoth() {
        var h = Self.legacyHarness(.keyboardDisplay, .keyboardDisplay)
        h.run()
        #expect(h.methods[.initiator] == .passkeyEntry(displays: true))
        #expect(h.methods[.responder] == .passkeyEntry(displays: false))
        Self.expectCompleted(h, method: .passkeyEntry(displays: true), secureConnections: false, authenticated: true)
    }

    @Test("Legacy Out of Band (§2.3.5.4): both hold the OOB TK")
    func legacyOutOfBand() {
        let tk = SMPKey128(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
        var h = Self.legacyHarness { configuration, _ in configuration.hasPeerOutOfBandData = true }
        h.answer = { side, question, harness in
            if case .outOfBandData = question { return .outOfBand(.legacy(temporaryKey: tk)) }
            return PairingHarness.defaultAnswer(side, question, harness)
        }
        h.run()
        Self.expectCompleted(h, method: .outOfBand, secureConnections: false, authenticated: true)
    }

    @Test("Legacy with one OOB flag is not OOB (§2.3.5.1: both must have the data)")
    func legacyOneSidedOutOfBand() {
        var h = Self.legacyHarness { configuration, side in configuration.hasPeerOutOfBandData = side == .initiator }
        h.run()
        Self.expectCompleted(h, method: .justWorks, secureConnections: false, authenticated: false)
    }

    // MARK: Negotiation details

    @Test("Key size: the smaller maximum, and the keys masked to it (§2.3.4)")
    func keySizeNegotiation() {
        var initiator = SecurityPolicy()
        initiator.maximumKeySize = 10
        initiator.minimumKeySize = 7
        var responder = SecurityPolicy()
        responder.minimumKeySize = 7
        for legacy in [false, true] {
            var i = initiator
            i.allowsLegacyPairingAsCentral = true
            var h = PairingHarness(initiator: i, responder: responder) { configuration, side in
                if legacy && side == .responder { configuration.supportsSecureConnections = false }
            }
            h.run()
            Self.expectCompleted(h, method: .justWorks, secureConnections: !legacy, authenticated: false, keySize: 10)
            // The 6 most significant octets of every key the link uses are zero.
            let stk = h.encryptionKey[.initiator]!.0.key
            #expect(stk.high >> 16 == 0)
            if legacy { #expect(h.keys[.initiator]!.peerLongTermKey!.key.high >> 16 == 0) }
        }
    }

    @Test("Bonding only when both set Bonding_Flags; without it no keys are distributed", arguments: [false, true])
    func notBondable(legacy: Bool) {
        var central = SecurityPolicy()
        central.allowsLegacyPairingAsCentral = true
        var h = PairingHarness(initiator: central) { configuration, side in
            if side == .responder {
                configuration.bondable = false
                configuration.supportsSecureConnections = !legacy
            }
        }
        h.run()
        #expect(h.keys[.initiator]?.bonded == false)
        #expect(h.keys[.responder]?.bonded == false)
        #expect(h.keys[.initiator]?.peerIRK == nil)
        #expect(!h.sent.values.joined().contains { $0.code.entry?.phase == .keyDistribution })
        // Secure Connections still gives the link its LTK; legacy only the STK it encrypted with.
        #expect((h.keys[.initiator]?.peerLongTermKey != nil) == !legacy)
    }

    @Test("A Security Request makes the initiator send Pairing Request (§3.6.7), with its MITM bit")
    func securityRequest() {
        var h = PairingHarness()
        var peripheral = SecurityPolicy()
        peripheral.requiresMITM = true
        let request = PairingSession.securityRequest(policy: peripheral)
        guard case .securityRequest(let sr) = request else {
            Issue.record("not a Security Request")
            return
        }
        #expect(sr.authReq.contains(.mitm) && sr.authReq.contains(.secureConnections))
        #expect(sr.authReq.bondingFlags == .bonding)
        let out = h.initiator.received(request)
        guard case .send(.pairingRequest(let pairingRequest)) = out.first else {
            Issue.record("no Pairing Request: \(out)")
            return
        }
        #expect(pairingRequest.features.authReq.contains(.mitm))
        #expect(out.contains(.startTimer))
    }

    @Test("Encryption Change reaching the responder first: its keys wait for the initiator's event")
    func responderEncryptsFirst() {
        var h = PairingHarness()
        h.responderEncryptsFirst = true
        h.run()
        Self.expectCompleted(h, method: .justWorks, secureConnections: true, authenticated: false)
    }

    @Test("The random source is injectable: the same seeds give the same legacy keys")
    func deterministic() {
        func run() -> PairingKeys? {
            var h = Self.legacyHarness { configuration, side in
                configuration.random = seededRandom(side == .initiator ? 1 : 2)
            }
            h.run()
            return h.keys[.initiator]
        }
        let first = run()
        #expect(first != nil)
        #expect(first == run())
    }

    @Test("The SMP timer starts with Pairing Request and stops at completion (§3.4)")
    func timer() {
        var h = PairingHarness()
        h.run()
        #expect(h.actions[.initiator]!.first(where: { $0 == .startTimer || $0 == .stopTimer }) == .startTimer)
        #expect(h.actions[.initiator]!.last == .stopTimer || h.actions[.initiator]!.dropLast().last == .stopTimer)
        #expect(h.actions[.responder]!.contains(.stopTimer))
    }

    @Test("The PairingKeys make the Bond of the contract")
    func bond() {
        var h = PairingHarness()
        h.run()
        let bond = h.keys[.initiator]!.bond(local: PairingHarness.centralAddress, peerAddress: PairingHarness.peripheralAddress)
        #expect(bond.peer == PairingHarness.peripheralAddress)
        #expect(bond.peerIRK == PairingHarness.peripheralIRK)
        #expect(bond.security == .encrypted(keySize: 16, authenticated: false, secureConnections: true))
    }
}
