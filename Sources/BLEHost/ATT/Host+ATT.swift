import BLEWire

/// The ATT bearer of each connection (Core 5.4 Vol 3 Part F §3.3), run by the host actor.
///
/// Policy, stated once (DESIGN.md): a peer that pipelines requests, sends a response nobody
/// asked for, a confirmation for no indication, or lets a transaction pass its 30-second
/// timeout, has broken the protocol — the link is closed. API misuse (a PDU longer than the
/// MTU) throws at once. Running out of transmit room waits for room.
extension Host {
    // MARK: Client side: requests, commands

    /// Sends a request and waits for its response or Error Response.
    public func attRequest(_ pdu: ATTPDU, on handle: UInt16) async throws(ATTBearerError) -> ATTPDU {
        let result = await performRequest(pdu, on: handle)
        return try result.get()
    }

    private func performRequest(_ pdu: ATTPDU, on handle: UInt16) async -> Result<ATTPDU, ATTBearerError> {
        // One request outstanding per bearer (§3.3.2): later callers wait their turn.
        while !requestSlotFree(handle) {
            await WaiterQueue.wait(unless: { requestSlotFree(handle) }) { bearers[handle]!.requestWaiters.append($0) }
        }
        guard hasBearer(handle) else { return .failure(.disconnected(reason: .unknownConnectionIdentifier)) }
        let frame: [UInt8]
        switch Self.attFrame(pdu, mtu: bearers[handle]!.mtu) {
        case .success(let encoded): frame = encoded
        case .failure(let error):
            wakeNextRequestWaiter(handle)
            return .failure(error)
        }
        let id = bearers[handle]!.makeTransactionID()
        let result = await withCheckedContinuation { (continuation: ATTBearerState.ResponseContinuation) in
            guard hasBearer(handle) else {
                return continuation.resume(returning: .failure(.disconnected(reason: .unknownConnectionIdentifier)))
            }
            bearers[handle]!.request = .awaiting(opcode: pdu.opcode, id: id, continuation: continuation)
            sendL2CAPFrame(frame, on: handle, priority: .request)
            bearers[handle]!.requestDeadline = (id, timeline.now() + configuration.attTransactionTimeout)
            armTransactionWatchdog()
        }
        return result
    }

    /// Sends a command (Write Command, Signed Write), waiting for transmit room.
    public func attCommand(_ pdu: ATTPDU, on handle: UInt16) async throws(ATTBearerError) {
        try await sendUnacknowledged(pdu, on: handle)
    }

    /// Exchanges the ATT_MTU as client (§3.4.2): MTU = max(min(client, server), 23).
    @discardableResult
    public func exchangeMTU(on handle: UInt16) async throws(ATTBearerError) -> Int {
        let preferred = UInt16(clamping: configuration.preferredATTMTU)
        let response = try await attRequest(.exchangeMTURequest(.init(clientRxMTU: preferred)), on: handle)
        switch response {
        case .exchangeMTUResponse(let answer):
            let mtu = max(min(Int(preferred), Int(answer.serverRxMTU)), 23)
            setMTU(mtu, on: handle)
            return mtu
        case .errorResponse:
            return bearerMTU(handle) ?? 23
        default:
            throw .protocolViolation("Exchange MTU answered by \(response.opcode)")
        }
    }

    public func attMTU(on handle: UInt16) -> Int { bearerMTU(handle) ?? 23 }

    /// No request of ours outstanding on the bearer, or no bearer (the caller then fails).
    private func requestSlotFree(_ handle: UInt16) -> Bool {
        guard let bearer = bearers[handle], case .awaiting = bearer.request else { return true }
        return false
    }

    /// No indication of ours outstanding on the bearer, or no bearer (the caller then fails).
    private func indicationSlotFree(_ handle: UInt16) -> Bool {
        guard let bearer = bearers[handle], case .awaiting = bearer.indication else { return true }
        return false
    }

    // The bearer's state is a struct with arrays and continuations: `bearers[handle]` copies
    // all of it. These look inside without a copy.

    func hasBearer(_ handle: UInt16) -> Bool { bearers.index(forKey: handle) != nil }

    func bearerMTU(_ handle: UInt16) -> Int? {
        bearers.index(forKey: handle).map { bearers.values[$0].mtu }
    }

    /// True when the link can take a write without response / notification now.
    public func canSendWithoutResponse(on handle: UInt16) -> Bool { acl.isReady(handle) }

    // MARK: Server side: notifications, indications

    /// Sends a notification, waiting for transmit room; the value is cut to ATT_MTU − 3
    /// (§3.4.7.1).
    public func notify(_ value: some Collection<UInt8>, attributeHandle: UInt16, on handle: UInt16)
        async throws(ATTBearerError)
    {
        let mtu = bearerMTU(handle) ?? 23
        let pdu = ATTPDU.handleValueNotification(
            .init(handle: attributeHandle, value: ArraySlice(value.prefix(mtu - 3))))
        try await sendUnacknowledged(pdu, on: handle)
    }

    /// Sends an indication and waits for its confirmation (one outstanding, §3.3.2).
    public func indicate(_ value: some Collection<UInt8>, attributeHandle: UInt16, on handle: UInt16)
        async throws(ATTBearerError)
    {
        while !indicationSlotFree(handle) {
            await WaiterQueue.wait(unless: { indicationSlotFree(handle) }) {
                bearers[handle]!.indicationWaiters.append($0)
            }
        }
        guard let bearer = bearers[handle] else { throw .disconnected(reason: .unknownConnectionIdentifier) }
        let pdu = ATTPDU.handleValueIndication(
            .init(handle: attributeHandle, value: ArraySlice(value.prefix(bearer.mtu - 3))))
        let id = bearers[handle]!.makeTransactionID()
        let result = await withCheckedContinuation { (continuation: ATTBearerState.ConfirmationContinuation) in
            guard hasBearer(handle) else {
                return continuation.resume(returning: .failure(.disconnected(reason: .unknownConnectionIdentifier)))
            }
            bearers[handle]!.indication = .awaiting(id: id, continuation: continuation)
            sendL2CAP(pdu.encoded, channel: .att, on: handle, priority: .indication)
            bearers[handle]!.indicationDeadline = (id, timeline.now() + configuration.attTransactionTimeout)
            armTransactionWatchdog()
        }
        try result.get()
    }

    /// Sends a command at once when the link has transmit room: false, sending nothing, when it
    /// has none (then `attCommand` waits for it). For callers on the host's executor, which call
    /// it in place rather than suspend per Write Command.
    package func attCommandIfReady(_ pdu: ATTPDU, on handle: UInt16) -> Result<Bool, ATTBearerError> {
        guard !hasBearer(handle) || acl.isReady(handle) else { return .success(false) }
        guard let mtu = bearerMTU(handle) else { return .failure(.disconnected(reason: .unknownConnectionIdentifier)) }
        switch Self.attFrame(pdu, mtu: mtu) {
        case .success(let frame):
            sendL2CAPFrame(frame, on: handle, priority: .command)
            return .success(true)
        case .failure(let error):
            return .failure(error)
        }
    }

    private func sendUnacknowledged(_ pdu: ATTPDU, on handle: UInt16) async throws(ATTBearerError) {
        while hasBearer(handle), !acl.isReady(handle) {
            await waitForReadiness(on: handle)
        }
        guard let mtu = bearerMTU(handle) else { throw .disconnected(reason: .unknownConnectionIdentifier) }
        sendL2CAPFrame(try Self.attFrame(pdu, mtu: mtu).get(), on: handle, priority: .command)
    }

    // MARK: Receiving

    func receivedATT(_ payload: ArraySlice<UInt8>, on handle: UInt16) {
        guard hasBearer(handle), let (opcode, kind) = ATTPDU.peek(payload) else { return }
        let pdu: ATTPDU
        do {
            pdu = try ATTPDU(decoding: payload)
        } catch {
            switch kind {
            case .request:
                // A malformed request gets Invalid PDU (§3.4.1.1), unless one is already
                // being served (then it is pipelined as well as malformed).
                guard case .idle = bearers[handle]!.incoming else { return violation(handle, "pipelined request") }
                respond(.errorResponse(.init(requestOpcode: opcode, handle: 0, errorCode: .invalidPDU)), on: handle)
            case .response, .confirmation:
                violation(handle, "malformed \(opcode)")
            case .command, .notification, .indication:
                return
            }
            return
        }
        switch kind {
        case .request: receivedRequest(pdu, on: handle)
        case .response: receivedResponse(pdu, on: handle)
        case .command:
            guard let server = attServer, !server.takeCommand(pdu, connection: handle) else { return }
            spawn { await self.serve(command: pdu, on: handle, with: server) }
        case .notification: receivedNotification(pdu, on: handle)
        case .indication:
            if case .handleValueIndication(let indication) = pdu {
                respond(.handleValueConfirmation(.init()), on: handle)
                emit(.indication(handle: handle, attributeHandle: indication.handle, value: Array(indication.value)))
            }
        case .confirmation:
            guard case .awaiting(_, let continuation) = bearers[handle]!.indication else {
                return violation(handle, "confirmation without an indication")
            }
            bearers[handle]!.indication = .idle
            continuation.resume(returning: .success(()))
            // The GATT server keeps its own record of the indication in flight (Service Changed
            // makes a client change-aware on confirmation, Vol 3 Part G §2.5.2.1).
            if let server = attServer { spawn { _ = await server.handle(pdu, connection: handle) } }
            bearers[handle]!.indicationWaiters.resumeFirst()
        }
    }

    private func receivedRequest(_ pdu: ATTPDU, on handle: UInt16) {
        guard case .idle = bearers[handle]!.incoming else { return violation(handle, "pipelined request") }
        if case .exchangeMTURequest(let request) = pdu, attServer == nil {
            let ours = UInt16(clamping: configuration.preferredATTMTU)
            respond(.exchangeMTUResponse(.init(serverRxMTU: ours)), on: handle)
            setMTU(max(min(Int(ours), Int(request.clientRxMTU)), 23), on: handle, notifyServer: false)
            return
        }
        guard let server = attServer else {
            respond(
                .errorResponse(.init(requestOpcode: pdu.opcode, handle: 0, errorCode: .requestNotSupported)), on: handle
            )
            return
        }
        bearers[handle]!.incoming = .serving(pdu.opcode)
        spawn { await self.serve(request: pdu, on: handle, with: server) }
    }

    /// The server works on the host's executor (its `handle` runs where it is called), so the
    /// application it asks — a peripheral manager on the same executor — is reached in place.
    private func serve(request pdu: ATTPDU, on handle: UInt16, with server: any ATTServerHandler) async {
        let response = await server.handle(pdu, connection: handle)
        finishServing(response, for: pdu, on: handle)
    }

    private func serve(command pdu: ATTPDU, on handle: UInt16, with server: any ATTServerHandler) async {
        _ = await server.handle(pdu, connection: handle)
    }

    private func finishServing(_ response: ATTPDU?, for request: ATTPDU, on handle: UInt16) {
        guard hasBearer(handle) else { return }
        bearers[handle]!.incoming = .idle
        let opcode = request.opcode
        // The server answered an MTU exchange: both ends now use min(client, server) (§3.4.2).
        if case .exchangeMTURequest(let asked) = request, case .exchangeMTUResponse(let answer)? = response {
            respond(.exchangeMTUResponse(answer), on: handle)
            setMTU(max(min(Int(asked.clientRxMTU), Int(answer.serverRxMTU)), 23), on: handle, notifyServer: false)
            return
        }
        respond(
            response ?? .errorResponse(.init(requestOpcode: opcode, handle: 0, errorCode: .unlikelyError)), on: handle)
    }

    private func receivedResponse(_ pdu: ATTPDU, on handle: UInt16) {
        guard case .awaiting(let opcode, _, let continuation) = bearers[handle]!.request else {
            return violation(handle, "unsolicited \(pdu.opcode)")
        }
        let answers: Bool
        if case .errorResponse(let error) = pdu {
            answers = error.requestOpcode == opcode
        } else {
            answers = opcode.pairedResponse == pdu.opcode
        }
        guard answers else { return violation(handle, "\(pdu.opcode) does not answer \(opcode)") }
        bearers[handle]!.request = .idle
        continuation.resume(returning: .success(pdu))
        wakeNextRequestWaiter(handle)
    }

    private func receivedNotification(_ pdu: ATTPDU, on handle: UInt16) {
        switch pdu {
        case .handleValueNotification(let notification):
            emit(.notification(handle: handle, attributeHandle: notification.handle, value: Array(notification.value)))
        case .multipleHandleValueNotification(let multiple):
            for tuple in multiple.tuples {
                emit(.notification(handle: handle, attributeHandle: tuple.handle, value: Array(tuple.value)))
            }
        default:
            return
        }
    }

    // MARK: Plumbing

    private func respond(_ pdu: ATTPDU, on handle: UInt16) {
        // The server builds answers within the MTU; the frame is sized for it.
        switch Self.attFrame(pdu, mtu: bearerMTU(handle) ?? 23) {
        case .success(let frame): sendL2CAPFrame(frame, on: handle, priority: .response)
        case .failure: sendL2CAP(pdu.encoded, channel: .att, on: handle, priority: .response)
        }
    }

    private func setMTU(_ mtu: Int, on handle: UInt16, notifyServer: Bool = true) {
        guard hasBearer(handle) else { return }
        bearers[handle]!.mtu = mtu
        connections[handle]?.attMTU = mtu
        emit(.attMTUChanged(handle: handle, mtu: mtu))
        if notifyServer, let server = attServer { spawn { await server.attMTUChanged(mtu, connection: handle) } }
    }

    private func wakeNextRequestWaiter(_ handle: UInt16) {
        guard hasBearer(handle) else { return }
        bearers[handle]!.requestWaiters.resumeFirst()
    }

    /// Resumes writers waiting for room on links that have it, and reports readiness.
    func wakeReadinessWaiters() {
        guard readinessInterest > 0 else { return }
        for handle in bearers.keys where acl.isReady(handle) && bearers[handle]!.awaitsReadiness {
            bearers[handle]!.readinessReportWanted = false
            readinessInterest -= 1
            bearers[handle]!.readinessWaiters.resumeAll()
            emit(.readyToSend(handle: handle))
        }
    }

    /// §3.3.3: a transaction not completed within 30 s ends the bearer; the link is closed.
    /// A protocol violation by the peer: fail the bearer and close the link.
    private func violation(_ handle: UInt16, _ what: String) {
        failBearer(handle, with: .protocolViolation(what))
        spawn { await self.disconnect(handle, reason: .remoteUserTerminatedConnection) }
    }

    /// Ends every transaction of a bearer with `error` and removes it: after a disconnection,
    /// a timeout (§3.3.3: no further ATT on this bearer) or a violation, nothing more is sent.
    func failBearer(_ handle: UInt16, with error: ATTBearerError) {
        guard var bearer = bearers.removeValue(forKey: handle) else { return }
        if bearers.isEmpty {
            // No transaction can be pending: the watchdog's wake-up would find nothing.
            transactionWatchdog?.cancel()
            transactionWatchdog = nil
        }
        if bearer.awaitsReadiness { readinessInterest -= 1 }
        if case .awaiting(_, _, let continuation) = bearer.request { continuation.resume(returning: .failure(error)) }
        if case .awaiting(_, let continuation) = bearer.indication { continuation.resume(returning: .failure(error)) }
        bearer.requestWaiters.resumeAll()
        bearer.indicationWaiters.resumeAll()
        bearer.readinessWaiters.resumeAll()
    }
}

/// The client side of one connection's ATT bearer, for GATT client procedures.
public struct HostATTBearer: ATTClientBearer {
    public let host: Host
    public let connection: UInt16

    public init(host: Host, connection: UInt16) {
        self.host = host
        self.connection = connection
    }

    public var mtu: Int { get async { await host.attMTU(on: connection) } }

    // In the caller's isolation (a peripheral on the host's executor): the request reaches the
    // host in place, not through the generic executor and back.
    public nonisolated(nonsending) func request(_ pdu: ATTPDU) async throws(ATTBearerError) -> ATTPDU {
        try await host.attRequest(pdu, on: connection)
    }

    public nonisolated(nonsending) func command(_ pdu: ATTPDU) async throws(ATTBearerError) {
        try await host.attCommand(pdu, on: connection)
    }
}
