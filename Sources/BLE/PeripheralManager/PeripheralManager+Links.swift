import BLEHost
import BLETransport
import BLEWire

/// The host's and the GATT server's events, read in order (connections, subscriptions, Write
/// Commands).
extension PeripheralManager {
    func startPumps() async {
        // Links coming and going are handled on a task; the events a peripheral manager does
        // not use are dropped in place, without a task resumption each.
        let hostEvents = OrderedEventPump<HostEvent> { [weak self] event in
            switch event {
            case .connected, .disconnected, .transportLost, .connectionUpdated, .attMTUChanged, .hardwareError,
                .security:
                return false
            case .readyToSend:
                self?.inPlace(passing: ()) { manager, _ in manager.checkReadiness() }
                return true
            default: return true
            }
        }
        // Write Commands go to `writeRequests` in place, and confirmations are dropped in place;
        // subscription changes, and anything behind an event still being handled, keep their
        // order on a task. The manager shares the host's executor, where the server reports.
        let serverEvents = OrderedEventPump<GATTServerEvent> { [weak self] event in
            self?.inPlace(passing: event) { $0.takeInPlace($1) } ?? true
        }
        server.observeEvents { serverEvents.offer($0) }
        await stack.host.observeEvents { event in
            hostEvents.offer(event)
            if event == nil { serverEvents.finish() }
        }
        let host = stack.host
        pumps.append(
            stack.spawn { [weak self] in
                await hostEvents.run(on: host) { [weak self] event in await self?.handle(event) }
            })
        pumps.append(
            stack.spawn { [weak self] in
                await serverEvents.run(on: host) { [weak self] event in await self?.handle(event) }
            })
    }

    /// A server event taken synchronously, or false to leave it to the pump's task.
    private func takeInPlace(_ event: GATTServerEvent) -> Bool {
        switch event {
        case .writeWithoutResponse(let command):
            let handle = command.connection.handle
            guard centrals[handle] != nil,
                let request = request(for: command.write, on: handle, kind: .writeWithoutResponse)
            else { return true }
            writeSink.yield([request])
            return true
        case .confirmationReceived:
            return true
        case .subscriptionChanged:
            return false
        }
    }

    private func handle(_ event: HostEvent) async {
        switch event {
        case .connected(let info):
            guard info.role == .peripheral else { return }
            await linkUp(info)
        case .disconnected(let handle, let reason):
            await linkDown(handle, reason: reason)
        case .readyToSend:
            checkReadiness()
        case .transportLost(let error):
            // The radio is gone for good; each link is reported down right after.
            guard power.transportLost(error) else { return }
            forgetControllerState()
            stack.host.logger.error("peripheral manager: the controller is gone (\(error)); state \(state)")
        case .connectionUpdated(let info):
            linkChanged(info.handle)
        case .attMTUChanged(let handle, _):
            linkChanged(handle)
        case .hardwareError(let code):
            hardwareErrorReported(code)
        case .security(let handle, let event):
            securityEvent(event, on: handle)
        case .advertisingReport, .extendedAdvertisingReport, .connectionFailed,
            .encryptionChanged, .notification, .indication, .other:
            return
        }
    }

    private func handle(_ event: GATTServerEvent) async {
        switch event {
        case .subscriptionChanged(let subscription):
            let handle = subscription.connection.handle
            let valueHandle = subscription.characteristic.handle
            guard centrals[handle] != nil else { return }
            if subscription.isSubscribed {
                subscriptions[handle, default: [:]][valueHandle] = subscription
            } else {
                subscriptions[handle]?[valueHandle] = nil
                wakeUpdateWaiters(on: handle, valueHandle: valueHandle, with: .unsubscribed)
            }
            guard let characteristic = characteristicSnapshot(valueHandle: valueHandle) else { return }
            let central = central(handle)
            eventSink.yield(
                subscription.isSubscribed
                    ? .subscribed(central, characteristic) : .unsubscribed(central, characteristic))
        case .writeWithoutResponse(let command):
            let handle = command.connection.handle
            guard centrals[handle] != nil,
                let request = request(for: command.write, on: handle, kind: .writeWithoutResponse)
            else { return }
            writeSink.yield([request])
        case .confirmationReceived:
            return
        }
    }

    /// A central connected. Connectable advertising stops when a connection is made (Core 5.4
    /// Vol 6 Part B §4.4.2.3); as in Core Bluetooth, it goes on until `stopAdvertising()`.
    private func linkUp(_ info: ConnectionInfo) async {
        centrals[info.handle] = info.peerAddress
        centralIdentifiers[info.handle] = info.peerAddress.peerIdentifier
        reportedLinks[info.handle] = LinkParameters(info)
        eventSink.yield(.connected(central(info.handle)))
        guard advertisement != nil, state == .poweredOn else { return }
        do {
            try await resumeAdvertising()
        } catch {
            advertisement = nil
        }
    }

    /// A central's link went down: its subscriptions end, and requests it left unanswered are
    /// dropped.
    private func linkDown(_ handle: ConnectionHandle, reason: HCIStatus) async {
        guard centrals[handle] != nil else { return }
        let central = central(handle)
        let ended = subscriptions.removeValue(forKey: handle) ?? [:]
        centrals[handle] = nil
        centralIdentifiers[handle] = nil
        reportedLinks[handle] = nil
        for valueHandle in ended.keys.sorted() {
            if let characteristic = characteristicSnapshot(valueHandle: valueHandle) {
                eventSink.yield(.unsubscribed(central, characteristic))
            }
        }
        indicationsInFlight[handle] = nil
        unanswered.linkEnded(GATTConnectionID(handle))
        for (token, continuation) in pendingReads where token.connection.handle == handle {
            pendingReads[token] = nil
            continuation.resume(returning: .error(.unlikelyError))
        }
        for (token, continuation) in pendingWrites where token.connection.handle == handle {
            pendingWrites[token] = nil
            continuation.resume(returning: .error(.unlikelyError))
        }
        wakeUpdateWaiters(on: handle, with: .disconnected(reason))
        eventSink.yield(.disconnected(central, reason: reason))
        if centrals.isEmpty { centralsGoneWaiters.resumeAll() }
        checkReadiness()
    }

}
