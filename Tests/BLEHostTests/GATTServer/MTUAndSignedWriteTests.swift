import BLEWire
import Testing

@testable import BLEHost

@Suite("Exchange MTU and Signed Write (Core 5.4 Vol 3 Part F §3.4.2, §3.4.5.4; Part H §2.4.5)")
struct MTUAndSignedWriteTests {
    @Test("Part F §3.4.2.2: ATT_MTU is the smaller Rx MTU, never below 23")
    func exchange() throws {
        for (client, expected) in [(512, 247), (100, 100), (23, 23), (10, 23), (0, 23)] {
            var server = try testServer()
            let outcome = server.handle(
                bytes: [0x02, UInt8(client & 0xFF), UInt8(client >> 8)], connection: client1)
            #expect(outcome == .mtuExchanged(response: ATT.ExchangeMTUResponse(serverRxMTU: 247).pdu, mtu: expected))
            #expect(server.mtu(for: client1) == expected)
        }
    }

    @Test("Part F §3.4.2.1: the request comes once; a second is answered and changes nothing")
    func secondExchange() throws {
        var server = try testServer()
        _ = server.exchange("02 6400")
        #expect(
            server.handle(bytes: hex("02 F700"), connection: client1)
                == .respond(ATT.ExchangeMTUResponse(serverRxMTU: 247).pdu))
        #expect(server.mtu(for: client1) == 100)
    }

    @Test("Part F §3.4.2: the bearer owns the ATT_MTU; given with each PDU, it sizes the answers")
    func bearerMTU() throws {
        var server = try testServer()
        let read = ATTPDU.readRequest(.init(handle: 0x001F))
        // An exchange the bearer made as client: the server hears of it with the next PDU.
        #expect(
            server.handle(read, connection: client1, attMTU: 51).response
                == .readResponse(.init(value: longValue[0..<50])))
        #expect(server.mtu(for: client1) == 51)
        #expect(
            server.handle(read, connection: client1, attMTU: 0).response
                == .readResponse(.init(value: longValue[0..<22])))
    }

    @Test("The configured Server Rx MTU bounds ATT_MTU and never goes below 23")
    func configuredMTU() throws {
        var server = try testServer(GATTServer.Configuration(mtu: 10))
        #expect(server.configuration.mtu == 23)
        #expect(server.exchange("02 0002") == hex("03 1700"))
        #expect(server.mtu(for: client1) == 23)
    }

    @Test("Part F §3.4.5.4 example: key 0x611B…5E50, m ‘D212001337’, counter 1 sign as ‘F1871E933C900FF2’")
    func signatureVector() {
        let csrk = Array(hex("611B64EBFBCD1FD372EC9196DF425E50").reversed())
        let mac = SignedWrite.mac(handle: 0x0012, value: [0x13, 0x37], signCounter: 1, csrk: csrk)
        #expect(mac == 0xF20F_903C_931E_87F1)
        let command = ATT.SignedWriteCommand(
            handle: 0x0012, value: [0x13, 0x37], signature: .init(signCounter: 1, mac: mac))
        #expect(command.pdu.encoded == hex("D21200133701000000F1871E933C900FF2"))
    }

    @Test("Without a signing key a Signed Write is a Write Command under the link's own security")
    func signedWriteWithoutKey() throws {
        var server = try testServer()
        let outcome = server.handle(bytes: hex("D2 2300 0102 01000000 0000000000000000"), connection: client1)
        guard case .writeWithoutResponse(let command) = outcome else {
            Issue.record("expected a write without response, got \(outcome)")
            return
        }
        #expect(command.isSigned && command.write.value == [1, 2])
        // A value without the authenticatedSignedWrites property is not signed-writable.
        #expect(server.handle(bytes: hex("D2 1F00 01 01000000 0000000000000000"), connection: client1) == .none)
        // Nor is a descriptor, even a writable one.
        #expect(server.handle(bytes: hex("D2 2100 41 01000000 0000000000000000"), connection: client1) == .none)
    }

    @Test("Part H §2.4.5: with the CSRK known, a bad signature or a replayed counter is dropped")
    func signedWriteVerified() throws {
        let csrk = (0..<16).map { UInt8($0 * 7) }
        let service = GATTService(
            uuid: 0xAAAA,
            characteristics: [
                GATTCharacteristic(
                    uuid: 0xBB01, properties: .authenticatedSignedWrites, permissions: .writeEncryptionRequired)
            ])
        var server = GATTServer(database: try AttributeDatabase(services: [service]))
        server.connect(client1)
        server.setSigningKey(csrk, authenticated: false, for: client1)
        func signed(_ counter: UInt32, _ value: [UInt8], tamper: Bool = false) -> [UInt8] {
            var mac = SignedWrite.mac(handle: 0x0010, value: value[...], signCounter: counter, csrk: csrk)
            if tamper { mac ^= 1 }
            return ATT.SignedWriteCommand(
                handle: 0x0010, value: value[...], signature: .init(signCounter: counter, mac: mac)
            )
            .pdu.encoded
        }
        // A valid signature stands for encryption: the write needing it is accepted.
        guard case .writeWithoutResponse = server.handle(bytes: signed(5, [1]), connection: client1) else {
            Issue.record("expected the signed write")
            return
        }
        #expect(server.handle(bytes: signed(5, [1]), connection: client1) == .none)
        #expect(server.handle(bytes: signed(4, [1]), connection: client1) == .none)
        #expect(server.handle(bytes: signed(6, [1], tamper: true), connection: client1) == .none)
        guard case .writeWithoutResponse = server.handle(bytes: signed(6, [2]), connection: client1) else {
            Issue.record("expected the signed write")
            return
        }
        #expect(server.bondedState(for: client1)?.lastSignCounter == 6)
        // A plain Write Command cannot do what the signature allowed.
        #expect(server.handle(bytes: hex("52 1000 01"), connection: client1) == .none)
    }
}
