import BLEWire
import Testing

/// One value of every SMP command, for round trips and table checks.
let everySMPCommand: [SMPCommand] = {
    let key = SMPKey128(high: 0x0011_2233_4455_6677, low: 0x8899_AABB_CCDD_EEFF)
    let wide = SMPKey256(word3: 1, word2: 2, word1: 3, word0: 4)
    return [
        SMP.PairingRequest(
            ioCapability: .keyboardDisplay, authReq: [.bonding, .mitm, .secureConnections],
            initiatorKeyDistribution: [.encKey, .idKey], responderKeyDistribution: [.idKey, .signKey]
        ).command,
        SMP.PairingResponse(
            ioCapability: .displayYesNo, oobDataFlag: .present, authReq: AuthReqFixtures.bondingSC,
            maximumEncryptionKeySize: 7, initiatorKeyDistribution: [], responderKeyDistribution: [.linkKey]
        ).command,
        SMP.PairingConfirm(confirmValue: key).command,
        SMP.PairingRandom(randomValue: key).command,
        SMP.PairingFailed(reason: .confirmValueFailed).command,
        SMP.EncryptionInformation(longTermKey: key).command,
        SMP.CentralIdentification(ediv: 0xBEEF, rand: 0x0102_0304_0506_0708).command,
        SMP.IdentityInformation(identityResolvingKey: key).command,
        SMP.IdentityAddressInformation(
            addressType: .staticRandom, address: BluetoothAddress(0xC1_2233_4455_66)
        )
        .command,
        SMP.SigningInformation(signatureKey: key).command,
        SMP.SecurityRequest(authReq: [.bonding, .mitm]).command,
        SMP.PairingPublicKey(x: wide, y: SMPKey256(word3: 9, word2: 8, word1: 7, word0: 6)).command,
        SMP.PairingDHKeyCheck(dhKeyCheck: key).command,
        SMP.KeypressNotification(notificationType: .passkeyDigitErased).command,
        .unknown(code: 0x0F, parameters: [0xAA, 0xBB]),
    ]
}()

enum AuthReqFixtures {
    static let bondingSC = SMP.AuthReq(bondingFlags: .bonding, [.secureConnections])
}

/// Little-endian wire octets of a value printed most significant first.
func wire(_ printed: String) -> [UInt8] { hex(printed).reversed() }

@Suite("SMP commands (Core 5.4 Vol 3 Part H §3.3–§3.6)")
struct SMPCommandTests {
    @Test("§3.3 command table: every code 0x01...0x0E has a name, fixed length, phase and direction")
    func table() throws {
        #expect(SMPCode.allDefined.count == 14)
        for code in SMPCode.allDefined {
            let entry = try #require(code.entry)
            #expect(entry.code == code)
            #expect(!entry.name.isEmpty)
        }
        for reserved: UInt8 in [0x00, 0x0F, 0x10, 0x80, 0xFF] {
            #expect(SMPCode(reserved).entry == nil)
            #expect(SMPCode(reserved).description == "Reserved (\(Hex.prefixed(reserved, width: 2)))")
        }
        #expect(SMPCode.pairingPublicKey.entry?.pduLength == 65)
        #expect(SMPCode.pairingRequest.entry?.direction == .initiatorToResponder)
        #expect(SMPCode.pairingResponse.entry?.direction == .responderToInitiator)
        #expect(SMPCode.securityRequest.entry?.direction == .responderToInitiator)
        #expect(SMPCode.securityRequest.entry?.phase == .securityInitiation)
        #expect(SMPCode.pairingFailed.entry?.phase == .anyPhase)
        #expect(SMPCode.centralIdentification.entry?.phase == .keyDistribution)
        #expect(SMPCode.pairingDHKeyCheck.entry?.phase == .keyGeneration)
        #expect(SMPCode.pairingRequest.description == "Pairing Request (0x01)")
    }

    @Test("§3.3 every command encodes to exactly its table length and round-trips")
    func roundTripEvery() throws {
        var seen = Set<SMPCode>()
        for command in everySMPCommand {
            try expectRoundTrip(command)
            seen.insert(command.code)
            if let entry = command.code.entry {
                #expect(command.encoded.count == entry.pduLength, "\(entry.name)")
                #expect(command.encoded.first == entry.code.rawValue)
            }
        }
        #expect(seen.isSuperset(of: SMPCode.allDefined))
    }

    @Test("§2.2.3 c1 sample preq 0x07071000000101 is a Pairing Request")
    func sampleRequest() throws {
        // preq is the Pairing Request PDU read as a little-endian number: 01 01 00 00 10 07 07.
        let command = try SMPCommand(decoding: wire("07071000000101"))
        let expected = SMP.PairingRequest(
            ioCapability: .displayYesNo, oobDataFlag: .notPresent, authReq: [], maximumEncryptionKeySize: 16,
            initiatorKeyDistribution: [.encKey, .idKey, .signKey],
            responderKeyDistribution: [.encKey, .idKey, .signKey])
        #expect(command == .pairingRequest(expected))
        #expect(expected.command.encoded == hex("01 01 00 00 10 07 07"))
        #expect(expected.authReq.bondingFlags == .noBonding)
    }

    @Test("§2.2.3 c1 sample pres 0x05000800000302 is a Pairing Response")
    func sampleResponse() throws {
        let command = try SMPCommand(decoding: wire("05000800000302"))
        guard case .pairingResponse(let response) = command else {
            Issue.record("decoded \(command)")
            return
        }
        #expect(response.ioCapability == .noInputNoOutput)
        #expect(response.maximumEncryptionKeySize == 8)
        #expect(response.initiatorKeyDistribution == [])
        #expect(response.responderKeyDistribution == [.encKey, .signKey])
        #expect(command.encoded == hex("02 03 00 00 08 00 05"))
    }

    @Test("§3.5.1 Just Works bonding request as seen in captures: 01 03 00 01 10 07 07")
    func justWorksRequest() throws {
        // NoInputNoOutput, no OOB, Bonding, 16-octet keys, EncKey|IdKey|SignKey both ways: the
        // request headless LE devices and BlueZ's NoInputNoOutput agent send.
        let command = try SMPCommand(decoding: hex("01 03 00 01 10 07 07"))
        guard case .pairingRequest(let request) = command else {
            Issue.record("decoded \(command)")
            return
        }
        #expect(request.ioCapability == .noInputNoOutput)
        #expect(request.authReq.bondingFlags == .bonding)
        #expect(!request.authReq.contains(.mitm))
        #expect(!request.authReq.contains(.secureConnections))
        #expect(request.initiatorKeyDistribution == [.encKey, .idKey, .signKey])
    }

    @Test("§3.5.1 Secure Connections request 01 04 00 2d 10 0f 0f: KeyboardDisplay, Bonding|MITM|SC|CT2")
    func secureConnectionsRequest() throws {
        // AuthReq 0x2d is what btmon shows as "Bonding, MITM, SC, No Keypresses, CT2": bit 4
        // (Keypress) is clear and bit 5 is CT2. Key distribution 0x0f adds LinkKey.
        let command = try SMPCommand(decoding: hex("01 04 00 2d 10 0f 0f"))
        guard case .pairingRequest(let request) = command else {
            Issue.record("decoded \(command)")
            return
        }
        #expect(request.ioCapability == .keyboardDisplay)
        #expect(request.authReq == [.bonding, .mitm, .secureConnections, .ct2])
        #expect(!request.authReq.contains(.keypress))
        #expect(request.initiatorKeyDistribution == [.encKey, .idKey, .signKey, .linkKey])
        // The same request asking for keypress notifications sets bit 4: 0x3d.
        let keypress = try SMPCommand(decoding: hex("01 04 00 3d 10 0f 0f"))
        guard case .pairingRequest(let withKeypress) = keypress else {
            Issue.record("decoded \(keypress)")
            return
        }
        #expect(withKeypress.authReq.contains(.keypress))
    }

    @Test("§2.2.3 c1 sample output and r as Pairing Confirm and Pairing Random")
    func legacyConfirmRandom() throws {
        let confirm = try #require(SMPKey128(hex: "1e1e3fef878988ead2a74dc5bef13b86"))
        let bytes = [0x03] + wire("1e1e3fef878988ead2a74dc5bef13b86")
        #expect(bytes.prefix(3) == [0x03, 0x86, 0x3B])
        #expect(try SMPCommand(decoding: bytes) == .pairingConfirm(.init(confirmValue: confirm)))
        let random = try #require(SMPKey128(hex: "5783D52156AD6F0E6388274EC6702EE0"))
        #expect(
            SMP.PairingRandom(randomValue: random).command.encoded == [0x04]
                + wire("5783D52156AD6F0E6388274EC6702EE0"))
    }

    @Test("Appendix D.2/D.3/D.4/D.7 sample values as SC confirm, random, DHKey check, LTK and IRK")
    func secureConnectionsSamples() throws {
        let samples: [(UInt8, String)] = [
            (0x03, "f2c916f1 07a9bd1c f1eda1be a974872d"),  // D.2 f4 output (Ca)
            (0x04, "d5cb8454 d177733e ffffb2ec 712baeab"),  // D.2 X (Na)
            (0x0D, "e3c47398 9cd0e8c5 d26c0b09 da958f61"),  // D.4 f6 output (Ea)
            (0x06, "69867911 69d7cd23 980522b5 94750a38"),  // D.3 f5 LTK
            (0x08, "ec0234a3 57c8ad05 341010a6 0a397d9b"),  // D.7 ah IRK
            (0x0A, "ec0234a3 57c8ad05 341010a6 0a397d9b"),  // any 128-bit value as CSRK
        ]
        for (code, printed) in samples {
            let value = try #require(SMPKey128(hex: printed))
            let command = try SMPCommand(decoding: [code] + wire(printed))
            let expected: SMPCommand
            switch code {
            case 0x03: expected = .pairingConfirm(.init(confirmValue: value))
            case 0x04: expected = .pairingRandom(.init(randomValue: value))
            case 0x0D: expected = .pairingDHKeyCheck(.init(dhKeyCheck: value))
            case 0x06: expected = .encryptionInformation(.init(longTermKey: value))
            case 0x08: expected = .identityInformation(.init(identityResolvingKey: value))
            default: expected = .signingInformation(.init(signatureKey: value))
            }
            #expect(command == expected)
            #expect(command.encoded == [code] + wire(printed))
        }
    }

    @Test("§2.3.5.6.1 debug public key as a 65-octet Pairing Public Key")
    func debugPublicKey() throws {
        let x = "20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6"
        let y = "dc809c49 652aeb6d 63329abf 5a52155c 766345c2 8fed3024 741c8ed0 1589d28b"
        let bytes = [0x0C] + wire(x) + wire(y)
        #expect(bytes.count == 65)
        #expect(Array(bytes[1...4]) == hex("e6 9d 35 0e"))
        #expect(Array(bytes[33...36]) == hex("8b d2 89 15"))
        let command = try SMPCommand(decoding: bytes)
        let key = SMP.PairingPublicKey(x: try #require(SMPKey256(hex: x)), y: try #require(SMPKey256(hex: y)))
        #expect(command == .pairingPublicKey(key))
        #expect(key.command.encoded == bytes)
    }

    @Test("§3.5.5 every Pairing Failed reason 0x01...0x0F is named; reserved reasons are kept")
    func pairingFailedReasons() throws {
        #expect(SMP.PairingFailedReason.allDefined.count == 15)
        for reason in SMP.PairingFailedReason.allDefined {
            let command = try SMPCommand(decoding: [0x05, reason.rawValue])
            #expect(command == .pairingFailed(.init(reason: reason)))
            #expect(reason.name != nil)
        }
        #expect(SMP.PairingFailedReason.confirmValueFailed.description == "Confirm Value Failed (0x04)")
        #expect(SMP.PairingFailedReason.keyRejected.name == "Key Rejected")
        #expect(SMP.PairingFailedReason.dhKeyCheckFailed.rawValue == 0x0B)
        let reserved = try SMPCommand(decoding: [0x05, 0x10])
        #expect(reserved == .pairingFailed(.init(reason: SMP.PairingFailedReason(0x10))))
        #expect(SMP.PairingFailedReason(0x10).name == nil)
        #expect(reserved.encoded == [0x05, 0x10])
    }

    @Test("§3.6.3 Central Identification: EDIV then Rand, little-endian")
    func centralIdentification() throws {
        let command = try SMPCommand(decoding: hex("07 34 12 08 07 06 05 04 03 02 01"))
        #expect(command == .centralIdentification(.init(ediv: 0x1234, rand: 0x0102_0304_0506_0708)))
    }

    @Test("§3.6.5 Identity Address Information: public and static random identity addresses")
    func identityAddress() throws {
        let publicCommand = try SMPCommand(decoding: hex("09 00 f5 f4 f3 f2 f1 f0"))
        guard case .identityAddressInformation(let info) = publicCommand else {
            Issue.record("decoded \(publicCommand)")
            return
        }
        #expect(info.addressType == .public)
        #expect(info.address.description == "F0:F1:F2:F3:F4:F5")
        #expect(info.identityAddress == LEAddress(info.address, type: .public))

        let random = try SMP.IdentityAddressInformation(decoding: hex("01 66 55 44 33 22 c1"))
        #expect(random.addressType == .staticRandom)
        #expect(random.identityAddress?.kind == .randomStatic)

        let reserved = try SMP.IdentityAddressInformation(decoding: hex("02 66 55 44 33 22 c1"))
        #expect(reserved.addressType == .reserved(2))
        #expect(reserved.identityAddress == nil)
        #expect(reserved.encoded == hex("02 66 55 44 33 22 c1"))
    }

    @Test("§3.6.7 Security Request and §3.5.8 Keypress Notification")
    func securityRequestAndKeypress() throws {
        #expect(
            try SMPCommand(decoding: hex("0b 0d"))
                == .securityRequest(.init(authReq: [.bonding, .mitm, .secureConnections])))
        #expect(
            try SMPCommand(decoding: hex("0e 01"))
                == .keypressNotification(.init(notificationType: .passkeyDigitEntered)))
        #expect(
            try SMPCommand(decoding: hex("0e 04"))
                == .keypressNotification(.init(notificationType: .passkeyEntryCompleted)))
        let reserved = try SMPCommand(decoding: hex("0e 05"))
        #expect(reserved == .keypressNotification(.init(notificationType: .reserved(5))))
        #expect(reserved.encoded == hex("0e 05"))
    }

    @Test("§3.5.1 AuthReq: Bonding_Flags as a two-bit enum; reserved flags and RFU bits are kept")
    func authReqBits() throws {
        var authReq: SMP.AuthReq = [.mitm]
        authReq.bondingFlags = .bonding
        #expect(authReq.rawValue == 0x05)
        authReq.bondingFlags = .noBonding
        #expect(authReq.rawValue == 0x04)
        #expect(SMP.AuthReq(rawValue: 0x02).bondingFlags == .reserved(2))
        #expect(SMP.AuthReq(rawValue: 0x03).bondingFlags == .reserved(3))
        #expect(SMP.AuthReq(bondingFlags: .bonding, [.ct2]).rawValue == 0x21)

        let rfu = try SMP.SecurityRequest(decoding: [0xC1])
        #expect(rfu.authReq.rfuBits == 0xC0)
        #expect(rfu.authReq.bondingFlags == .bonding)
        #expect(rfu.encoded == [0xC1])

        let keys = SMP.KeyDistribution(rawValue: 0xF7)
        #expect(keys.rfuBits == 0xF0)
        #expect(keys.contains([.encKey, .idKey, .signKey]) && !keys.contains(.linkKey))
    }

    @Test("§3.5.1 reserved IO capability and OOB values decode and re-encode unchanged")
    func reservedFeatureValues() throws {
        let bytes = hex("01 05 02 00 10 00 00")
        let command = try SMPCommand(decoding: bytes)
        guard case .pairingRequest(let request) = command else {
            Issue.record("decoded \(command)")
            return
        }
        #expect(request.ioCapability == .reserved(5))
        #expect(request.oobDataFlag == .reserved(2))
        #expect(command.encoded == bytes)
    }

    @Test("§3.3 reserved codes are kept raw with their parameters, never dropped")
    func unknownCodes() throws {
        #expect(try SMPCommand(decoding: hex("0f aa bb")) == .unknown(code: 0x0F, parameters: [0xAA, 0xBB]))
        #expect(try SMPCommand(decoding: hex("00")) == .unknown(code: 0x00, parameters: []))
        #expect(try SMPCommand(decoding: hex("ff 01")).code == SMPCode(0xFF))
    }

    @Test("Rendering names the command and its fields")
    func rendering() {
        let request = SMP.PairingRequest(
            ioCapability: .keyboardDisplay, authReq: [.bonding, .mitm],
            initiatorKeyDistribution: [.idKey], responderKeyDistribution: [.encKey])
        let text = request.command.description
        #expect(text.contains("pairingRequest"))
        #expect(text.contains("keyboardDisplay"))
        #expect(text.contains("mitm: true"))
        #expect(text.contains("idKey"))
        let failed = SMP.PairingFailed(reason: .repeatedAttempts).command.json
        #expect(failed.contains("Repeated Attempts (0x09)"))
        let confirm = SMP.PairingConfirm(confirmValue: SMPKey128(high: 0, low: 0xAB)).description
        #expect(confirm.contains("0x000000000000000000000000000000ab"))
    }
}
