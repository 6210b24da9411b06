import BLEHost

/// One GATT procedure at a time on a peripheral's connection. A procedure is a sequence of ATT
/// requests (Core 5.4 Vol 3 Part G §4: discovery walks handle ranges, a long read follows Read
/// with Read Blob requests, §4.8.3) and a long write fills the server's one prepare queue per
/// client before executing it (§4.9.4; Vol 3 Part F §3.4.6): two tasks' long writes interleaved
/// on the bearer would execute each other's parts. The bearer already holds one request at a
/// time; this holds one procedure at a time, in the order callers came (a caller that finds the
/// gate free may go ahead of one just woken, never of one still waiting behind a busy gate for
/// long: each release wakes the next).
struct ProcedureGate {
    private(set) var isBusy = false
    private var waiters = WaiterQueue()

    /// Claims the gate when it is free.
    mutating func claim() -> Bool {
        guard !isBusy else { return false }
        isBusy = true
        return true
    }

    mutating func enqueue(_ waiter: WaiterQueue.Waiter) {
        waiters.append(waiter)
    }

    /// Frees the gate and wakes the caller that waited longest.
    mutating func release() {
        isBusy = false
        waiters.resumeFirst()
    }
}

extension Peripheral {
    /// Runs the procedure `body` once no other procedure of this peripheral runs. Writes without
    /// response are single commands, not procedures, and go on without waiting (Vol 3 Part F
    /// §3.3: commands need no response and may be sent at any time).
    ///
    /// `body` runs in the peripheral's isolation (`nonisolated(nonsending)`), as the GATT
    /// client's procedures do: no executor switch per procedure.
    func serialised<T, Failure: Error>(
        _ body: nonisolated(nonsending) () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        var claimed = procedureGate.claim()
        while !claimed {
            await WaiterQueue.wait(unless: {
                claimed = procedureGate.claim()
                return claimed
            }) { procedureGate.enqueue($0) }
            if !claimed { claimed = procedureGate.claim() }
        }
        defer { procedureGate.release() }
        return try await body()
    }
}
