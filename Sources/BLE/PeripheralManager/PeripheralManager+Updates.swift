import BLEHost
import BLEWire
import Logging

/// Sending values to subscribers (Core 5.4 Vol 3 Part G §4.10–§4.11; Core Bluetooth's
/// `updateValue(_:for:onSubscribedCentrals:)` and `peripheralManagerIsReady`).
extension PeripheralManager {
    /// Sends `value` to the centrals subscribed to `characteristic` (only those listed in
    /// `onSubscribedCentrals`, when given): a notification to those that enabled notifications,
    /// an indication to those that enabled only indications. Returns false, sending nothing,
    /// when a central's transmit queue is full or its previous indication is unconfirmed;
    /// `.readyToUpdateSubscribers` follows when there is room. A stored value takes the new
    /// value either way.
    ///
    /// Throws at once for a characteristic that neither notifies nor indicates, and for a value
    /// longer than a subscriber's ATT_MTU − 3 octets (Vol 3 Part F §3.4.7.1).
    @discardableResult
    public func updateValue(
        _ value: [UInt8], for characteristic: Characteristic, onSubscribedCentrals only: [Central]? = nil
    ) async throws(BLEError) -> Bool {
        let (valueHandle, wanted) = try beginUpdate(value, for: characteristic, onSubscribedCentrals: only)
        var waiting: [ConnectionHandle] = []
        forEachTarget(of: valueHandle, among: wanted) { connection, indicate in
            if !isReady(connection, indicate: indicate) { waiting.append(connection) }
        }
        guard waiting.isEmpty else {
            armReadiness(waiting)
            return false
        }
        forEachTarget(of: valueHandle, among: wanted) { connection, indicate in
            send(value, of: valueHandle, to: connection, indicate: indicate)
        }
        return true
    }

    /// What `updateValue` and `updateValueWhenReady` check before anything is sent — powered on,
    /// a characteristic that notifies or indicates, a value no longer than any target's
    /// ATT_MTU − 3 (Vol 3 Part F §3.4.7.1) — then a stored value takes the new value. Returns
    /// the value handle and the connections `only` names (nil: every subscriber).
    func beginUpdate(_ value: [UInt8], for characteristic: Characteristic, onSubscribedCentrals only: [Central]?)
        throws(BLEError) -> (valueHandle: UInt16, wanted: [ConnectionHandle]?)
    {
        try checkPoweredOn()
        let (_, definition) = try locate(characteristic)
        guard !definition.properties.isDisjoint(with: .subscribable) else {
            throw .propertyNotSupported(required: [.notify, .indicate])
        }
        guard value.count <= Peripheral.maximumValueLength else {
            throw .valueTooLong(length: value.count, maximum: Peripheral.maximumValueLength)
        }
        let valueHandle = characteristic.handle
        // A list, not a set: it names a central or two, and is made for every update. Each
        // connection once, as `updateValueWhenReady` counts them.
        let wanted = only.map { centrals in
            var connections: [ConnectionHandle] = []
            for central in centrals where !connections.contains(central.connection) {
                connections.append(central.connection)
            }
            return connections
        }
        var tooLong: Int?
        forEachTarget(of: valueHandle, among: wanted) { connection, _ in
            let maximum = stack.inPlace(passing: connection) { $0.attMTU(on: $1) } - 3
            if value.count > maximum { tooLong = maximum }
        }
        if let tooLong { throw .valueTooLong(length: value.count, maximum: tooLong) }
        if case .stored = definition.value {
            server.withServer { server in _ = try? server.setValue(value, forAttributeAt: valueHandle) }
        }
        return (valueHandle, wanted)
    }

    /// Calls `body` with each central subscribed to `valueHandle` (of those in `wanted`), in
    /// handle order, and whether it gets an indication (it enabled only indications). One
    /// central, the usual case, needs no sorted list.
    func forEachTarget(
        of valueHandle: UInt16, among wanted: [ConnectionHandle]?, _ body: (ConnectionHandle, Bool) -> Void
    ) {
        func visit(_ connection: ConnectionHandle) {
            guard let subscription = subscriptions[connection]?[valueHandle],
                wanted?.contains(connection) ?? true
            else { return }
            body(connection, !subscription.notifications)
        }
        if subscriptions.count == 1, let connection = subscriptions.keys.first {
            visit(connection)
        } else {
            for connection in subscriptions.keys.sorted() { visit(connection) }
        }
    }

    /// Sends one update the central has room for: a notification in place, or an indication
    /// on a task that waits for its confirmation.
    private func send(_ value: [UInt8], of valueHandle: UInt16, to connection: ConnectionHandle, indicate: Bool) {
        let host = stack.host
        if indicate {
            indicationsInFlight[connection, default: 0] += 1
            stack.spawn { [weak self] in
                do {
                    try await host.indicate(value, attributeHandle: valueHandle, on: connection)
                    await self?.indicationConfirmed(valueHandle, on: connection)
                } catch {
                    host.logger.notice(
                        "indication of handle \(valueHandle) on link \(connection.rawValue) not confirmed: \(error)")
                }
                await self?.indicationEnded(connection)
            }
            return
        }
        let notification = ATTPDU.handleValueNotification(.init(handle: valueHandle, value: value[...]))
        let sent = stack.inPlace(passing: (notification, connection)) { $0.attCommandIfReady($1.0, on: $1.1) }
        if case .success(false) = sent {
            // Room was checked above; should the queue be full after all, wait for it.
            stack.spawn {
                do {
                    try await host.notify(value, attributeHandle: valueHandle, on: connection)
                } catch {
                    host.logger.notice(
                        "notification of handle \(valueHandle) on link \(connection.rawValue) dropped: \(error)")
                }
            }
        }
    }

    /// Whether a central can take an update now.
    func isReady(_ connection: ConnectionHandle, indicate: Bool) -> Bool {
        if indicate { return indicationsInFlight[connection, default: 0] == 0 }
        return stack.inPlace(passing: connection) { $0.canSendWithoutResponse(on: $1) }
    }

    /// Reports readiness once, when every central has room again: the host's `.readyToSend`
    /// for a full link, and the confirmation of an indication in flight, come back to
    /// `checkReadiness` in place.
    private func armReadiness(_ connections: [ConnectionHandle]) {
        guard !readinessPending else { return }
        readinessPending = true
        for connection in connections {
            _ = stack.inPlace(passing: connection) { $0.reportReadinessToSend(on: $1) }
        }
    }

    func indicationEnded(_ connection: ConnectionHandle) {
        if let count = indicationsInFlight[connection] {
            indicationsInFlight[connection] = count > 1 ? count - 1 : nil
        }
        checkReadiness()
    }

    /// Reports `.readyToUpdateSubscribers` once every connected central has room; a central
    /// still without room is asked to report it.
    func checkReadiness() {
        wakeUpdateWaiters()
        guard readinessPending else { return }
        for connection in centrals.keys.sorted() {
            guard indicationsInFlight[connection, default: 0] == 0 else { return }
            if stack.inPlace(passing: connection, { $0.reportReadinessToSend(on: $1) }) { return }
        }
        readinessPending = false
        eventSink.yield(.readyToUpdateSubscribers)
    }
}
