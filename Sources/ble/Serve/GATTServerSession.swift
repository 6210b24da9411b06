import BLE
import BLEWire

/// `ble serve` at work: publishes a `GATTDocument`, advertises, and answers every request from
/// one loop that owns the characteristic values, printing a line for each.
struct GATTServerSession: Sendable {
    /// What the server keeps per characteristic value handle.
    struct Slot: Sendable {
        var characteristic: Characteristic
        var value: [UInt8]
        var updates: GATTDocument.Updates?
    }

    /// Everything the loop reacts to, in arrival order.
    enum Input: Sendable {
        case read(ATTRequest)
        case write([ATTRequest])
        case event(PeripheralManagerEvent)
        case tick(valueHandle: UInt16)
        case stop(String)
        /// The controller went away: stop with an error.
        case lost(ControllerLost)
    }

    let manager: PeripheralManager
    let slots: [UInt16: Slot]

    /// Powers on, publishes the services in order, starts advertising and prints the address.
    static func start(_ document: GATTDocument, manager: PeripheralManager) async throws -> GATTServerSession {
        try await attempt("powering on") { try await manager.powerOn() }
        var slots: [UInt16: Slot] = [:]
        for (index, entry) in document.services.enumerated() {
            let published = try await attempt("publishing services[\(index)] (\(entry.definition.uuid.labelled))") {
                try await manager.add(entry.definition)
            }
            for (characteristic, behaviour) in zip(published.characteristics ?? [], entry.behaviours) {
                slots[characteristic.handle] = Slot(
                    characteristic: characteristic, value: behaviour.initialValue, updates: behaviour.updates)
            }
        }
        // Legacy PDUs, which every scanner hears (the description's 31-octet rule, docs/gatt-json.md).
        try await attempt("advertising") {
            try await manager.startAdvertising(document.advertisement, options: AdvertisingOptions(format: .legacy))
        }
        let address = await manager.address.map(\.description) ?? "an unknown address"
        Console.out("serving \(TerminalText.quoted(document.deviceName)) at \(address)")
        Console.out(
            "advertising " + (document.advertisement.localName.map(TerminalText.quoted) ?? "no name")
                + (document.advertisement.serviceUUIDs.isEmpty
                    ? "" : " with " + document.advertisement.serviceUUIDs.map(\.description).joined(separator: ","))
                + "; \(document.services.count) service\(document.services.count == 1 ? "" : "s") published")
        return GATTServerSession(manager: manager, slots: slots)
    }

    /// Answers requests until a signal, the duration's end, or the manager's end; returns why it
    /// stopped. Throws `ControllerLost` when the controller goes away.
    func serve(session: RadioSession, duration: Double?, signals: StopSignals) async throws -> String {
        let (inputs, sink) = AsyncStream.makeStream(of: Input.self)
        let manager = self.manager
        let states = await manager.stateUpdates()
        var feeders = [
            session.spawn {
                let lost = await ControllerLost.awaitLoss(states) { await manager.lostTransport }
                if let lost { sink.yield(.lost(lost)) }
            },
            session.spawn {
                for await request in manager.readRequests { sink.yield(.read(request)) }
            },
            session.spawn {
                for await requests in manager.writeRequests { sink.yield(.write(requests)) }
            },
            session.spawn {
                for await event in manager.events { sink.yield(.event(event)) }
                sink.yield(.stop("the server closed"))
            },
            session.spawn {
                for await signal in signals.stream {
                    sink.yield(.stop("received \(StopSignals.name(signal))"))
                    return
                }
            },
            session.spawn {
                guard let duration, await session.sleep(for: .seconds(duration)) else { return }
                sink.yield(.stop("\(GATTCommandError.format(duration)) s elapsed"))
            },
        ]
        for (handle, slot) in slots.sorted(by: { $0.key < $1.key }) {
            guard let interval = slot.updates?.interval else { continue }
            feeders.append(
                session.spawn {
                    while await session.sleep(for: interval) { sink.yield(.tick(valueHandle: handle)) }
                })
        }
        var state = ServerState(slots: slots)
        var reason = "the server closed"
        var lost: ControllerLost?
        loop: for await input in inputs {
            switch input {
            case .read(let request): await state.answer(read: request, manager: manager)
            case .write(let requests): await state.answer(write: requests, manager: manager)
            case .event(let event): state.report(event)
            case .tick(let handle): await state.tick(handle, manager: manager)
            case .stop(let why):
                reason = why
                break loop
            case .lost(let loss):
                lost = loss
                break loop
            }
        }
        for feeder in feeders { feeder.cancel() }
        if let lost { throw lost }
        return reason
    }
}
