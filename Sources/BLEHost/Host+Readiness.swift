import BLEWire

extension Host {
    /// Waits until the link can take another write without response or notification (Core
    /// Bluetooth's `canSendWriteWithoutResponse` turning true): returns at once when it can, or
    /// when the link is gone. While a caller waits, the host reports `.readyToSend` when room
    /// comes back, as it does for writers waiting for room.
    public func waitUntilReadyToSend(on handle: UInt16) async {
        while hasBearer(handle), !acl.isReady(handle) {
            await waitForReadiness(on: handle)
        }
    }

    /// Waits for room on `handle` or for its link to go. The condition is checked again inside
    /// the continuation's body: on this toolchain other jobs of the host's executor can run
    /// between the caller's check and that body, and a waiter stored after the last wake-up
    /// would never be resumed.
    func waitForReadiness(on handle: UInt16) async {
        await withCheckedContinuation { continuation in
            guard hasBearer(handle), !acl.isReady(handle) else { return continuation.resume() }
            if !bearers[handle]!.awaitsReadiness { readinessInterest += 1 }
            bearers[handle]!.readinessWaiters.append(continuation)
        }
    }

    /// Asks for one `.readyToSend(handle:)` event when the link has room again, for callers
    /// on the host's executor that take events in place rather than wait on a task. Returns
    /// false, asking nothing, when the link has room now or is gone.
    package func reportReadinessToSend(on handle: UInt16) -> Bool {
        guard hasBearer(handle), !acl.isReady(handle) else { return false }
        if !bearers[handle]!.awaitsReadiness { readinessInterest += 1 }
        bearers[handle]!.readinessReportWanted = true
        return true
    }
}
