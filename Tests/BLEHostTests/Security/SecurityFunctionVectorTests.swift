import BLEWire
import Crypto
import Testing

@testable import BLEHost

/// The Security Manager's functions against the specification's sample data, byte for byte:
/// Core 5.4 Vol 3 Part H Appendix D (f4, f5, f6, g2, h6, h7, ah, the P-256 DHKey) and the c1 and
/// s1 examples of §2.2.3 and §2.2.4. The values are as Google Bumble's tests/smp_test.py
/// transcribes them from the specification (most significant octet first).
@Suite("Security Manager toolbox: Core 5.4 Vol 3 Part H §2.2 sample data")
struct SecurityFunctionVectorTests {
    static func key(_ hex: String) -> SMPKey128 { SMPKey128(hex: hex)! }
    static func octets(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    // Appendix D (P-256 sample data), as in bumble tests/smp_test.py test_ecc.
    static let privateA = "3f49f6d4 a3c55f38 74c9b3e3 d2103f50 4aff607b eb40b799 5899b8a6 cd3c1abd"
    static let privateB = "55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd"
    static let publicAX = "20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6"
    static let publicAY = "dc809c49 652aeb6d 63329abf 5a52155c 766345c2 8fed3024 741c8ed0 1589d28b"
    static let publicBX = "1ea1f0f0 1faf1d96 09592284 f19e4c00 47b58afd 8615a69f 559077b2 2faaa190"
    static let publicBY = "4c55f33e 429dad37 7356703a 9ab85160 472d1130 e28e3676 5f89aff9 15b1214a"
    static let dhKey = "ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698"

    static func publicKey(_ x: String, _ y: String) -> SMP.PairingPublicKey {
        SMP.PairingPublicKey(
            x: SMPKey256(littleEndian: octets(x).reversed())!, y: SMPKey256(littleEndian: octets(y).reversed())!)
    }

    @Test("P-256 (Appendix D): both sides' public keys and the same DHKey with swift-crypto")
    func p256() throws {
        let a = P256KeyExchange(privateKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.octets(Self.privateA)))
        let b = P256KeyExchange(privateKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.octets(Self.privateB)))
        #expect(a.publicKey == Self.publicKey(Self.publicAX, Self.publicAY))
        #expect(b.publicKey == Self.publicKey(Self.publicBX, Self.publicBY))
        #expect(try a.dhKey(peer: b.publicKey).get() == Self.octets(Self.dhKey))
        #expect(try b.dhKey(peer: a.publicKey).get() == Self.octets(Self.dhKey))
    }

    @Test("f4 (Appendix D)")
    func f4() {
        let u = Self.octets(Self.publicAX)
        let v = Self.octets("55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd")
        let result = SecurityFunctions.f4(u, v, key: Self.key("d5cb8454 d177733e ffffb2ec 712baeab"), 0)
        #expect(result == Self.key("f2c916f1 07a9bd1c f1eda1be a974872d"))
    }

    @Test("f5 (Appendix D): MacKey and LTK")
    func f5() {
        let a1 = LEAddress(BluetoothAddress(0x56_1237_37BF_CE), type: .public)
        let a2 = LEAddress(BluetoothAddress(0xA7_1370_2DCF_C1), type: .public)
        let keys = SecurityFunctions.f5(
            dhKey: Self.octets(Self.dhKey), Self.key("d5cb8454 d177733e ffffb2ec 712baeab"),
            Self.key("a6e8e7cc 25a75f6e 216583f7 ff3dc4cf"), a1, a2)
        #expect(keys.macKey == Self.key("2965f176 a1084a02 fd3f6a20 ce636e20"))
        #expect(keys.longTermKey == Self.key("69867911 69d7cd23 980522b5 94750a38"))
        // A1 and A2 are the address type octet then the address (§2.2.7).
        #expect(SecurityFunctions.addressOctets(a1) == Self.octets("00561237 37bfce"))
    }

    @Test("f6 (Appendix D)")
    func f6() {
        let result = SecurityFunctions.f6(
            key: Self.key("2965f176 a1084a02 fd3f6a20 ce636e20"), Self.key("d5cb8454 d177733e ffffb2ec 712baeab"),
            Self.key("a6e8e7cc 25a75f6e 216583f7 ff3dc4cf"), Self.key("12a3343b b453bb54 08da42d2 0c2d0fc8"),
            ioCap: Self.octets("010102"), LEAddress(BluetoothAddress(0x56_1237_37BF_CE), type: .public),
            LEAddress(BluetoothAddress(0xA7_1370_2DCF_C1), type: .public))
        #expect(result == Self.key("e3c47398 9cd0e8c5 d26c0b09 da958f61"))
    }

    @Test("g2 (Appendix D): 0x2F9ED5BA")
    func g2() {
        let value = SecurityFunctions.g2(
            Self.octets(Self.publicAX), Self.octets("55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd"),
            key: Self.key("d5cb8454 d177733e ffffb2ec 712baeab"), Self.key("a6e8e7cc 25a75f6e 216583f7 ff3dc4cf"))
        #expect(value == 0x2F9E_D5BA)
    }

    @Test("h6 (Appendix D): keyID 'lebr'")
    func h6() {
        let result = SecurityFunctions.h6(key: Self.key("ec0234a3 57c8ad05 341010a6 0a397d9b"), keyID: 0x6C65_6272)
        #expect(result == Self.key("2d9ae102 e76dc91c e8d3a9e2 80b16399"))
    }

    @Test("h7 (Appendix D): SALT 'tmp1'")
    func h7() {
        let result = SecurityFunctions.h7(
            salt: Self.key("00000000 00000000 00000000 746D7031"), Self.key("ec0234a3 57c8ad05 341010a6 0a397d9b"))
        #expect(result == Self.key("fb173597 c6a3c0ec d2998c2a 75a57011"))
    }

    @Test("ah (Appendix D): prand 0x708194 gives hash 0x0DFBAA")
    func ah() {
        #expect(SecurityFunctions.ah(key: Self.key("ec0234a3 57c8ad05 341010a6 0a397d9b"), 0x70_8194) == 0x0D_FBAA)
    }

    @Test("c1 (§2.2.3 example): Mconfirm with TK 0")
    func c1() {
        // preq 0x07071000000101 and pres 0x05000800000302, as sent: least significant first.
        let preq = Self.octets("07071000000101").reversed()
        let pres = Self.octets("05000800000302").reversed()
        let result = SecurityFunctions.c1(
            key: .zero, random: Self.key("5783D52156AD6F0E6388274EC6702EE0"), pairingRequest: Array(preq),
            pairingResponse: Array(pres), initiatorAddress: LEAddress(BluetoothAddress(0xA1A2_A3A4_A5A6), type: .random),
            responderAddress: LEAddress(BluetoothAddress(0xB1B2_B3B4_B5B6), type: .public))
        #expect(result == Self.key("1e1e3fef878988ead2a74dc5bef13b86"))
    }

    @Test("s1 (§2.2.4 example): STK with TK 0")
    func s1() {
        let result = SecurityFunctions.s1(
            key: .zero, Self.key("000F0E0D0C0B0A091122334455667788"), Self.key("010203040506070899AABBCCDDEEFF00"))
        #expect(result == Self.key("9a1fe1f0e8b0f49b5b4216ae796da062"))
    }

    @Test("Key size reduction (§2.3.4): the most significant octets zeroed")
    func masking() {
        let key = Self.key("ffeeddcc bbaa9988 77665544 33221100")
        #expect(key.masked(toKeySize: 16) == key)
        #expect(key.masked(toKeySize: 7) == Self.key("00000000 00000000 00665544 33221100"))
        #expect(key.masked(toKeySize: 8) == Self.key("00000000 00000000 77665544 33221100"))
        #expect(key.masked(toKeySize: 12) == Self.key("00000000 bbaa9988 77665544 33221100"))
    }
}
