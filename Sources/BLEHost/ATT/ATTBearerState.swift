import BLEWire

/// One connection's ATT bearer as the host runs it: the protocol machine (`ATTBearer`) and the
/// callers it answers — each waiting on the transaction id the machine gave it — and the callers
/// waiting for their turn or for transmit room.
struct ATTBearerState {
    typealias ResponseContinuation = CheckedContinuation<Result<ATTPDU, ATTBearerError>, Never>
    typealias ConfirmationContinuation = CheckedContinuation<Result<Void, ATTBearerError>, Never>

    var machine: ATTBearer
    /// The caller of our outstanding request, by its transaction id.
    var responseWaiter: (id: UInt64, continuation: ResponseContinuation)?
    /// The caller of our outstanding indication, by its transaction id.
    var confirmationWaiter: (id: UInt64, continuation: ConfirmationContinuation)?
    /// Callers waiting for the request slot, in order.
    var requestWaiters = WaiterQueue()
    var indicationWaiters = WaiterQueue()
    /// Callers waiting for transmit room (write without response, notifications).
    var readinessWaiters = WaiterQueue()
    /// Someone on the host's executor asked for `.readyToSend` when room comes back.
    var readinessReportWanted = false

    init(_ machine: ATTBearer) {
        self.machine = machine
    }

    /// Someone waits for transmit room on this bearer.
    var awaitsReadiness: Bool { readinessReportWanted || !readinessWaiters.isEmpty }

    /// Resumes the caller of request `id` with `result`.
    mutating func completeRequest(_ id: UInt64, with result: Result<ATTPDU, ATTBearerError>) {
        guard let waiter = responseWaiter, waiter.id == id else { return }
        responseWaiter = nil
        waiter.continuation.resume(returning: result)
    }

    /// Resumes the caller of indication `id` with `result`.
    mutating func completeIndication(_ id: UInt64, with result: Result<Void, ATTBearerError>) {
        guard let waiter = confirmationWaiter, waiter.id == id else { return }
        confirmationWaiter = nil
        waiter.continuation.resume(returning: result)
    }
}
