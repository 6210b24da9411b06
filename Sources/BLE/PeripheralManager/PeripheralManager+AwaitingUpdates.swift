import BLEHost
import BLEWire

/// Why a waiting `updateValueWhenReady` was resumed.
enum UpdateWake {
    /// Something changed (room, a confirmation): look again.
    case recheck
    /// The central wrote its Client Characteristic Configuration to 0 for this characteristic.
    case unsubscribed
    /// The central's link went down, with the controller's reason.
    case disconnected(HCIStatus)
    /// The waiting task was cancelled.
    case cancelled
}

/// One `updateValueWhenReady` waiting for room on one central's link.
struct UpdateWaiter {
    let id: UInt64
    let connection: ConnectionHandle
    let valueHandle: UInt16
    let continuation: CheckedContinuation<UpdateWake, Never>
}

/// Sending a value and waiting until it is delivered (Core 5.4 Vol 3 Part G §4.10 Characteristic
/// Value Notification, §4.11 Characteristic Value Indications): the awaiting counterpart of
/// `updateValue`, which returns false instead of waiting, as Core Bluetooth's does.
extension PeripheralManager {
    /// Sends `value` to the centrals subscribed to `characteristic` (only those listed in
    /// `onSubscribedCentrals`, when given), waiting as long as it takes: for room in a central's
    /// transmit queue before a notification, and for a central's Handle Value Confirmation of
    /// an indication (Vol 3 Part F §3.4.7.2–§3.4.7.3; one outstanding at a time, §3.3.2) —
    /// each confirmation is also reported as `.indicationConfirmed`. A stored value takes the
    /// new value.
    ///
    /// Centrals are served in connection order. Throws, once every other target has been
    /// served, `.unsubscribed` when a target unsubscribed before the value could go to it (or a
    /// central named in `onSubscribedCentrals` was not subscribed), and `.disconnected` when a
    /// target's link went down first (an indication not confirmed before the link went down
    /// counts as not delivered). Throws at once, sending nothing, for the misuse
    /// `updateValue` refuses: a characteristic that neither notifies nor indicates, a value
    /// longer than a subscriber's ATT_MTU − 3 octets (Vol 3 Part F §3.4.7.1). Cancelling the
    /// calling task ends a wait for room with `.cancelled` (the centrals already served keep
    /// the value); an indication already sent still waits for its confirmation or the
    /// 30 s transaction timeout, as the bearer allows one outstanding (Vol 3 Part F §3.3.2).
    public func updateValueWhenReady(
        _ value: [UInt8], for characteristic: Characteristic, onSubscribedCentrals only: [Central]? = nil
    ) async throws(BLEError) {
        let (valueHandle, wanted) = try beginUpdate(value, for: characteristic, onSubscribedCentrals: only)
        var targets: [ConnectionHandle] = []
        forEachTarget(of: valueHandle, among: wanted) { connection, _ in targets.append(connection) }
        var failure: BLEError?
        if let wanted, wanted.count > targets.count { failure = .unsubscribed }
        for connection in targets {
            do throws(BLEError) {
                try await deliver(value, of: valueHandle, to: connection)
            } catch .cancelled {
                throw .cancelled
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }

    /// Sends one update to one central once it has room, and waits for the confirmation of an
    /// indication.
    private func deliver(_ value: [UInt8], of valueHandle: UInt16, to connection: ConnectionHandle)
        async throws(BLEError)
    {
        while true {
            if Task.isCancelled { throw .cancelled }
            guard centrals[connection] != nil else { throw .disconnected(reason: .unknownConnectionIdentifier) }
            guard let subscription = subscriptions[connection]?[valueHandle] else { throw .unsubscribed }
            // An indication to a central that enabled only indications, as `updateValue` sends.
            let indicate = !subscription.notifications
            if isReady(connection, indicate: indicate) {
                if indicate {
                    try await indicateAndWait(value, of: valueHandle, to: connection)
                    return
                }
                let pdu = ATTPDU.handleValueNotification(.init(handle: valueHandle, value: value[...]))
                switch stack.inPlace(passing: (pdu, connection), { $0.attCommandIfReady($1.0, on: $1.1) }) {
                case .success(true): return
                case .success(false): break
                case .failure(let error): throw BLEError(error)
                }
            }
            if !indicate {
                // The host reports `.readyToSend` for this link, which reaches `checkReadiness`.
                _ = stack.inPlace(passing: connection) { $0.reportReadinessToSend(on: $1) }
            }
            let id = nextUpdateWaiterID
            nextUpdateWaiterID += 1
            let wake = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<UpdateWake, Never>) in
                    // Other jobs of the executor may have run since the check above.
                    if Task.isCancelled {
                        continuation.resume(returning: .cancelled)
                    } else if centrals[connection] == nil || subscriptions[connection]?[valueHandle] == nil
                        || isReady(connection, indicate: indicate)
                    {
                        continuation.resume(returning: .recheck)
                    } else {
                        updateWaiters.append(
                            UpdateWaiter(
                                id: id, connection: connection, valueHandle: valueHandle, continuation: continuation))
                    }
                }
            } onCancel: { [weak self] in
                guard let manager = self else { return }
                manager.stack.spawn { await manager.cancelUpdateWaiter(id) }
            }
            switch wake {
            case .recheck: continue
            case .unsubscribed: throw .unsubscribed
            case .disconnected(let reason): throw .disconnected(reason: reason)
            case .cancelled: throw .cancelled
            }
        }
    }

    private func indicateAndWait(_ value: [UInt8], of valueHandle: UInt16, to connection: ConnectionHandle)
        async throws(BLEError)
    {
        indicationsInFlight[connection, default: 0] += 1
        do throws(ATTBearerError) {
            try await stack.host.indicate(value, attributeHandle: valueHandle, on: connection)
        } catch {
            indicationEnded(connection)
            throw BLEError(error)
        }
        indicationConfirmed(valueHandle, on: connection)
        indicationEnded(connection)
    }

    /// Reports a central's Handle Value Confirmation (Vol 3 Part F §3.4.7.3).
    func indicationConfirmed(_ valueHandle: UInt16, on connection: ConnectionHandle) {
        guard centrals[connection] != nil, let characteristic = characteristicSnapshot(valueHandle: valueHandle)
        else { return }
        eventSink.yield(.indicationConfirmed(central(connection), characteristic))
    }

    /// The waiter `id`'s task was cancelled: it stops waiting (if it still does).
    func cancelUpdateWaiter(_ id: UInt64) {
        guard let index = updateWaiters.firstIndex(where: { $0.id == id }) else { return }
        updateWaiters.remove(at: index).continuation.resume(returning: .cancelled)
    }

    /// Every waiter looks again: room came back, or an indication ended.
    func wakeUpdateWaiters() {
        guard !updateWaiters.isEmpty else { return }
        let woken = updateWaiters
        updateWaiters = []
        for waiter in woken { waiter.continuation.resume(returning: .recheck) }
    }

    /// The waiters for `connection` (and `valueHandle`, when given) learn why they cannot go on.
    func wakeUpdateWaiters(on connection: ConnectionHandle, valueHandle: UInt16? = nil, with wake: UpdateWake) {
        guard !updateWaiters.isEmpty else { return }
        var kept: [UpdateWaiter] = []
        var woken: [UpdateWaiter] = []
        for waiter in updateWaiters {
            if waiter.connection == connection && (valueHandle == nil || waiter.valueHandle == valueHandle) {
                woken.append(waiter)
            } else {
                kept.append(waiter)
            }
        }
        updateWaiters = kept
        for waiter in woken { waiter.continuation.resume(returning: wake) }
    }
}
