import BLEWire

extension Host {
    /// Waits until the link can take another write without response or notification (Core
    /// Bluetooth's `canSendWriteWithoutResponse` turning true): returns at once when it can, or
    /// when the link is gone. While a caller waits, the host reports `.readyToSend` when room
    /// comes back, as it does for writers waiting for room.
    public func waitUntilReadyToSend(on handle: UInt16) async {
        while bearers[handle] != nil, !acl.isReady(handle) {
            await withCheckedContinuation { bearers[handle]?.readinessWaiters.append($0) }
        }
    }
}
