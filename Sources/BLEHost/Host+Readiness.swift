import BLEWire

extension Host {
    /// Waits until the link can take another write without response or notification (Core
    /// Bluetooth's `canSendWriteWithoutResponse` turning true): returns at once when it can, or
    /// when the link is gone. While a caller waits, the host reports `.readyToSend` when room
    /// comes back, as it does for writers waiting for room.
    public func waitUntilReadyToSend(on handle: ConnectionHandle) async {
        while hasBearer(handle), !acl.isReady(handle) {
            await waitForReadiness(on: handle)
        }
    }

    /// Waits for room on `handle` or for its link to go.
    func waitForReadiness(on handle: ConnectionHandle) async {
        await WaiterQueue.wait(unless: { !hasBearer(handle) || acl.isReady(handle) }) { waiter in
            if !bearers.values[bearers.index(forKey: handle)!].awaitsReadiness { readinessInterest += 1 }
            bearers.values[bearers.index(forKey: handle)!].readinessWaiters.append(waiter)
        }
    }

    /// Asks for one `.readyToSend(handle:)` event when the link has room again, for callers
    /// on the host's executor that take events in place rather than wait on a task. Returns
    /// false, asking nothing, when the link has room now or is gone.
    package func reportReadinessToSend(on handle: ConnectionHandle) -> Bool {
        guard hasBearer(handle), !acl.isReady(handle) else { return false }
        if !bearers.values[bearers.index(forKey: handle)!].awaitsReadiness { readinessInterest += 1 }
        bearers.values[bearers.index(forKey: handle)!].readinessReportWanted = true
        return true
    }
}
