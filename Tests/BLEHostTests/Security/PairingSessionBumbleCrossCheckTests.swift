import BLELocking
import BLEWire
import Crypto
import Testing

@testable import BLEHost

/// Protocol conventions checked against an independent implementation: the values on the wire
/// of one Secure Connections and one legacy Just Works pairing, with the specification's P-256
/// sample keys (Vol 3 Part H Appendix D) and fixed nonces, as Google Bumble 0.0.236
/// (`bumble.crypto` f4, f5, f6, c1, s1) computes them for the same inputs: which key, nonce and
/// address goes where in Cb, Ea, Eb, the LTK, Mconfirm, Sconfirm and the STK. Running our
/// sessions against each other alone would not catch a convention both sides share wrongly.
@Suite("PairingSession wire values against Bumble's for the same inputs (Core 5.4 Vol 3 Part H §2.3.5)")
struct PairingSessionBumbleCrossCheckTests {
    static let na = SMPKey128(high: 0x0123_4567_89AB_CDEF, low: 0x1122_3344_5566_7788)
    static let nb = SMPKey128(high: 0xFEDC_BA98_7654_3210, low: 0x8877_6655_4433_2211)

    /// Yields `first` (high, low), then a counter.
    static func fixed(_ first: SMPKey128) -> PairingRandomSource {
        let values = Locked([first.high, first.low])
        return PairingRandomSource {
            values.withLock { queue in
                if queue.isEmpty { return 42 }
                return queue.removeFirst()
            }
        }
    }

    static func harness(
        legacy: Bool, initiatorIO: SMP.IOCapability = .noInputNoOutput, responderIO: SMP.IOCapability = .noInputNoOutput
    ) throws -> PairingHarness {
        let a = try P256.KeyAgreement.PrivateKey(
            rawRepresentation: SecurityFunctionVectorTests.octets(SecurityFunctionVectorTests.privateA))
        let b = try P256.KeyAgreement.PrivateKey(
            rawRepresentation: SecurityFunctionVectorTests.octets(SecurityFunctionVectorTests.privateB))
        var central = SecurityPolicy()
        central.allowsLegacyPairingAsCentral = true
        central.ioCapability = initiatorIO
        var peripheral = SecurityPolicy()
        peripheral.ioCapability = responderIO
        return PairingHarness(initiator: central, responder: peripheral) { configuration, side in
            configuration.privateKey = side == .initiator ? a : b
            configuration.random = fixed(side == .initiator ? na : nb)
            if legacy && side == .responder { configuration.supportsSecureConnections = false }
        }
    }

    static func sent(_ h: PairingHarness, _ side: PairingHarness.Side, _ code: SMPCode) -> [SMPCommand] {
        h.sent[side, default: []].filter { $0.code == code }
    }

    @Test("Secure Connections Just Works: Cb, Ea, Eb and the LTK as Bumble computes them")
    func secureConnections() throws {
        var h = try Self.harness(legacy: false)
        h.run()
        #expect(h.keys.count == 2)
        // Pairing Request / Response: IO NoInputNoOutput, no OOB, AuthReq Bonding | SC (0x09).
        #expect(Self.sent(h, .responder, .pairingConfirm) == [.pairingConfirm(SMP.PairingConfirm(confirmValue: SMPKey128(hex: "30a7a77f31b9acb36eceeba1c7ab93cf")!))])
        #expect(Self.sent(h, .initiator, .pairingDHKeyCheck) == [.pairingDHKeyCheck(SMP.PairingDHKeyCheck(dhKeyCheck: SMPKey128(hex: "1e5efe19f2fde53a375e316dd39d6c0b")!))])
        #expect(Self.sent(h, .responder, .pairingDHKeyCheck) == [.pairingDHKeyCheck(SMP.PairingDHKeyCheck(dhKeyCheck: SMPKey128(hex: "9bf9f1201148e7505c7946e570e72e74")!))])
        #expect(h.encryptionKey[.initiator]?.0 == LongTermKey(key: SMPKey128(hex: "53e301b620a62cd07e0fae82cd01f361")!))
    }

    @Test("Legacy Just Works: Mconfirm, Sconfirm and the STK as Bumble computes them")
    func legacy() throws {
        var h = try Self.harness(legacy: true)
        h.run()
        #expect(h.keys.count == 2)
        // Request 01 03 00 09 10 07 07, Response 02 03 00 01 10 07 07, as sent.
        #expect(h.sent[.initiator]?.first?.encoded == [0x01, 0x03, 0x00, 0x09, 0x10, 0x07, 0x07])
        #expect(h.sent[.responder]?.first?.encoded == [0x02, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07])
        #expect(Self.sent(h, .initiator, .pairingConfirm) == [.pairingConfirm(SMP.PairingConfirm(confirmValue: SMPKey128(hex: "d6549004611555b4a0a40b87fa6e1afa")!))])
        #expect(Self.sent(h, .responder, .pairingConfirm) == [.pairingConfirm(SMP.PairingConfirm(confirmValue: SMPKey128(hex: "4cff4eba5c3e2bf5bd1a47dae9f7846f")!))])
        #expect(h.encryptionKey[.initiator]?.0 == LongTermKey(key: SMPKey128(hex: "3484af5de989affab15a20ea2e110f48")!))
    }

    @Test("Secure Connections Passkey Entry: the first two rounds' Ca and Cb (passkey bits 0 and 1) as Bumble computes them")
    func passkeyRounds() throws {
        // The responder displays; after the nonce its source gives 42 (bits 0, 1 = 0, 1), and
        // both sides' later nonces are (42, 42).
        var h = try Self.harness(legacy: false, initiatorIO: .keyboardOnly, responderIO: .displayOnly)
        h.run()
        #expect(h.displayedPasskey == 42)
        #expect(h.keys.count == 2)
        let ca = Self.sent(h, .initiator, .pairingConfirm).prefix(2)
        let cb = Self.sent(h, .responder, .pairingConfirm).prefix(2)
        #expect(Array(ca) == ["8c45d14e431bba20e379a2bbcffec02c", "8898b36dfae04482ebb183b336ed2dc4"].map { .pairingConfirm(SMP.PairingConfirm(confirmValue: SMPKey128(hex: $0)!)) })
        #expect(Array(cb) == ["df7a1e0788f91abb8c7ce584a9875b8c", "a71e7477667f96771580168d646f55e7"].map { .pairingConfirm(SMP.PairingConfirm(confirmValue: SMPKey128(hex: $0)!)) })
    }
}
