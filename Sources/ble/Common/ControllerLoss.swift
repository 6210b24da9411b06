import BLE

/// A command's controller gone from under it (its process killed, the dongle unplugged, the
/// socket closed): the host noticed the transport's end and the manager went `.poweredOff` for
/// good. Long-running commands stop on it with this error (exit status 1).
struct ControllerLost: Error, CustomStringConvertible {
    let error: HCITransportError

    var description: String { "the controller went away (\(error)); stopping" }

    /// Waits until `states` reports the radio gone for good, then returns why; nil when the
    /// states end first (the manager closed) or the waiting task is cancelled.
    static func awaitLoss(
        _ states: EventStream<ManagerState>, lostTransport: @Sendable () async -> HCITransportError?
    ) async -> ControllerLost? {
        for await state in states where state != .poweredOn {
            if let error = await lostTransport() { return ControllerLost(error: error) }
        }
        return nil
    }
}
