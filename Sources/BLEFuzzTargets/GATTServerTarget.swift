import BLEHost
import BLEWire

/// The GATT server state machine (`GATTServer`) fed ATT PDUs from two clients, with the
/// application's answers, security changes, reconnections and database changes between them
/// as the input chooses.
///
/// Promises checked (Core 5.4 Vol 3 Part F §3.3, §3.4): every response decodes and is a
/// response to the request it answers (its paired response, or an Error Response naming the
/// request's opcode); no response is longer than the ATT_MTU; every request is answered or
/// handed to the application; no command is answered.
enum GATTServerTarget {
    static let first = GATTConnectionID(0x0040)
    static let second = GATTConnectionID(0x0041)

    static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        var input = FuzzInput(bytes)
        let configuration = GATTServer.Configuration(
            mtu: 23 + Int(input.u8()), prepareQueueLimit: 1 + input.below(16))
        var server = GATTServer(database: database, configuration: configuration)
        server.connect(first)
        server.connect(second, security: .encrypted(keySize: 16, authenticated: true))
        var steps = 0
        while !input.isEmpty, steps < 256 {
            steps += 1
            let choice = input.u8()
            switch choice {
            case 0xF0: server.setSecurity(.encrypted(keySize: 7 + input.below(10), authenticated: input.u8() & 1 == 0), for: first)
            case 0xF1: server.setSecurity(.none, for: second)
            case 0xF2: server.setAuthorized(input.u8() & 1 == 0, for: first)
            case 0xF3:
                let bonded = server.disconnect(first)
                server.connect(first, bonded: input.u8() & 1 == 0 ? bonded : nil)
            case 0xF4: _ = try? server.add([GATTService(uuid: BluetoothUUID(UInt16(0x1800) + UInt16(input.u8())))])
            case 0xF5: _ = try? server.removeService(at: input.u16())
            case 0xF6: _ = server.serviceChanged(range: 0x0001...0xFFFF)
            case 0xF7: _ = try? server.indication(for: input.u16(), value: input.chunk(), connection: first)
            case 0xF8: _ = try? server.notification(for: input.u16(), value: input.chunk(), connection: second)
            default:
                let connection = choice & 1 == 0 ? first : second
                try exchange(input.chunk(), on: connection, server: &server, input: &input)
            }
        }
    }

    private static func exchange(
        _ request: [UInt8], on connection: GATTConnectionID, server: inout GATTServer, input: inout FuzzInput
    ) throws(FuzzFailure) {
        let mtuBefore = server.mtu(for: connection)
        var outcome = server.handle(bytes: request, connection: connection)
        // The application answers as the input says, for as long as the server asks.
        var questions = 0
        while questions < 16 {
            questions += 1
            if case .read(let read) = outcome {
                let answer: GATTReadResult =
                    input.u8() & 1 == 0 ? .value(input.chunk()) : .error(ATTErrorCode(0x80 | input.u8() & 0x1F))
                outcome = server.complete(read, with: answer)
            } else if case .write(let write) = outcome {
                outcome = server.complete(write, with: input.u8() & 1 == 0 ? .success : .error(.unlikelyError))
            } else {
                break
            }
        }
        guard let opcode = request.first else { return }
        let kind = ATTOpcode(opcode).kind
        let mtu = max(mtuBefore, server.mtu(for: connection))
        let hex = Hex.string(request)
        guard let response = outcome.response else {
            if kind == .request {
                switch outcome {
                case .read, .write: return  // still with the application after 16 questions
                default: throw FuzzFailure("request \(hex) got no response: \(outcome)")
                }
            }
            return
        }
        try require(kind != .command, "command \(hex) was answered")
        let encoded = response.encoded
        let decoded: ATTPDU
        do {
            decoded = try ATTPDU(decoding: encoded)
        } catch {
            throw FuzzFailure("response \(Hex.string(encoded)) to \(hex) does not decode: \(error)")
        }
        try require(
            encoded.count <= mtu,
            "response to \(hex) is \(encoded.count) octets, ATT_MTU \(mtu)")
        try require(decoded.kind == .response, "answer to \(hex) is not a response")
        if case .errorResponse(let error) = decoded {
            try require(error.requestOpcode.rawValue == opcode, "Error Response to \(hex) names another request")
        } else {
            try require(decoded.opcode.pairedRequest?.rawValue == opcode, "response to \(hex) pairs another request")
        }
    }

    /// The GATT server tests' database (`SampleGATTDatabase`, so the seeds' handles are those
    /// the tests pin), then a service whose value needs encryption to read and authorization to
    /// write, and indicates and notifies.
    static let database: AttributeDatabase = {
        let protected = GATTService(
            uuid: BluetoothUUID(high: 0x6E40_0020_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E),
            characteristics: [
                GATTCharacteristic(
                    uuid: BluetoothUUID(high: 0x6E40_0004_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E),
                    properties: [.read, .write, .indicate, .notify],
                    permissions: [.readable, .writeable, .readEncryptionRequired, .writeAuthorizationRequired],
                    value: .dynamic)
            ])
        // A fixed database that builds (a failure here is a bug in this file, found at once).
        return try! AttributeDatabase(
            gap: SampleGATTDatabase.gap, services: SampleGATTDatabase.services + [protected])
    }()
}
