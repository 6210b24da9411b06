import BLEWire

/// The ATT bearer of each connection (Core 5.4 Vol 3 Part F §3.3), run by the host actor: the
/// rules are `ATTBearer`'s (one per connection, policy stated there); the host does what it
/// says — sends, resumes the callers waiting on a transaction, asks the server, closes the
/// link — and keeps the callers waiting for their turn or for transmit room.
extension Host {
    // MARK: Client side: requests, commands

    /// Sends a request and waits for its response or Error Response.
    public func attRequest(_ pdu: ATTPDU, on handle: ConnectionHandle) async throws(ATTBearerError) -> ATTPDU {
        let result = await performRequest(pdu, on: handle)
        return try result.get()
    }

    private func performRequest(_ pdu: ATTPDU, on handle: ConnectionHandle) async -> Result<ATTPDU, ATTBearerError> {
        // One request outstanding per bearer (§3.3.2): later callers wait their turn.
        while !requestSlotFree(handle) {
            await WaiterQueue.wait(unless: { requestSlotFree(handle) }) {
                bearers.values[bearers.index(forKey: handle)!].requestWaiters.append($0)
            }
        }
        guard hasBearer(handle) else { return .failure(.disconnected(reason: .unknownConnectionIdentifier)) }
        let (id, frame): (UInt64, [UInt8])
        switch bearers.values[bearers.index(forKey: handle)!].machine.send(request: pdu, at: timeline.now()) {
        case .success(let started): (id, frame) = started
        case .failure(let error):
            wakeNextRequestWaiter(handle)
            return .failure(error)
        }
        return await withCheckedContinuation { (continuation: ATTBearerState.ResponseContinuation) in
            guard hasBearer(handle) else {
                return continuation.resume(returning: .failure(.disconnected(reason: .unknownConnectionIdentifier)))
            }
            bearers.values[bearers.index(forKey: handle)!].responseWaiter = (id, continuation)
            sendL2CAPFrame(frame, on: handle, priority: .request)
            armTransactionWatchdog()
        }
    }

    /// Sends a command (Write Command, Signed Write), waiting for transmit room.
    public func attCommand(_ pdu: ATTPDU, on handle: ConnectionHandle) async throws(ATTBearerError) {
        try await sendUnacknowledged(pdu, on: handle)
    }

    /// Exchanges the ATT_MTU as client (§3.4.2): the bearer applies the rule when the response
    /// arrives (`ATTBearer.exchangedMTU`).
    @discardableResult
    public func exchangeMTU(on handle: ConnectionHandle) async throws(ATTBearerError) -> Int {
        let preferred = UInt16(clamping: bearerMTU)
        let response = try await attRequest(.exchangeMTURequest(.init(clientRxMTU: preferred)), on: handle)
        switch response {
        case .exchangeMTUResponse, .errorResponse:
            return attMTU(on: handle)
        default:
            throw .protocolViolation("Exchange MTU answered by \(response.opcode)")
        }
    }

    public func attMTU(on handle: ConnectionHandle) -> Int { bearerMTU(handle) ?? ATTBearer.defaultMTU }

    /// No request of ours outstanding on the bearer, or no bearer (the caller then fails).
    private func requestSlotFree(_ handle: ConnectionHandle) -> Bool {
        guard let index = bearers.index(forKey: handle) else { return true }
        return bearers.values[index].machine.request == .idle
    }

    /// No indication of ours outstanding on the bearer, or no bearer (the caller then fails).
    private func indicationSlotFree(_ handle: ConnectionHandle) -> Bool {
        guard let index = bearers.index(forKey: handle) else { return true }
        return bearers.values[index].machine.indication == .idle
    }

    // The bearer's state is a struct with arrays and continuations: `bearers[handle]` copies
    // all of it, and changing it through `bearers[handle]!` moves it out into an optional and
    // back, in a coroutine frame that for a value this size is heap-allocated on every access
    // (15 `malloc`s per write round trip). So every access goes through
    // `bearers.values[bearers.index(forKey: handle)!]`, which reads and changes it in place.

    func hasBearer(_ handle: ConnectionHandle) -> Bool { bearers.index(forKey: handle) != nil }

    func bearerMTU(_ handle: ConnectionHandle) -> Int? {
        guard let index = bearers.index(forKey: handle) else { return nil }
        // Read in place: `bearers.values[index]` as a value copies the whole state, retaining
        // and releasing its queues and continuations, and this is asked for every
        // notification sent.
        return Self.mtu(of: &bearers.values[index])
    }

    private static func mtu(of bearer: inout ATTBearerState) -> Int { bearer.machine.mtu }

    /// True when the link can take a write without response / notification now.
    public func canSendWithoutResponse(on handle: ConnectionHandle) -> Bool { acl.isReady(handle) }

    // MARK: Server side: notifications, indications

    /// Sends a notification, waiting for transmit room; the value is cut to ATT_MTU − 3
    /// (§3.4.7.1).
    public func notify(_ value: some Collection<UInt8>, attributeHandle: UInt16, on handle: ConnectionHandle)
        async throws(ATTBearerError)
    {
        let pdu = ATTBearer.notification(of: value, attributeHandle: attributeHandle, mtu: attMTU(on: handle))
        try await sendUnacknowledged(pdu, on: handle)
    }

    /// Sends an indication and waits for its confirmation (one outstanding, §3.3.2).
    public func indicate(_ value: some Collection<UInt8>, attributeHandle: UInt16, on handle: ConnectionHandle)
        async throws(ATTBearerError)
    {
        while !indicationSlotFree(handle) {
            await WaiterQueue.wait(unless: { indicationSlotFree(handle) }) {
                bearers.values[bearers.index(forKey: handle)!].indicationWaiters.append($0)
            }
        }
        guard hasBearer(handle) else { throw .disconnected(reason: .unknownConnectionIdentifier) }
        let (id, pdu) = bearers.values[bearers.index(forKey: handle)!].machine.send(
            indicationOf: value, attributeHandle: attributeHandle, at: timeline.now())
        let result = await withCheckedContinuation { (continuation: ATTBearerState.ConfirmationContinuation) in
            guard hasBearer(handle) else {
                return continuation.resume(returning: .failure(.disconnected(reason: .unknownConnectionIdentifier)))
            }
            bearers.values[bearers.index(forKey: handle)!].confirmationWaiter = (id, continuation)
            sendL2CAP(pdu.encoded, channel: .att, on: handle, priority: .indication)
            armTransactionWatchdog()
        }
        try result.get()
    }

    /// Sends a command at once when the link has transmit room: false, sending nothing, when it
    /// has none (then `attCommand` waits for it). For callers on the host's executor, which call
    /// it in place rather than suspend per Write Command.
    package func attCommandIfReady(_ pdu: ATTPDU, on handle: ConnectionHandle) -> Result<Bool, ATTBearerError> {
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

    private func sendUnacknowledged(_ pdu: ATTPDU, on handle: ConnectionHandle) async throws(ATTBearerError) {
        while hasBearer(handle), !acl.isReady(handle) {
            await waitForReadiness(on: handle)
        }
        guard let mtu = bearerMTU(handle) else { throw .disconnected(reason: .unknownConnectionIdentifier) }
        sendL2CAPFrame(try Self.attFrame(pdu, mtu: mtu).get(), on: handle, priority: .command)
    }

    // MARK: Receiving

    func receivedATT(_ payload: ArraySlice<UInt8>, on handle: ConnectionHandle) {
        guard hasBearer(handle) else { return }
        switch bearers.values[bearers.index(forKey: handle)!].machine.receive(bytes: payload) {
        case .serve(let request):
            guard let server = attServer else {
                return answer(
                    bearers.values[bearers.index(forKey: handle)!].machine.answerWithoutServer(request), on: handle)
            }
            spawn { await self.serve(request: request, on: handle, with: server) }
        case .command(let pdu):
            guard let server = attServer, !server.takeCommand(pdu, connection: handle) else { return }
            spawn { await self.serve(command: pdu, on: handle, with: server) }
        case .response(let id, let pdu, let mtu):
            if let mtu { setMTU(mtu, on: handle) }
            bearers.values[bearers.index(forKey: handle)!].completeRequest(id, with: .success(pdu))
            wakeNextRequestWaiter(handle)
        case .notification(let pdu):
            receivedNotification(pdu, on: handle)
        case .indication(let indication):
            respond(.handleValueConfirmation(.init()), on: handle)
            emit(.indication(handle: handle, attributeHandle: indication.handle, value: Array(indication.value)))
        case .confirmation(let id):
            bearers.values[bearers.index(forKey: handle)!].completeIndication(id, with: .success(()))
            // The GATT server keeps its own record of the indication in flight (Service Changed
            // makes a client change-aware on confirmation, Vol 3 Part G §2.5.2.1).
            if let server = attServer {
                let mtu = attMTU(on: handle)
                spawn { _ = await server.handle(.handleValueConfirmation(.init()), connection: handle, mtu: mtu) }
            }
            bearers.values[bearers.index(forKey: handle)!].indicationWaiters.resumeFirst()
        case .respond(let pdu):
            respond(pdu, on: handle)
        case .ignore:
            // An empty PDU, or a command, notification or indication that is malformed or
            // longer than the ATT_MTU (§3.2.8, §3.3: nothing to answer).
            statistics.droppedATTPDUs += 1
            logger.notice(
                "dropped an ATT PDU on link \(handle.rawValue) that does not decode or exceeds the ATT_MTU: \(Hex.string(payload.prefix(32)))"
            )
        case .close(let error):
            violation(handle, error)
        }
    }

    /// The server works on the host's executor (its `handle` runs where it is called), so the
    /// application it asks — a peripheral manager on the same executor — is reached in place.
    private func serve(request pdu: ATTPDU, on handle: ConnectionHandle, with server: any ATTServerHandler) async {
        let response = await server.handle(pdu, connection: handle, mtu: attMTU(on: handle))
        guard hasBearer(handle) else { return }
        answer(bearers.values[bearers.index(forKey: handle)!].machine.serverAnswered(response, to: pdu), on: handle)
    }

    private func serve(command pdu: ATTPDU, on handle: ConnectionHandle, with server: any ATTServerHandler) async {
        _ = await server.handle(pdu, connection: handle, mtu: attMTU(on: handle))
    }

    /// Sends the answer to the peer's request; an Exchange MTU then takes effect (§3.4.2.2).
    private func answer(_ answer: ATTBearer.ServerAnswer, on handle: ConnectionHandle) {
        respond(answer.response, on: handle)
        if let mtu = answer.mtu { setMTU(mtu, on: handle) }
    }

    private func receivedNotification(_ pdu: ATTPDU, on handle: ConnectionHandle) {
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

    private func respond(_ pdu: ATTPDU, on handle: ConnectionHandle) {
        // The server builds answers within the ATT_MTU; one that is not is never sent as it is
        // (§3.2.8): the bearer puts an Error Response in its place.
        guard let index = bearers.index(forKey: handle) else { return }
        let (frame, oversized) = bearers.values[index].machine.frame(response: pdu)
        if let oversized {
            statistics.oversizedResponses += 1
            logger.warning(
                "\(pdu.opcode) on link \(handle.rawValue) replaced by Unlikely Error: \(oversized)")
        }
        sendL2CAPFrame(frame, on: handle, priority: .response)
    }

    /// The bearer took a new ATT_MTU: the connection and the application hear of it (the
    /// server reads it with each PDU).
    private func setMTU(_ mtu: Int, on handle: ConnectionHandle) {
        guard hasBearer(handle) else { return }
        connections[handle]?.attMTU = mtu
        emit(.attMTUChanged(handle: handle, mtu: mtu))
    }

    private func wakeNextRequestWaiter(_ handle: ConnectionHandle) {
        guard hasBearer(handle) else { return }
        bearers.values[bearers.index(forKey: handle)!].requestWaiters.resumeFirst()
    }

    /// Resumes writers waiting for room on links that have it, and reports readiness.
    func wakeReadinessWaiters() {
        guard readinessInterest > 0 else { return }
        for handle in bearers.keys
        where acl.isReady(handle) && bearers.values[bearers.index(forKey: handle)!].awaitsReadiness {
            bearers.values[bearers.index(forKey: handle)!].readinessReportWanted = false
            readinessInterest -= 1
            bearers.values[bearers.index(forKey: handle)!].readinessWaiters.resumeAll()
            emit(.readyToSend(handle: handle))
        }
    }

    /// A protocol violation by the peer (the bearer said `.close`): fail the bearer and close
    /// the link.
    private func violation(_ handle: ConnectionHandle, _ error: ATTBearerError) {
        failBearer(handle, with: error)
        spawn { await self.disconnect(handle, reason: .remoteUserTerminatedConnection) }
    }

    /// Ends every transaction of a bearer with `error` and removes it: after a disconnection,
    /// a timeout (§3.3.3: no further ATT on this bearer) or a violation, nothing more is sent.
    /// `unfinished`: what the bearer already reported left unanswered when it closed itself.
    func failBearer(_ handle: ConnectionHandle, with error: ATTBearerError, unfinished: ATTBearer.Unfinished? = nil) {
        guard var bearer = bearers.removeValue(forKey: handle) else { return }
        if bearers.isEmpty {
            // No transaction can be pending: the watchdog's wake-up would find nothing.
            transactionWatchdog?.cancel()
            transactionWatchdog = nil
        }
        if bearer.awaitsReadiness { readinessInterest -= 1 }
        let unfinished = unfinished ?? bearer.machine.linkLost()
        if let id = unfinished.request { bearer.completeRequest(id, with: .failure(error)) }
        if let id = unfinished.indication { bearer.completeIndication(id, with: .failure(error)) }
        bearer.requestWaiters.resumeAll()
        bearer.indicationWaiters.resumeAll()
        bearer.readinessWaiters.resumeAll()
    }
}

/// The client side of one connection's ATT bearer, for GATT client procedures.
public struct HostATTBearer: ATTClientBearer {
    public let host: Host
    public let connection: ConnectionHandle

    public init(host: Host, connection: ConnectionHandle) {
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
