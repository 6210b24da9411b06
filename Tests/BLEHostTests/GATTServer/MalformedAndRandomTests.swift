import BLEController
import BLESimulation
import BLEWire
import Testing

@testable import BLEHost

@Suite("Malformed and random PDUs (Core 5.4 Vol 3 Part F §3.3, §3.4.1.1)")
struct MalformedAndRandomTests {
    @Test("Part F §3.3: a request of the wrong length is an Invalid PDU with handle 0x0000")
    func invalidPDU() throws {
        var server = try testServer()
        for request in [
            "0A", "0A 01", "0A 010203", "04 0100", "08 0100 FFFF 000000", "0E 0100", "18", "18 02", "02 17",
        ] {
            let opcode = hex(request)[0]
            #expect(server.exchange(request) == errorResponse(opcode, 0x0000, .invalidPDU), "\(request)")
        }
    }

    @Test("Part F §3.3: a PDU longer than ATT_MTU is invalid")
    func longerThanMTU() throws {
        var server = try testServer()
        let request = "12 1500 " + Hex.string([UInt8](repeating: 1, count: 21))
        #expect(server.exchange(request) == errorResponse(0x12, 0x0000, .invalidPDU))
        #expect(
            server.handle(bytes: hex("52 2300 " + Hex.string([UInt8](repeating: 1, count: 21))), connection: client1)
                == .none)
    }

    @Test("Part F §3.3: unknown requests get Request Not Supported; unknown commands are ignored")
    func unsupported() throws {
        var server = try testServer()
        #expect(server.exchange("3F 0100") == errorResponse(0x3F, 0x0000, .requestNotSupported))
        #expect(server.exchange("22") == errorResponse(0x22, 0x0000, .requestNotSupported))
        #expect(server.handle(bytes: hex("7F 0100"), connection: client1) == .none)
        #expect(server.handle(bytes: hex("FF"), connection: client1) == .none)
        #expect(
            server.handleUndecodable(opcode: ATTOpcode(0x3F), connection: client1).response?.encoded
                == errorResponse(0x3F, 0x0000, .requestNotSupported))
    }

    @Test("Malformed commands, and PDUs only a server sends, are dropped")
    func dropped() throws {
        var server = try testServer()
        for pdu in [
            "", "52", "52 01", "D2 1500 01", "01 0A 0100 0A", "0B 00", "1B 1000 01", "1D 1000 01", "13", "23 0100",
        ] {
            #expect(server.handle(bytes: hex(pdu), connection: client1) == .none, "\(pdu)")
        }
        #expect(server.handleUndecodable(opcode: .writeCommand, connection: client1) == .none)
    }

    @Test("Random PDUs never trap the server, and every answer is a well-formed response to its request")
    func randomPDUs() throws {
        var generator = SeededRandomGenerator(seed: 0x5EED_6A77)
        var server = try testServer(GATTServer.Configuration(mtu: 64, prepareQueueLimit: 8))
        server.connect(client2, security: .encrypted(keySize: 16, authenticated: true))
        let requestOpcodes: [UInt8] = [
            0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20, 0x52, 0xD2, 0x1E,
        ]
        var responses = 0
        for round in 0..<20_000 {
            let connection = Bool.random(using: &generator) ? client1 : client2
            var bytes: [UInt8] = []
            let opcode =
                Int.random(in: 0..<10, using: &generator) < 8
                ? requestOpcodes.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            bytes.append(opcode)
            // Small handles hit the database; the rest is noise of any length.
            let length = Int.random(in: 0...24, using: &generator)
            for index in 0..<length {
                let small = index % 2 == 0 && Bool.random(using: &generator)
                bytes.append(
                    small ? UInt8.random(in: 0...0x2A, using: &generator) : UInt8.random(in: 0...255, using: &generator)
                )
                if index % 2 == 1 && Bool.random(using: &generator) { bytes[bytes.count - 1] = 0 }
            }
            let mtu = server.mtu(for: connection)
            var outcome = server.handle(bytes: bytes[...], connection: connection)
            // The application answers at random until a response comes.
            var questions = 0
            while questions < 8 {
                if let read = outcome.readRequest {
                    let answer: GATTReadResult =
                        Bool.random(using: &generator)
                        ? .value((0..<Int.random(in: 0...80, using: &generator)).map { UInt8(truncatingIfNeeded: $0) })
                        : .error(ATTErrorCode(UInt8.random(in: 0x80...0x9F, using: &generator)))
                    outcome = server.complete(read, with: answer)
                } else if let write = outcome.writeRequest {
                    outcome = server.complete(
                        write, with: Bool.random(using: &generator) ? .success : .error(.unlikelyError))
                } else {
                    break
                }
                questions += 1
            }
            let kind = ATTOpcode(opcode).kind
            if let response = outcome.response {
                responses += 1
                let encoded = response.encoded
                let decoded = try ATTPDU(decoding: encoded)
                #expect(decoded.kind == .response, "round \(round): \(Hex.string(bytes))")
                #expect(encoded.count <= max(mtu, server.mtu(for: connection)), "round \(round)")
                if case .errorResponse(let error) = decoded {
                    #expect(error.requestOpcode.rawValue == opcode, "round \(round)")
                } else {
                    #expect(decoded.opcode.pairedRequest?.rawValue == opcode, "round \(round)")
                }
            } else if kind == .request {
                Issue.record("round \(round): request \(Hex.string(bytes)) got no response: \(outcome)")
            }
            if kind == .command, case .respond = outcome { Issue.record("round \(round): a command was answered") }
            // Now and then the database or the link changes under the clients.
            switch Int.random(in: 0..<500, using: &generator) {
            case 0: _ = try? server.add([GATTService(uuid: 0x180A)])
            case 1: _ = try? server.removeService(at: server.database.services.last?.range.lowerBound ?? 0)
            case 2: server.setSecurity(.none, for: client2)
            case 3: server.disconnect(client1)
            default: break
            }
            _ = server.serviceChanged(range: 0x0001...0xFFFF).count
        }
        #expect(responses > 10_000)
    }
}
