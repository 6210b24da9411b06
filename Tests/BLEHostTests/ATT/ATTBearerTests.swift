import BLEWire
import Testing

@testable import BLEHost

/// The ATT bearer's rules one input at a time, without a host (Core 5.4 Vol 3 Part F §3.3–§3.4).
@Suite("ATT bearer state machine (Core 5.4 Vol 3 Part F §3.3)")
struct ATTBearerTests {
    private func bearer() -> ATTBearer { ATTBearer(preferredMTU: 247, transactionTimeout: .seconds(30)) }

    private func start(_ pdu: ATTPDU, on bearer: inout ATTBearer, at now: Duration = .zero) throws -> UInt64 {
        try bearer.send(request: pdu, at: now).get().id
    }

    @Test("§3.3.2 a request is answered by its paired response, or by an Error Response naming it")
    func requestAnswered() throws {
        var bearer = bearer()
        let read = try start(.readRequest(.init(handle: 3)), on: &bearer)
        #expect(bearer.request == .awaiting(opcode: .readRequest, id: read, deadline: .seconds(30)))
        let response = ATTPDU.readResponse(.init(value: [0x42]))
        #expect(bearer.receive(response) == .response(id: read, response, mtu: nil))
        #expect(bearer.request == .idle)
        let write = try start(.writeRequest(.init(handle: 3, value: [1])), on: &bearer)
        #expect(write != read)
        let error = ATTPDU.errorResponse(.init(requestOpcode: .writeRequest, handle: 3, errorCode: .writeNotPermitted))
        #expect(bearer.receive(error) == .response(id: write, error, mtu: nil))
    }

    @Test("§3.3.2 a peer that sends a second request before the first is answered breaks the protocol")
    func pipelinedRequest() {
        var bearer = bearer()
        let first = ATTPDU.readRequest(.init(handle: 1))
        #expect(bearer.receive(first) == .serve(first))
        #expect(bearer.incoming == .serving(.readRequest))
        #expect(bearer.receive(.readRequest(.init(handle: 2))) == .close(.protocolViolation("pipelined request")))
        // A malformed one is pipelined as well.
        #expect(bearer.receive(bytes: [0x0A, 0x03]) == .close(.protocolViolation("pipelined request")))
    }

    @Test("§3.3.2 once the server answered, the peer may send its next request")
    func sequentialRequests() {
        var bearer = bearer()
        let first = ATTPDU.readRequest(.init(handle: 1))
        _ = bearer.receive(first)
        let answer = bearer.serverAnswered(.readResponse(.init(value: [1])), to: first)
        #expect(answer == .init(response: .readResponse(.init(value: [1])), mtu: nil))
        #expect(bearer.incoming == .idle)
        let second = ATTPDU.readRequest(.init(handle: 2))
        #expect(bearer.receive(second) == .serve(second))
    }

    @Test("§3.4.1.1 a server without an answer sends Unlikely Error; without a server, Request Not Supported")
    func serverAnswers() {
        var bearer = bearer()
        let read = ATTPDU.readRequest(.init(handle: 5))
        _ = bearer.receive(read)
        #expect(
            bearer.serverAnswered(nil, to: read).response
                == .errorResponse(.init(requestOpcode: .readRequest, handle: 0, errorCode: .unlikelyError)))
        _ = bearer.receive(read)
        #expect(
            bearer.answerWithoutServer(read).response
                == .errorResponse(.init(requestOpcode: .readRequest, handle: 0, errorCode: .requestNotSupported)))
        #expect(bearer.incoming == .idle)
    }

    @Test("§3.4.1.1 a malformed request gets Invalid PDU; a malformed response breaks the protocol")
    func malformed() throws {
        var bearer = bearer()
        #expect(
            bearer.receive(bytes: [0x0A, 0x03])
                == .respond(.errorResponse(.init(requestOpcode: .readRequest, handle: 0, errorCode: .invalidPDU))))
        #expect(bearer.incoming == .idle)
        _ = try start(.readRequest(.init(handle: 1)), on: &bearer)
        #expect(
            bearer.receive(bytes: [0x01, 0x0A]) == .close(.protocolViolation("malformed \(ATTOpcode.errorResponse)")))
        // A malformed notification is dropped.
        #expect(bearer.receive(bytes: [0x1B, 0x01]) == .ignore)
    }

    @Test("§3.3.2 a response nobody asked for, or one that answers another request, breaks the protocol")
    func unsolicitedResponse() throws {
        var bearer = bearer()
        #expect(
            bearer.receive(.readResponse(.init(value: [9])))
                == .close(.protocolViolation("unsolicited \(ATTOpcode.readResponse)")))
        _ = try start(.readRequest(.init(handle: 3)), on: &bearer)
        #expect(
            bearer.receive(.writeResponse(.init()))
                == .close(.protocolViolation("\(ATTOpcode.writeResponse) does not answer \(ATTOpcode.readRequest)")))
        #expect(
            bearer.receive(.errorResponse(.init(requestOpcode: .writeRequest, handle: 3, errorCode: .invalidHandle)))
                == .close(.protocolViolation("\(ATTOpcode.errorResponse) does not answer \(ATTOpcode.readRequest)")))
    }

    @Test("§3.3.3 a transaction not answered in 30 s ends the bearer; its caller fails and nothing more is pending")
    func transactionTimeout() throws {
        var bearer = bearer()
        let read = try start(.readRequest(.init(handle: 3)), on: &bearer, at: .seconds(5))
        #expect(bearer.nextDeadline == .seconds(35))
        #expect(bearer.timeout(at: .seconds(34)) == nil)
        #expect(bearer.request != .idle)
        #expect(bearer.timeout(at: .seconds(35)) == ATTBearer.Unfinished(request: read, indication: nil))
        #expect(bearer.request == .idle && bearer.nextDeadline == nil)
        // No further ATT: a late response is unsolicited.
        #expect(
            bearer.receive(.readResponse(.init(value: [1])))
                == .close(.protocolViolation("unsolicited \(ATTOpcode.readResponse)")))
    }

    @Test("§3.3.3 each transaction has its own deadline: an answered one leaves none behind")
    func deadlinePerTransaction() throws {
        var bearer = bearer()
        _ = try start(.readRequest(.init(handle: 3)), on: &bearer)
        _ = bearer.receive(.readResponse(.init(value: [1])))
        #expect(bearer.nextDeadline == nil)
        #expect(bearer.timeout(at: .seconds(60)) == nil)
        let indication = bearer.send(indicationOf: [1], attributeHandle: 0x30, at: .seconds(20))
        let read = try start(.readRequest(.init(handle: 4)), on: &bearer, at: .seconds(25))
        #expect(bearer.nextDeadline == .seconds(50))
        #expect(bearer.timeout(at: .seconds(50)) == .init(request: read, indication: indication.id))
    }

    @Test("§3.4.2.2 ATT_MTU = max(min(Client Rx MTU, Server Rx MTU), 23)")
    func mtuRule() {
        for (client, server, expected) in [(247, 185, 185), (100, 247, 100), (23, 512, 23), (10, 247, 23), (0, 0, 23)] {
            #expect(ATTBearer.exchangedMTU(clientRxMTU: client, serverRxMTU: server) == expected)
        }
        #expect(ATTBearer.defaultMTU == 23)
        #expect(bearer().mtu == ATTBearer.defaultMTU)
    }

    @Test("§3.4.2.2 as client: the ATT_MTU changes when the Exchange MTU Response arrives")
    func mtuExchangeAsClient() throws {
        var bearer = bearer()
        let id = try start(.exchangeMTURequest(.init(clientRxMTU: 247)), on: &bearer)
        #expect(bearer.mtu == 23)
        let response = ATTPDU.exchangeMTUResponse(.init(serverRxMTU: 185))
        #expect(bearer.receive(response) == .response(id: id, response, mtu: 185))
        #expect(bearer.mtu == 185)
        // An Error Response leaves it as it was.
        let again = try start(.exchangeMTURequest(.init(clientRxMTU: 247)), on: &bearer)
        let error = ATTPDU.errorResponse(
            .init(requestOpcode: .exchangeMTURequest, handle: 0, errorCode: .requestNotSupported))
        #expect(bearer.receive(error) == .response(id: again, error, mtu: nil))
        #expect(bearer.mtu == 185)
    }

    @Test("§3.4.2.2 as server: the ATT_MTU changes once the response is sent, with or without a GATT server")
    func mtuExchangeAsServer() {
        var bearer = bearer()
        let request = ATTPDU.exchangeMTURequest(.init(clientRxMTU: 100))
        #expect(bearer.receive(request) == .serve(request))
        #expect(bearer.mtu == 23)
        let answer = bearer.serverAnswered(.exchangeMTUResponse(.init(serverRxMTU: 512)), to: request)
        #expect(answer == .init(response: .exchangeMTUResponse(.init(serverRxMTU: 512)), mtu: 100))
        #expect(bearer.mtu == 100)

        var plain = self.bearer()
        _ = plain.receive(.exchangeMTURequest(.init(clientRxMTU: 512)))
        let own = plain.answerWithoutServer(.exchangeMTURequest(.init(clientRxMTU: 512)))
        #expect(own == .init(response: .exchangeMTUResponse(.init(serverRxMTU: 247)), mtu: 247))
        #expect(plain.mtu == 247)
    }

    @Test("§3.4.2.1 as server: a second Exchange MTU is answered but leaves the ATT_MTU as the first set it")
    func secondExchangeAsServer() {
        var bearer = bearer()
        for (asked, expected) in [(100, 100), (512, 100), (23, 100), (10, 100)] {
            let request = ATTPDU.exchangeMTURequest(.init(clientRxMTU: UInt16(asked)))
            #expect(bearer.receive(request) == .serve(request))
            let answer = bearer.serverAnswered(.exchangeMTUResponse(.init(serverRxMTU: 247)), to: request)
            #expect(answer.response == .exchangeMTUResponse(.init(serverRxMTU: 247)))
            #expect(bearer.mtu == expected, "after asking \(asked)")
        }
    }

    @Test("§3.4.7.2 an indication waits for its confirmation; a confirmation for none breaks the protocol")
    func indicationConfirmation() {
        var bearer = bearer()
        #expect(
            bearer.receive(.handleValueConfirmation(.init()))
                == .close(.protocolViolation("confirmation without an indication")))
        let (id, pdu) = bearer.send(indicationOf: Array(repeating: 7, count: 40), attributeHandle: 0x30, at: .zero)
        // Cut to ATT_MTU − 3 octets.
        #expect(pdu == .handleValueIndication(.init(handle: 0x30, value: ArraySlice(repeating: 7, count: 20))))
        #expect(bearer.indication == .awaiting(id: id, deadline: .seconds(30)))
        #expect(bearer.receive(.handleValueConfirmation(.init())) == .confirmation(id: id))
        #expect(bearer.indication == .idle)
    }

    @Test("§3.4.7.2 the peer's indication is to be confirmed and reported; §3.4.7.1 notifications reported")
    func peerIndicationAndNotification() {
        var bearer = bearer()
        let indication = ATT.HandleValueIndication(handle: 0x21, value: [1, 2])
        #expect(bearer.receive(.handleValueIndication(indication)) == .indication(indication))
        let notification = ATTPDU.handleValueNotification(.init(handle: 0x22, value: [3]))
        #expect(bearer.receive(notification) == .notification(notification))
        #expect(
            ATTBearer.notification(of: Array(repeating: 1, count: 30), attributeHandle: 0x22, mtu: 23)
                == .handleValueNotification(.init(handle: 0x22, value: ArraySlice(repeating: 1, count: 20))))
    }

    @Test("§3.3 a command goes to the server and opens no transaction")
    func command() {
        var bearer = bearer()
        let write = ATTPDU.writeCommand(.init(handle: 3, value: [1]))
        #expect(bearer.receive(write) == .command(write))
        #expect(bearer.incoming == .idle && bearer.request == .idle)
    }

    @Test("A link lost fails the outstanding request and indication")
    func linkLost() throws {
        var bearer = bearer()
        let read = try start(.readRequest(.init(handle: 3)), on: &bearer)
        let indication = bearer.send(indicationOf: [1], attributeHandle: 0x30, at: .zero).id
        #expect(bearer.linkLost() == .init(request: read, indication: indication))
        #expect(bearer.request == .idle && bearer.indication == .idle && bearer.nextDeadline == nil)
    }

    @Test("§3.2.8 a request longer than the ATT_MTU is refused and opens no transaction")
    func tooLong() {
        var bearer = bearer()
        let long = ATTPDU.writeRequest(.init(handle: 3, value: ArraySlice(repeating: 0, count: 30)))
        #expect(throws: ATTBearerError.pduTooLong(length: 33, mtu: 23)) {
            try bearer.send(request: long, at: .zero).get()
        }
        #expect(bearer.request == .idle)
    }
}
