import BLEWire
import Crypto
import Testing

@testable import BLEHost

/// Every Pairing Failed reason where it applies (Core 5.4 Vol 3 Part H §3.5.5), the invalid-curve
/// key (CVE-2018-5383), the SMP timeout (§3.4) and the repeated-attempts rule (§2.3.6).
@Suite("PairingSession: Pairing Failed, the invalid-curve key, timeout, repeated attempts (Core 5.4 Vol 3 Part H §3.5.5)")
struct PairingSessionFailureTests {
    typealias Side = PairingHarness.Side

    /// `side` sent Pairing Failed with `reason`, the other side reports it from the peer, no
    /// key was ever used and both sessions are over.
    static func expectFailed(
        _ h: PairingHarness, by side: Side, _ reason: SMP.PairingFailedReason, error: PairingError? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let other: Side = side == .initiator ? .responder : .initiator
        #expect(h.failures(sentBy: side) == [reason], sourceLocation: sourceLocation)
        #expect(h.errors[side] == (error ?? .failed(reason, byPeer: false)), sourceLocation: sourceLocation)
        #expect(h.errors[other] == .failed(reason, byPeer: true), sourceLocation: sourceLocation)
        #expect(h.keys.isEmpty, sourceLocation: sourceLocation)
        #expect(h.initiator.isFinished && h.responder.isFinished, sourceLocation: sourceLocation)
    }

    static func io(_ io: SMP.IOCapability) -> SecurityPolicy {
        var policy = SecurityPolicy()
        policy.ioCapability = io
        return policy
    }

    // MARK: The user

    @Test("The agent declines: Pairing Not Supported (0x05), reported as declined")
    func declined() {
        for side in [Side.initiator, .responder] {
            var h = PairingHarness()
            h.answer = { asked, question, harness in
                if case .authorize = question, asked == side { return .authorized(false) }
                return PairingHarness.defaultAnswer(asked, question, harness)
            }
            h.run()
            Self.expectFailed(h, by: side, .pairingNotSupported, error: .declined)
        }
    }

    @Test("The user cancels passkey entry: Passkey Entry Failed (0x01), SC and legacy")
    func passkeyCancelled() {
        for legacy in [false, true] {
            var initiator = Self.io(.keyboardOnly)
            initiator.allowsLegacyPairingAsCentral = true
            var h = PairingHarness(initiator: initiator, responder: Self.io(.displayOnly)) { configuration, side in
                if legacy && side == .responder { configuration.supportsSecureConnections = false }
            }
            h.answer = { side, question, harness in
                if case .enterPasskey = question { return .passkey(nil) }
                return PairingHarness.defaultAnswer(side, question, harness)
            }
            h.run()
            Self.expectFailed(h, by: .initiator, .passkeyEntryFailed)
        }
    }

    @Test("A wrong passkey: Confirm Value Failed (0x04), SC (first round) and legacy")
    func wrongPasskey() {
        for legacy in [false, true] {
            var initiator = Self.io(.keyboardOnly)
            initiator.allowsLegacyPairingAsCentral = true
            var h = PairingHarness(initiator: initiator, responder: Self.io(.displayOnly)) { configuration, side in
                if legacy && side == .responder { configuration.supportsSecureConnections = false }
            }
            h.answer = { side, question, harness in
                if case .enterPasskey = question {
                    return harness.displayedPasskey.map { .passkey(($0 + 1) % 1_000_000) }
                }
                return PairingHarness.defaultAnswer(side, question, harness)
            }
            h.run()
            // The responder opens the initiator's commitment first and finds it wrong.
            Self.expectFailed(h, by: .responder, .confirmValueFailed)
            #expect(!h.anyEncryption)
        }
    }

    @Test("Numeric comparison rejected: Numeric Comparison Failed (0x0C)")
    func numericComparisonRejected() {
        for side in [Side.initiator, .responder] {
            var h = PairingHarness(initiator: Self.io(.displayYesNo), responder: Self.io(.displayYesNo))
            h.answer = { asked, question, harness in
                if case .confirmNumber = question, asked == side { return .confirmed(false) }
                // The other user has not answered yet.
                if case .confirmNumber = question { return nil }
                return PairingHarness.defaultAnswer(asked, question, harness)
            }
            h.run()
            Self.expectFailed(h, by: side, .numericComparisonFailed)
            #expect(!h.anyEncryption)
        }
    }

    @Test("No OOB data from the agent: OOB Not Available (0x02), SC and legacy")
    func outOfBandNotAvailable() {
        // The responder gave its data out of band, but the initiator's agent cannot find it.
        var h = PairingHarness { configuration, side in
            configuration.hasPeerOutOfBandData = side == .initiator
            configuration.localOutOfBandRandom = SMPKey128(high: 5, low: 6)
        }
        h.run()
        Self.expectFailed(h, by: .initiator, .oobNotAvailable)
        var legacy = SecurityPolicy()
        legacy.allowsLegacyPairingAsCentral = true
        var l = PairingHarness(initiator: legacy) { configuration, side in
            configuration.hasPeerOutOfBandData = true
            if side == .responder { configuration.supportsSecureConnections = false }
        }
        l.answer = { side, question, harness in
            if case .outOfBandData = question, side == .responder { return .outOfBand(nil) }
            if case .outOfBandData = question { return nil }
            return PairingHarness.defaultAnswer(side, question, harness)
        }
        l.run()
        Self.expectFailed(l, by: .responder, .oobNotAvailable)
    }

    @Test("The peer claims our SC OOB data but this host gave none: OOB Not Available")
    func outOfBandNeverGiven() {
        let rKey = P256.KeyAgreement.PrivateKey()
        let rData = PairingSession.localOutOfBandData(random: SMPKey128(high: 1, low: 2), privateKey: rKey)
        var h = PairingHarness { configuration, side in
            configuration.hasPeerOutOfBandData = side == .initiator
            if side == .responder { configuration.privateKey = rKey }
        }
        h.answer = { side, question, harness in
            if case .outOfBandData = question { return .outOfBand(rData) }
            return PairingHarness.defaultAnswer(side, question, harness)
        }
        h.run()
        Self.expectFailed(h, by: .responder, .oobNotAvailable)
    }

    @Test("OOB data that does not match the peer's key: Confirm Value Failed (§2.3.5.6.4)")
    func outOfBandWrongConfirm() {
        let rKey = P256.KeyAgreement.PrivateKey()
        let random = SMPKey128(high: 1, low: 2)
        // The confirm value of another key: the public key received is not the one given out of band.
        let stale = PairingSession.localOutOfBandData(random: random, privateKey: P256.KeyAgreement.PrivateKey())
        var h = PairingHarness { configuration, side in
            configuration.hasPeerOutOfBandData = side == .initiator
            if side == .responder {
                configuration.privateKey = rKey
                configuration.localOutOfBandRandom = random
            }
        }
        h.answer = { side, question, harness in
            if case .outOfBandData = question { return .outOfBand(stale) }
            return PairingHarness.defaultAnswer(side, question, harness)
        }
        h.run()
        Self.expectFailed(h, by: .initiator, .confirmValueFailed)
        #expect(!h.anyEncryption)
    }

    // MARK: Policy

    @Test("MITM required and only Just Works possible: Authentication Requirements (0x03), either side")
    func mitmRequired() {
        var strict = SecurityPolicy()
        strict.requiresMITM = true
        var h = PairingHarness(initiator: strict)
        h.run()
        Self.expectFailed(h, by: .initiator, .authenticationRequirements)
        var r = PairingHarness(responder: strict)
        r.run()
        Self.expectFailed(r, by: .responder, .authenticationRequirements)
    }

    @Test("Legacy refused by default as central, and in Secure Connections Only mode as peripheral (0x03)")
    func legacyRefused() {
        var h = PairingHarness { configuration, side in
            if side == .responder { configuration.supportsSecureConnections = false }
        }
        h.run()
        Self.expectFailed(h, by: .initiator, .authenticationRequirements)

        var scOnly = SecurityPolicy()
        scOnly.secureConnectionsOnly = true
        var central = SecurityPolicy()
        central.allowsLegacyPairingAsCentral = true
        var p = PairingHarness(initiator: central, responder: scOnly) { configuration, side in
            if side == .initiator { configuration.supportsSecureConnections = false }
        }
        p.run()
        Self.expectFailed(p, by: .responder, .authenticationRequirements)

        var noLegacy = SecurityPolicy()
        noLegacy.allowsLegacyPairingAsPeripheral = false
        var q = PairingHarness(initiator: central, responder: noLegacy) { configuration, side in
            if side == .initiator { configuration.supportsSecureConnections = false }
        }
        q.run()
        Self.expectFailed(q, by: .responder, .authenticationRequirements)
    }

    @Test("A key size below the minimum: Encryption Key Size (0x06), either side")
    func keySizeTooSmall() {
        var small = SecurityPolicy()
        small.maximumKeySize = 7
        small.minimumKeySize = 7
        var h = PairingHarness(initiator: small)
        h.run()
        Self.expectFailed(h, by: .responder, .encryptionKeySize)
        var r = PairingHarness(responder: small)
        r.run()
        Self.expectFailed(r, by: .initiator, .encryptionKeySize)
    }

    @Test("Secure Connections Only mode refuses a key under 16 octets (Part C §10.2.4)")
    func secureConnectionsOnlyKeySize() {
        var scOnly = SecurityPolicy()
        scOnly.secureConnectionsOnly = true
        scOnly.minimumKeySize = 7
        var small = SecurityPolicy()
        small.maximumKeySize = 12
        small.minimumKeySize = 7
        var h = PairingHarness(initiator: small, responder: scOnly)
        h.run()
        Self.expectFailed(h, by: .responder, .encryptionKeySize)
    }

    @Test("Repeated attempts: a held-back peer is refused with Repeated Attempts (0x09)")
    func repeatedAttemptsRefusal() {
        var h = PairingHarness { configuration, side in configuration.refusesAsRepeatedAttempts = side == .responder }
        h.run()
        Self.expectFailed(h, by: .responder, .repeatedAttempts)
        // An initiator held back does not even send Pairing Request.
        var i = PairingHarness { configuration, side in configuration.refusesAsRepeatedAttempts = side == .initiator }
        i.run()
        #expect(i.sent[.initiator]!.isEmpty)
        #expect(i.errors[.initiator] == .failed(.repeatedAttempts, byPeer: false))
    }

    // MARK: Bad input

    @Test("Reserved IO capability, OOB flag or key size outside 7–16: Invalid Parameters (0x0A)")
    func invalidParameters() {
        let good = SMP.PairingFeatures(
            ioCapability: .noInputNoOutput, authReq: SMP.AuthReq(bondingFlags: .bonding, [.secureConnections]),
            initiatorKeyDistribution: [.idKey], responderKeyDistribution: [.idKey])
        var bad: [SMP.PairingFeatures] = []
        var f = good
        f.ioCapability = .reserved(0x07)
        bad.append(f)
        f = good
        f.oobDataFlag = .reserved(0x02)
        bad.append(f)
        f = good
        f.maximumEncryptionKeySize = 20
        bad.append(f)
        f = good
        f.maximumEncryptionKeySize = 6
        bad.append(f)
        for features in bad {
            var responder = PairingSession(
                role: .responder, configuration: PairingHarness.configuration(.responder, .default))
            let out = responder.received(.pairingRequest(SMP.PairingRequest(features: features)))
            #expect(out.first == .send(.pairingFailed(SMP.PairingFailed(reason: .invalidParameters))))
            #expect(out.contains(.failed(.failed(.invalidParameters, byPeer: false))))
            #expect(responder.isFinished)
            // And as the initiator's Pairing Response.
            var initiator = PairingSession(
                role: .initiator, configuration: PairingHarness.configuration(.initiator, .default))
            _ = initiator.start()
            let answer = initiator.received(.pairingResponse(SMP.PairingResponse(features: features)))
            #expect(answer.first == .send(.pairingFailed(SMP.PairingFailed(reason: .invalidParameters))))
        }
    }

    @Test("Identity Address Information with a reserved address type: Invalid Parameters (§3.6.5)")
    func reservedIdentityAddressType() {
        var h = PairingHarness()
        h.tamper = { side, command in
            if side == .responder, case .identityAddressInformation(var info) = command {
                info.addressType = .reserved(0x05)
                return .identityAddressInformation(info)
            }
            return nil
        }
        h.run()
        Self.expectFailed(h, by: .initiator, .invalidParameters)
    }

    @Test("A reserved command code, or one the other role sends: Command Not Supported (0x07)")
    func commandNotSupported() {
        for command: SMPCommand in [
            .unknown(code: 0x20, parameters: [1, 2, 3]),
            .pairingResponse(
                SMP.PairingResponse(
                    features: SMP.PairingFeatures(
                        ioCapability: .displayOnly, authReq: [], initiatorKeyDistribution: [],
                        responderKeyDistribution: []))),
            .securityRequest(SMP.SecurityRequest(authReq: [])),
        ] {
            var responder = PairingSession(
                role: .responder, configuration: PairingHarness.configuration(.responder, .default))
            let out = responder.received(command)
            #expect(out.first == .send(.pairingFailed(SMP.PairingFailed(reason: .commandNotSupported))))
            #expect(responder.isFinished)
        }
        var initiator = PairingSession(role: .initiator, configuration: PairingHarness.configuration(.initiator, .default))
        _ = initiator.start()
        let out = initiator.received(.unknown(code: 0xFF, parameters: []))
        #expect(out.first == .send(.pairingFailed(SMP.PairingFailed(reason: .commandNotSupported))))
    }

    @Test("A command out of sequence: Unspecified Reason (0x08)")
    func unexpectedCommand() {
        // A Pairing Random before any pairing.
        var responder = PairingSession(role: .responder, configuration: PairingHarness.configuration(.responder, .default))
        let out = responder.received(.pairingRandom(SMP.PairingRandom(randomValue: .zero)))
        #expect(out.first == .send(.pairingFailed(SMP.PairingFailed(reason: .unspecifiedReason))))
        // A DHKey check in place of the Pairing Confirm during Just Works.
        var h = PairingHarness()
        h.tamper = { side, command in
            if side == .responder, case .pairingConfirm = command {
                return .pairingDHKeyCheck(SMP.PairingDHKeyCheck(dhKeyCheck: .zero))
            }
            return nil
        }
        h.run()
        Self.expectFailed(h, by: .initiator, .unspecifiedReason)
        // Key distribution in the wrong order.
        var k = PairingHarness()
        k.tamper = { side, command in
            if side == .responder, case .identityInformation = command {
                return .signingInformation(SMP.SigningInformation(signatureKey: .zero))
            }
            return nil
        }
        k.run()
        Self.expectFailed(k, by: .initiator, .unspecifiedReason)
    }

    // MARK: A man in the middle

    @Test("A tampered Pairing Confirm: Confirm Value Failed (0x04) before any key")
    func tamperedConfirm() {
        var h = PairingHarness()
        h.tamper = { side, command in
            if side == .responder, case .pairingConfirm(let c) = command {
                return .pairingConfirm(SMP.PairingConfirm(confirmValue: c.confirmValue ^ SMPKey128(high: 0, low: 1)))
            }
            return nil
        }
        h.run()
        Self.expectFailed(h, by: .initiator, .confirmValueFailed)
        #expect(!h.anyEncryption)
    }

    @Test("A tampered Pairing Request (legacy, c1 covers it): Confirm Value Failed")
    func tamperedLegacyRequest() {
        var central = SecurityPolicy()
        central.allowsLegacyPairingAsCentral = true
        var h = PairingHarness(initiator: central) { configuration, side in
            if side == .responder { configuration.supportsSecureConnections = false }
        }
        h.tamper = { side, command in
            if side == .initiator, case .pairingRequest(var request) = command {
                request.features.responderKeyDistribution.remove(.signKey)
                return .pairingRequest(request)
            }
            return nil
        }
        h.run()
        Self.expectFailed(h, by: .responder, .confirmValueFailed)
    }

    @Test("A tampered DHKey check: DHKey Check Failed (0x0B), never a key")
    func tamperedDHKeyCheck() {
        var h = PairingHarness()
        h.tamper = { side, command in
            if side == .initiator, case .pairingDHKeyCheck(let c) = command {
                return .pairingDHKeyCheck(SMP.PairingDHKeyCheck(dhKeyCheck: c.dhKeyCheck ^ SMPKey128(high: 1, low: 0)))
            }
            return nil
        }
        h.run()
        Self.expectFailed(h, by: .responder, .dhKeyCheckFailed)
        #expect(!h.anyEncryption)
    }

    // MARK: CVE-2018-5383

    /// Replaces `side`'s public key on the wire with `key(original)`.
    static func invalidKey(
        to victim: Side, _ key: @escaping (SMP.PairingPublicKey) -> SMP.PairingPublicKey
    ) -> PairingHarness {
        var h = PairingHarness()
        h.tamper = { side, command in
            if side != victim, case .pairingPublicKey(let original) = command { return .pairingPublicKey(key(original)) }
            return nil
        }
        h.run()
        return h
    }

    @Test(
        "A public key off the curve (CVE-2018-5383): DHKey Check Failed (0x0B), no key, either side",
        arguments: [Side.initiator, .responder])
    func invalidCurve(victim: Side) {
        // Y = 0: the fixed-coordinate attack's point is not on P-256.
        var h = Self.invalidKey(to: victim) { SMP.PairingPublicKey(x: $0.x, y: .zero) }
        Self.expectFailed(h, by: victim, .dhKeyCheckFailed)
        #expect(!h.anyEncryption)
        // The same X with another Y.
        h = Self.invalidKey(to: victim) { key in
            var y = key.y
            y.word0 ^= 1
            return SMP.PairingPublicKey(x: key.x, y: y)
        }
        Self.expectFailed(h, by: victim, .dhKeyCheckFailed)
        #expect(!h.anyEncryption)
        // All zero.
        h = Self.invalidKey(to: victim) { _ in SMP.PairingPublicKey(x: .zero, y: .zero) }
        Self.expectFailed(h, by: victim, .dhKeyCheckFailed)
    }

    /// p − y on P-256 (p = 2²⁵⁶ − 2²²⁴ + 2¹⁹² + 2⁹⁶ − 1): the Y of the negated point.
    static func negated(_ y: SMPKey256) -> SMPKey256 {
        let p: [UInt64] = [0xFFFF_FFFF_0000_0001, 0, 0x0000_0000_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF]
        let value = [y.word3, y.word2, y.word1, y.word0]
        var result = [UInt64](repeating: 0, count: 4)
        var borrow: UInt64 = 0
        for i in (0..<4).reversed() {
            let (d1, o1) = p[i].subtractingReportingOverflow(value[i])
            let (d2, o2) = d1.subtractingReportingOverflow(borrow)
            result[i] = d2
            borrow = (o1 || o2) ? 1 : 0
        }
        return SMPKey256(word3: result[0], word2: result[1], word1: result[2], word0: result[3])
    }

    @Test("Our own public key reflected back, or our X with another Y (even the on-curve −P): DHKey Check Failed")
    func reflectedKey() throws {
        let rKey = P256.KeyAgreement.PrivateKey()
        let own = P256KeyExchange(privateKey: rKey).publicKey
        let minusOwn = SMP.PairingPublicKey(x: own.x, y: Self.negated(own.y))
        // −P is a valid point: only the reflection guard refuses it.
        let x963 = [0x04] + P256KeyExchange.bigEndian(minusOwn.x) + P256KeyExchange.bigEndian(minusOwn.y)
        #expect((try? P256.KeyAgreement.PublicKey(x963Representation: x963)) != nil)
        for forged in [own, SMP.PairingPublicKey(x: own.x, y: .zero), minusOwn] {
            var h = PairingHarness { configuration, side in if side == .responder { configuration.privateKey = rKey } }
            h.tamper = { side, command in
                if side == .initiator, case .pairingPublicKey = command { return .pairingPublicKey(forged) }
                return nil
            }
            h.run()
            Self.expectFailed(h, by: .responder, .dhKeyCheckFailed)
            #expect(!h.anyEncryption)
            // The responder never sent its own key once the initiator's was refused.
            #expect(!h.sent[.responder]!.contains { $0.code == .pairingPublicKey })
        }
    }

    // MARK: Endings

    @Test("The peer's Pairing Failed ends the session; nothing is sent back")
    func peerFailed() {
        var initiator = PairingSession(role: .initiator, configuration: PairingHarness.configuration(.initiator, .default))
        _ = initiator.start()
        let out = initiator.received(.pairingFailed(SMP.PairingFailed(reason: .pairingNotSupported)))
        #expect(out == [.failed(.failed(.pairingNotSupported, byPeer: true)), .stopTimer])
        #expect(initiator.isFinished)
    }

    @Test("SMP timeout (§3.4): pairing fails with timeout and the session accepts nothing more")
    func timeout() {
        var h = PairingHarness(initiator: Self.io(.keyboardOnly), responder: Self.io(.displayOnly))
        // The user never types the passkey.
        h.answer = { side, question, harness in
            if case .enterPasskey = question { return nil }
            return PairingHarness.defaultAnswer(side, question, harness)
        }
        h.run()
        #expect(!h.initiator.isFinished)
        #expect(h.initiator.timedOut() == [.failed(.timeout)])
        #expect(h.initiator.isFinished)
        #expect(h.initiator.received(.pairingConfirm(SMP.PairingConfirm(confirmValue: .zero))).isEmpty)
        #expect(h.initiator.answered(.passkey(123_456)).isEmpty)
        #expect(h.initiator.timedOut().isEmpty)
        // A session that never started has no timer to expire.
        var idle = PairingSession(role: .responder, configuration: PairingHarness.configuration(.responder, .default))
        #expect(idle.timedOut().isEmpty)
    }

    @Test("Encryption fails: Pairing Failed (Unspecified Reason) from both, no completion")
    func encryptionFailed() {
        var h = PairingHarness()
        h.encryptionFails = true
        h.run()
        #expect(h.keys.isEmpty)
        #expect(h.errors[.initiator] == .failed(.unspecifiedReason, byPeer: false))
        #expect(h.initiator.isFinished && h.responder.isFinished)
        // A session not waiting for encryption ignores the report.
        var idle = PairingSession(role: .initiator, configuration: PairingHarness.configuration(.initiator, .default))
        #expect(idle.encryptionStarted(nil).isEmpty)
    }
}

@Suite("RepeatedAttempts (Core 5.4 Vol 3 Part H §2.3.6)")
struct RepeatedAttemptsTests {
    let peer = LEAddress(BluetoothAddress(0x11_2233_4455_66), type: .public)
    let other = LEAddress(BluetoothAddress(0x66_5544_3322_11), type: .public)

    @Test("After a failure the peer waits the interval; it doubles per failure up to the maximum; success resets")
    func doubling() {
        var rule = RepeatedAttempts(interval: .seconds(2), maximumInterval: .seconds(10))
        #expect(!rule.refuses(peer, at: .zero))
        rule.failed(peer, at: .seconds(100))
        #expect(rule.refuses(peer, at: .seconds(101)))
        #expect(!rule.refuses(other, at: .seconds(101)))
        #expect(!rule.refuses(peer, at: .seconds(102)))
        rule.failed(peer, at: .seconds(102))
        #expect(rule.refusedUntil(peer) == .seconds(106))
        rule.failed(peer, at: .seconds(106))
        #expect(rule.refusedUntil(peer) == .seconds(114))
        rule.failed(peer, at: .seconds(114))
        #expect(rule.refusedUntil(peer) == .seconds(124))  // capped at 10 s
        rule.failed(peer, at: .seconds(124))
        #expect(rule.refusedUntil(peer) == .seconds(134))
        rule.succeeded(peer)
        #expect(!rule.refuses(peer, at: .seconds(125)))
        rule.failed(peer, at: .seconds(200))
        #expect(rule.refusedUntil(peer) == .seconds(202))
    }

    @Test("From the policy's intervals")
    func fromPolicy() {
        var policy = SecurityPolicy()
        policy.repeatedAttemptsInterval = .seconds(5)
        policy.maximumRepeatedAttemptsInterval = .seconds(7)
        var rule = RepeatedAttempts(policy: policy)
        rule.failed(peer, at: .zero)
        rule.failed(peer, at: .seconds(5))
        #expect(rule.refusedUntil(peer) == .seconds(12))
    }
}
