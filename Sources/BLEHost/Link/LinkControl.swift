import BLEWire

/// The host's per-link bookkeeping for link negotiation and link procedures: which links are
/// still negotiating (and who waits for them), the HCI procedures whose completion event someone
/// awaits, and our L2CAP Connection Parameter Update Requests awaiting their response.
struct LinkControl {
    /// An HCI procedure that ends with an LE event of its link.
    enum Procedure: Hashable {
        /// LE Connection Update (Vol 4 Part E §7.8.18) → LE Connection Update Complete (§7.7.65.3).
        case connectionUpdate
        /// LE Set PHY (§7.8.49) → LE PHY Update Complete (§7.7.65.12).
        case phyUpdate
    }

    struct ProcedureKey: Hashable {
        var handle: ConnectionHandle
        var procedure: Procedure
    }

    /// A procedure's completion: expected (the command is on its way), arrived before anyone
    /// waited, or awaited.
    enum Slot {
        case expecting
        case arrived(HCIStatus)
        case waiting(CheckedContinuation<HCIStatus, Never>)
    }

    /// Links still negotiating, with the callers waiting for the end.
    var negotiating: [ConnectionHandle: WaiterQueue] = [:]
    var procedures: [ProcedureKey: Slot] = [:]
    /// The end of one of our Connection Parameter Update Requests (Vol 3 Part A §4.20–§4.21).
    enum ParameterAnswer {
        case accepted
        case rejected
        case linkLost
        /// No response within the signalling timeout (RTX, Vol 3 Part A §6.2.1).
        case timedOut
    }

    /// Our Connection Parameter Update Requests by signal identifier.
    var parameterRequests: [UInt8: (handle: ConnectionHandle, waiter: CheckedContinuation<ParameterAnswer, Never>)] =
        [:]
    var nextSignalIdentifier: UInt8 = 0x80

    /// A fresh identifier for a signalling request (Vol 3 Part A §4: non-zero). This host's own
    /// requests take 0x80…0xFF, leaving the low half to other signalling users.
    mutating func makeSignalIdentifier() -> UInt8 {
        defer { nextSignalIdentifier = nextSignalIdentifier == 0xFF ? 0x80 : nextSignalIdentifier + 1 }
        return nextSignalIdentifier
    }

    /// The completion of `procedure` on `handle` arrived: hands it to the caller waiting for it,
    /// or keeps it for the caller about to wait. False when nobody expected it (a procedure the
    /// peer started).
    mutating func complete(_ procedure: Procedure, on handle: ConnectionHandle, status: HCIStatus) -> Bool {
        let key = ProcedureKey(handle: handle, procedure: procedure)
        switch procedures[key] {
        case nil, .arrived?:
            return false
        case .expecting?:
            procedures[key] = .arrived(status)
        case .waiting(let waiter)?:
            procedures[key] = nil
            waiter.resume(returning: status)
        }
        return true
    }

    /// The link is gone: every wait on it ends with `reason`.
    mutating func linkEnded(_ handle: ConnectionHandle, reason: HCIStatus) {
        for key in procedures.keys where key.handle == handle {
            if case .waiting(let waiter)? = procedures.removeValue(forKey: key) { waiter.resume(returning: reason) }
        }
        for (identifier, request) in parameterRequests where request.handle == handle {
            parameterRequests[identifier] = nil
            request.waiter.resume(returning: .linkLost)
        }
        if var waiters = negotiating.removeValue(forKey: handle) { waiters.resumeAll() }
    }
}
