import BLEWire

/// One ATT bearer's protocol rules (Core 5.4 Vol 3 Part F §3.3) as a value: it takes one input
/// at a time — a PDU from the peer, a request or indication of ours, an answer of our server, a
/// clock reading, the link gone — and says what to do, doing no I/O itself. The host keeps one
/// per connection and performs what it returns; the callers waiting for answers stay with the
/// host, keyed by the transaction ids the bearer hands out.
///
/// It alone owns the bearer's ATT_MTU (§3.2.8, §3.4.2). Each input returns a single enum value,
/// never an array: nothing is allocated per PDU.
///
/// Policy, stated once (DESIGN.md): a peer that pipelines requests, sends a response nobody
/// asked for, a confirmation for no indication, or lets a transaction pass its 30-second
/// timeout, has broken the protocol — the bearer ends (`.close`) and the link is closed. API
/// misuse (a PDU longer than the ATT_MTU) fails at once.
package struct ATTBearer {
    /// The ATT_MTU of an LE bearer until an exchange raises it (§3.2.8, ATT_MTU default).
    package static let defaultMTU = 23

    /// The ATT_MTU both ends use after an Exchange MTU (§3.4.2.2): the smaller Rx MTU, never
    /// below the default.
    package static func exchangedMTU(clientRxMTU: Int, serverRxMTU: Int) -> Int {
        max(min(clientRxMTU, serverRxMTU), defaultMTU)
    }

    /// Our request to the peer's server (§3.3.2: one at a time), with its §3.3.3 deadline.
    enum RequestSlot: Equatable {
        case idle
        case awaiting(opcode: ATTOpcode, id: UInt64, deadline: Duration)
    }

    /// Our indication to the peer's client (§3.3.2: one at a time), with its deadline.
    enum IndicationSlot: Equatable {
        case idle
        case awaiting(id: UInt64, deadline: Duration)
    }

    /// The peer's request to our server: we owe it a response before it may send another.
    enum IncomingSlot: Equatable {
        case idle
        case serving(ATTOpcode)
    }

    /// What to do with a PDU the peer sent.
    enum Inbound: Equatable {
        /// A request for the server; the bearer now owes its response (`serverAnswered`).
        case serve(ATTPDU)
        /// A command for the server (no response, §3.4.5.3–§3.4.5.4).
        case command(ATTPDU)
        /// Our request `id` is answered by `response` (a paired response or an Error
        /// Response); `mtu` is the new ATT_MTU when it answered an Exchange MTU (§3.4.2.2).
        case response(id: UInt64, ATTPDU, mtu: Int?)
        /// Notifications to report (§3.4.7.1, §3.4.7.4).
        case notification(ATTPDU)
        /// Send a Handle Value Confirmation, then report the indication (§3.4.7.2).
        case indication(ATT.HandleValueIndication)
        /// Our indication `id` is confirmed (§3.4.7.3); the server hears of it too.
        case confirmation(id: UInt64)
        /// Send this at once (Invalid PDU for a malformed request, §3.4.1.1).
        case respond(ATTPDU)
        /// Nothing to do (an undecodable command, notification or indication is dropped).
        case ignore
        /// The peer broke the protocol: end every transaction with this error and close the link.
        case close(ATTBearerError)
    }

    /// The server's answer to the request the bearer owed one: send `response`, then, when it
    /// ended an Exchange MTU, use `mtu` (§3.4.2.2: the server applies it once it answered).
    struct ServerAnswer: Equatable {
        let response: ATTPDU
        let mtu: Int?
    }

    /// The transactions a closing bearer leaves unanswered: their callers fail.
    struct Unfinished: Equatable {
        var request: UInt64?
        var indication: UInt64?
    }

    /// The Rx MTU this end offers, as client and as server without a GATT server of its own.
    let preferredMTU: Int
    /// The ATT transaction timeout (§3.3.3; 30 s).
    let transactionTimeout: Duration

    private(set) var mtu = ATTBearer.defaultMTU
    private(set) var request = RequestSlot.idle
    private(set) var indication = IndicationSlot.idle
    private(set) var incoming = IncomingSlot.idle
    /// The peer's Exchange MTU was answered once: later ones leave the ATT_MTU alone.
    private var exchangedAsServer = false
    private var nextTransactionID: UInt64 = 0

    init(preferredMTU: Int, transactionTimeout: Duration = .seconds(30)) {
        self.preferredMTU = preferredMTU
        self.transactionTimeout = transactionTimeout
    }

    private mutating func makeTransactionID() -> UInt64 {
        defer { nextTransactionID &+= 1 }
        return nextTransactionID
    }

    // MARK: Our requests and indications

    /// Starts our request `pdu` at `now`: its frame to send and the transaction it opens, or
    /// `pduTooLong` when it does not fit the ATT_MTU (API misuse: nothing starts). The caller
    /// waits for `request` to be idle first (§3.3.2).
    mutating func send(request pdu: ATTPDU, at now: Duration) -> Result<(id: UInt64, frame: [UInt8]), ATTBearerError> {
        precondition(request == .idle, "one outstanding ATT request per bearer (§3.3.2)")
        let frame: [UInt8]
        switch Host.attFrame(pdu, mtu: mtu) {
        case .success(let encoded): frame = encoded
        case .failure(let error): return .failure(error)
        }
        let id = makeTransactionID()
        request = .awaiting(opcode: pdu.opcode, id: id, deadline: now + transactionTimeout)
        return .success((id, frame))
    }

    /// Starts our indication of `value` at `now`, cut to ATT_MTU − 3 octets (§3.4.7.2). The
    /// caller waits for `indication` to be idle first (§3.3.2).
    mutating func send(indicationOf value: some Collection<UInt8>, attributeHandle: UInt16, at now: Duration)
        -> (id: UInt64, pdu: ATTPDU)
    {
        precondition(indication == .idle, "one outstanding ATT indication per bearer (§3.3.2)")
        let pdu = ATTPDU.handleValueIndication(
            .init(handle: attributeHandle, value: ArraySlice(value.prefix(mtu - 3))))
        let id = makeTransactionID()
        indication = .awaiting(id: id, deadline: now + transactionTimeout)
        return (id, pdu)
    }

    /// A notification of `value`, cut to ATT_MTU − 3 octets (§3.4.7.1); it opens no transaction.
    static func notification(of value: some Collection<UInt8>, attributeHandle: UInt16, mtu: Int) -> ATTPDU {
        .handleValueNotification(.init(handle: attributeHandle, value: ArraySlice(value.prefix(mtu - 3))))
    }

    /// A response's frame, sized for the ATT_MTU, and — when the response did not fit it (a
    /// server bug: §3.2.8 forbids sending it) — why it was replaced by an Error Response,
    /// Unlikely Error, to the request it answers: nothing goes out longer than the ATT_MTU.
    func frame(response pdu: ATTPDU) -> (frame: [UInt8], oversized: ATTBearerError?) {
        switch Host.attFrame(pdu, mtu: mtu) {
        case .success(let frame):
            return (frame, nil)
        case .failure(let error):
            let request: ATTOpcode
            if case .errorResponse(let answer) = pdu {
                request = answer.requestOpcode
            } else {
                request = pdu.opcode.pairedRequest ?? pdu.opcode
            }
            let replacement = ATTPDU.errorResponse(.init(requestOpcode: request, handle: 0, errorCode: .unlikelyError))
            // An Error Response (5 octets) fits every ATT_MTU (at least 23).
            let frame = (try? Host.attFrame(replacement, mtu: mtu).get()) ?? []
            return (frame, error)
        }
    }

    // MARK: The peer's PDUs

    /// A PDU the peer sent, as received: decoded here, so that a malformed one is judged by
    /// its kind.
    mutating func receive(bytes payload: ArraySlice<UInt8>) -> Inbound {
        guard let (opcode, kind) = ATTPDU.peek(payload) else { return .ignore }
        // §3.2.8: no PDU is longer than the ATT_MTU. One that is, is malformed — whatever its
        // fields say (a Prepare Write part past ATT_MTU − 5 would be echoed past the ATT_MTU,
        // §3.4.6.1–§3.4.6.2) — and is judged as a PDU that does not decode.
        let fits = payload.count <= mtu
        guard fits, let pdu = try? ATTPDU(decoding: payload) else {
            switch kind {
            case .request:
                // A malformed request gets Invalid PDU (§3.4.1.1), unless one is already
                // being served (then it is pipelined as well as malformed).
                guard incoming == .idle else { return .close(.protocolViolation("pipelined request")) }
                // §3.4.1.1: an opcode this server does not know is Request Not Supported, even
                // when its parameters are odd.
                let code: ATTErrorCode = opcode.isKnown ? .invalidPDU : .requestNotSupported
                return .respond(.errorResponse(.init(requestOpcode: opcode, handle: 0, errorCode: code)))
            case .response, .confirmation:
                return .close(.protocolViolation("malformed \(opcode)"))
            case .command, .notification, .indication:
                return .ignore
            }
        }
        return receive(pdu)
    }

    /// A PDU the peer sent, decoded.
    mutating func receive(_ pdu: ATTPDU) -> Inbound {
        switch pdu.kind {
        case .request:
            // §3.3.2: a client sends no request before the previous one is answered.
            guard incoming == .idle else { return .close(.protocolViolation("pipelined request")) }
            incoming = .serving(pdu.opcode)
            return .serve(pdu)
        case .response:
            return receive(response: pdu)
        case .command:
            return .command(pdu)
        case .notification:
            return .notification(pdu)
        case .indication:
            guard case .handleValueIndication(let value) = pdu else { return .ignore }
            return .indication(value)
        case .confirmation:
            guard case .awaiting(let id, _) = indication else {
                return .close(.protocolViolation("confirmation without an indication"))
            }
            indication = .idle
            return .confirmation(id: id)
        }
    }

    private mutating func receive(response pdu: ATTPDU) -> Inbound {
        guard case .awaiting(let opcode, let id, _) = request else {
            return .close(.protocolViolation("unsolicited \(pdu.opcode)"))
        }
        let answers: Bool
        if case .errorResponse(let error) = pdu {
            answers = error.requestOpcode == opcode
        } else {
            answers = opcode.pairedResponse == pdu.opcode
        }
        guard answers else { return .close(.protocolViolation("\(pdu.opcode) does not answer \(opcode)")) }
        request = .idle
        // The client applies the exchanged ATT_MTU once the response arrives (§3.4.2.2).
        var newMTU: Int?
        if case .exchangeMTUResponse(let answer) = pdu {
            mtu = Self.exchangedMTU(clientRxMTU: preferredMTU, serverRxMTU: Int(answer.serverRxMTU))
            newMTU = mtu
        }
        return .response(id: id, pdu, mtu: newMTU)
    }

    // MARK: Our server's answers

    /// Our server answered the request being served (`nil`: it had no answer, which the peer
    /// gets as Unlikely Error). An Exchange MTU answered sets the ATT_MTU (§3.4.2.2).
    mutating func serverAnswered(_ response: ATTPDU?, to request: ATTPDU) -> ServerAnswer {
        incoming = .idle
        if case .exchangeMTURequest(let asked) = request, case .exchangeMTUResponse(let answer)? = response {
            // §3.4.2.1: a client sends one Exchange MTU per connection. A second is answered
            // (the GATT server gives the same Server Rx MTU) but changes nothing: the ATT_MTU
            // both ends agreed on stays.
            guard !exchangedAsServer else { return ServerAnswer(response: .exchangeMTUResponse(answer), mtu: nil) }
            exchangedAsServer = true
            mtu = Self.exchangedMTU(clientRxMTU: Int(asked.clientRxMTU), serverRxMTU: Int(answer.serverRxMTU))
            return ServerAnswer(response: .exchangeMTUResponse(answer), mtu: mtu)
        }
        return ServerAnswer(
            response: response
                ?? .errorResponse(.init(requestOpcode: request.opcode, handle: 0, errorCode: .unlikelyError)),
            mtu: nil)
    }

    /// The answer to a request when this end has no server (§3.4.1.1): Request Not Supported,
    /// except for Exchange MTU, which the bearer answers with its own Rx MTU (§3.4.2).
    mutating func answerWithoutServer(_ request: ATTPDU) -> ServerAnswer {
        let response: ATTPDU
        if case .exchangeMTURequest = request {
            response = .exchangeMTUResponse(.init(serverRxMTU: UInt16(clamping: preferredMTU)))
        } else {
            response = .errorResponse(.init(requestOpcode: request.opcode, handle: 0, errorCode: .requestNotSupported))
        }
        return serverAnswered(response, to: request)
    }

    // MARK: Time and the link

    /// The earliest deadline of a pending transaction (§3.3.3), nil when none is pending.
    var nextDeadline: Duration? {
        switch (request, indication) {
        case (.awaiting(_, _, let a), .awaiting(_, let b)): min(a, b)
        case (.awaiting(_, _, let a), .idle): a
        case (.idle, .awaiting(_, let b)): b
        case (.idle, .idle): nil
        }
    }

    /// The clock reads `now`. A transaction past its 30 s (§3.3.3) ends the bearer: the
    /// transactions left unanswered are returned (they fail with `transactionTimeout`) and the
    /// link is to be closed — no further ATT on it. Nil when nothing is overdue.
    mutating func timeout(at now: Duration) -> Unfinished? {
        guard let deadline = nextDeadline, deadline <= now else { return nil }
        return close()
    }

    /// The link is gone: the transactions left unanswered, whose callers fail with the reason.
    mutating func linkLost() -> Unfinished { close() }

    /// The bearer ends (link lost, timeout, violation): the transactions left unanswered, whose
    /// callers fail. Nothing is pending afterwards.
    mutating func close() -> Unfinished {
        var unfinished = Unfinished()
        if case .awaiting(_, let id, _) = request { unfinished.request = id }
        if case .awaiting(let id, _) = indication { unfinished.indication = id }
        request = .idle
        indication = .idle
        incoming = .idle
        return unfinished
    }
}
