import BLESimulation
import BLEWire

/// Acts on one connection event's outcome at the instants it states (Core 5.4 Vol 6 Part B
/// §4.5.1, §4.5.9): each new packet reaches its receiver when it ends, each acknowledgement
/// reaches the sender when the acknowledging packet ends, and Number Of Completed Packets goes
/// out on both sides when the event is over (Vol 4 Part E §7.7.19).
///
/// Every such step is one event of the air's queue at its instant, scheduled in the order
/// receptions, acknowledgements, completed packets — so it runs in the same place among the
/// queue's other events as a closure per packet would. Yet no closure is made per packet: each
/// queue event calls `runNextStep()`, which takes the step due next. The queue runs its events
/// in (time, scheduling order), and receptions and acknowledgements are each in time order, so
/// that step is the earliest remaining one, a reception before an acknowledgement of the same
/// instant, completed packets last.
///
/// A link reuses its delivery from one event to the next (the exchange fills `outcome` in
/// place, keeping its buffers), so a busy link allocates nothing per event.
final class ConnectionEventDelivery {
    /// The outcome being delivered, filled by the connection event exchange.
    var outcome = ConnectionEventOutcome(end: .zero)

    // The two ends are held strongly while steps are pending: the steps run by the event's end,
    // and each checks that its connection is still its controller's (`connections[handle] === c`)
    // before acting. They are let go when the last step has run, so the delivery does not keep
    // the link's connections alive past the event.
    private var central: Connection?
    private var peripheral: Connection?
    private var nextReception = 0
    private var nextAcknowledgement = 0
    private var pendingSteps = 0
    private var reportsCompletedPackets = false

    /// Whether steps of the last outcome are still to run (its `outcome` must not be refilled).
    var isDelivering: Bool { pendingSteps > 0 }

    /// Acts on `outcome` for `link`: signs of life at once, the rest as events of `queue` at
    /// their instants.
    func start(on link: ConnectionLink, queue: EventQueue) {
        central = link.central
        peripheral = link.peripheral
        nextReception = 0
        nextAcknowledgement = 0
        reportsCompletedPackets = false
        for reception in outcome.receptions {
            guard let receiver = connection(reception.from.peer) else { continue }
            // An empty PDU is only a sign of life (supervision, RSSI): record it now rather than
            // schedule a step per packet — an idle link then costs one queue event per event.
            if case .empty = reception.pdu {
                receiver.owner?.linkAlive(reception, on: receiver)
                continue
            }
            scheduleStep(at: reception.at, on: queue)
        }
        for acknowledgement in outcome.acknowledgements {
            if case .data(let data) = acknowledgement.pdu, data.completesHostPacket { reportsCompletedPackets = true }
            if isStep(acknowledgement) { scheduleStep(at: acknowledgement.at, on: queue) }
        }
        if reportsCompletedPackets { scheduleStep(at: outcome.end, on: queue) }
        if pendingSteps == 0 { finish() }
    }

    private func scheduleStep(at time: VirtualInstant, on queue: EventQueue) {
        pendingSteps += 1
        // The delivery is the closure's only capture, so the closure needs no context of its own.
        queue.schedule(at: time) { [self] in runNextStep() }
    }

    private func runNextStep() {
        // Counted down after the step: while it runs, the outcome it reads is still in use.
        defer {
            pendingSteps -= 1
            if pendingSteps == 0 { finish() }
        }
        let reception = firstStep(in: outcome.receptions, from: &nextReception, where: isStep)
        let acknowledgement = firstStep(in: outcome.acknowledgements, from: &nextAcknowledgement, where: isStep)
        if let reception, acknowledgement.map({ reception.at <= $0.at }) ?? true {
            nextReception += 1
            guard let receiver = connection(reception.from.peer) else { return }
            receiver.owner?.linkReceived(reception, on: receiver)
        } else if let acknowledgement {
            nextAcknowledgement += 1
            guard let sender = connection(acknowledgement.of) else { return }
            sender.owner?.linkAcknowledged(acknowledgement.pdu, on: sender)
        } else if reportsCompletedPackets {
            if let central { central.owner?.reportCompletedPackets(central) }
            if let peripheral { peripheral.owner?.reportCompletedPackets(peripheral) }
        }
    }

    /// The first element from `index` on that is a step, with `index` moved to it.
    private func firstStep<Element>(
        in elements: [Element], from index: inout Int, where isStep: (Element) -> Bool
    ) -> Element? {
        while index < elements.count {
            if isStep(elements[index]) { return elements[index] }
            index += 1
        }
        return nil
    }

    /// A reception acted on later: a non-empty PDU for an end that is still on the link.
    private func isStep(_ reception: ConnectionEventOutcome.Reception) -> Bool {
        if case .empty = reception.pdu { return false }
        return connection(reception.from.peer) != nil
    }

    /// An acknowledgement acted on later: of a non-empty PDU (acknowledging an empty one changes
    /// nothing the host can see) from an end that is still on the link.
    private func isStep(_ acknowledgement: ConnectionEventOutcome.Acknowledgement) -> Bool {
        if case .empty = acknowledgement.pdu { return false }
        return connection(acknowledgement.of) != nil
    }

    private func connection(_ role: ConnectionRole) -> Connection? { role == .central ? central : peripheral }

    private func finish() {
        central = nil
        peripheral = nil
    }
}
