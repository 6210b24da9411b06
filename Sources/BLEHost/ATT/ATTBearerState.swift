import BLEWire

/// The transaction state of one ATT bearer (Core 5.4 Vol 3 Part F §3.3.2–3.3.3): one request
/// outstanding each way, one indication outstanding, and what the peer is owed. Illegal
/// combinations cannot be written down: a slot is idle or holds exactly one transaction.
struct ATTBearerState {
    typealias ResponseContinuation = CheckedContinuation<Result<ATTPDU, ATTBearerError>, Never>
    typealias ConfirmationContinuation = CheckedContinuation<Result<Void, ATTBearerError>, Never>

    /// Our request to the peer's server.
    enum RequestSlot {
        case idle
        case awaiting(opcode: ATTOpcode, id: UInt64, continuation: ResponseContinuation)
    }

    /// Our indication to the peer's client.
    enum IndicationSlot {
        case idle
        case awaiting(id: UInt64, continuation: ConfirmationContinuation)
    }

    /// The peer's request to our server: we owe it a response before it may send another.
    enum IncomingSlot {
        case idle
        case serving(ATTOpcode)
    }

    var mtu = 23
    var request = RequestSlot.idle
    var indication = IndicationSlot.idle
    var incoming = IncomingSlot.idle
    /// Callers waiting for the request slot, in order.
    var requestWaiters = WaiterQueue()
    var indicationWaiters = WaiterQueue()
    /// Callers waiting for transmit room (write without response, notifications).
    var readinessWaiters = WaiterQueue()
    /// Someone on the host's executor asked for `.readyToSend` when room comes back.
    var readinessReportWanted = false
    var nextTransactionID: UInt64 = 0
    /// When our request and our indication time out (§3.3.3), as time on the host's timeline,
    /// with the transaction they belong to: a deadline whose transaction ended is stale.
    var requestDeadline: (id: UInt64, at: Duration)?
    var indicationDeadline: (id: UInt64, at: Duration)?

    mutating func makeTransactionID() -> UInt64 {
        defer { nextTransactionID &+= 1 }
        return nextTransactionID
    }

    /// Someone waits for transmit room on this bearer.
    var awaitsReadiness: Bool { readinessReportWanted || !readinessWaiters.isEmpty }
}
