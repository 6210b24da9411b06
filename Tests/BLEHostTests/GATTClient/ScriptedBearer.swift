import BLEWire
import Testing

@testable import BLEHost

/// A bearer that plays a script: each request must be the next one expected (compared as
/// encoded octets) and gets the scripted answer; each command must be the next one expected.
/// Anything else is recorded as a test failure and fails the transaction, so a procedure that
/// sends something unexpected fails its test. `finish()` checks the script was played to the end.
actor ScriptedBearer: ATTClientBearer {
    /// One step of the script.
    enum Step {
        /// A request and the answer the bearer gives it.
        case request(ATTPDU, answer: Result<ATTPDU, ATTBearerError>)
        /// A command the procedure must send; `failure` makes the bearer refuse it.
        case command(ATTPDU, failure: ATTBearerError?)
    }

    nonisolated let mtu: Int
    private var steps: [Step]
    private let location: SourceLocation
    /// Every PDU the procedure sent, in order.
    private(set) var sent: [ATTPDU] = []

    init(mtu: Int = 23, _ steps: [Step], sourceLocation: SourceLocation = #_sourceLocation) {
        self.mtu = mtu
        self.steps = steps
        self.location = sourceLocation
    }

    func request(_ pdu: ATTPDU) async throws(ATTBearerError) -> ATTPDU {
        sent.append(pdu)
        guard case .request(let expected, let answer)? = steps.first, expected.encoded == pdu.encoded else {
            Issue.record("unexpected request \(pdu); the script expects \(expectation)", sourceLocation: location)
            throw .protocolViolation("unexpected request")
        }
        steps.removeFirst()
        return try answer.get()
    }

    func command(_ pdu: ATTPDU) async throws(ATTBearerError) {
        sent.append(pdu)
        guard case .command(let expected, let failure)? = steps.first, expected.encoded == pdu.encoded else {
            Issue.record("unexpected command \(pdu); the script expects \(expectation)", sourceLocation: location)
            throw .protocolViolation("unexpected command")
        }
        steps.removeFirst()
        if let failure { throw failure }
    }

    /// Fails the test when scripted steps were not played.
    func finish() {
        if !steps.isEmpty {
            Issue.record("\(steps.count) scripted steps not played, next: \(expectation)", sourceLocation: location)
        }
    }

    private var expectation: String {
        switch steps.first {
        case .request(let pdu, _)?: "request \(pdu)"
        case .command(let pdu, _)?: "command \(pdu)"
        case nil: "nothing more"
        }
    }
}

extension ScriptedBearer.Step {
    /// `request` answered by `response`.
    static func exchange(_ request: ATTPDU, _ response: ATTPDU) -> Self {
        .request(request, answer: .success(response))
    }

    /// `request` answered by an Error Response with `code` naming `handle`.
    static func error(_ request: ATTPDU, _ code: ATTErrorCode, handle: UInt16) -> Self {
        .request(
            request,
            answer: .success(ATT.ErrorResponse(requestOpcode: request.opcode, handle: handle, errorCode: code).pdu))
    }

    /// `request` failed by the bearer.
    static func failure(_ request: ATTPDU, _ error: ATTBearerError) -> Self {
        .request(request, answer: .failure(error))
    }

    /// A command the bearer accepts.
    static func command(_ pdu: ATTPDU) -> Self { .command(pdu, failure: nil) }
}

/// A PDU from hex octets (a test vector); a malformed vector fails the test.
func attPDU(_ hex: String, sourceLocation: SourceLocation = #_sourceLocation) -> ATTPDU {
    guard let bytes = Hex.bytes(hex), let decoded = try? ATTPDU(decoding: bytes) else {
        Issue.record("bad test vector \(hex)", sourceLocation: sourceLocation)
        return .unknown(opcode: ATTOpcode(0xFF), parameters: [])
    }
    return decoded
}

/// Runs `body` and returns the GATTError it throws, nil when it succeeds (any other error fails
/// the test).
func gattError<T>(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async -> GATTError? {
    do {
        _ = try await body()
        return nil
    } catch let error as GATTError {
        return error
    } catch {
        Issue.record("not a GATTError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A 128-bit UUID for tests.
let vendorUUID = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
let vendorUUID2 = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")!

/// The octets of `uuid` as ATT sends it, in hex ("0d18", or 32 digits little-endian).
func hexATT(_ uuid: BluetoothUUID) -> String {
    var writer = ByteWriter()
    uuid.encodeATT(into: &writer)
    return Hex.string(writer.bytes)
}
