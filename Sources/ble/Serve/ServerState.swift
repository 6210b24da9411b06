import BLE
import BLEWire
import Foundation

/// The values `ble serve` keeps and the subscriptions it has seen, changed only by its loop.
struct ServerState {
    var slots: [UInt16: GATTServerSession.Slot]
    /// Updates sent per characteristic so far (which value comes next).
    var updatesSent: [UInt16: Int] = [:]
    /// Subscribers per characteristic value handle.
    var subscribers: [UInt16: Set<UUID>] = [:]

    init(slots: [UInt16: GATTServerSession.Slot]) { self.slots = slots }

    /// A read of a characteristic value: the part from the request's offset (Read Blob, Core 5.4
    /// Vol 3 Part F §3.4.4.5; Invalid Offset past the end).
    mutating func answer(read request: ATTRequest, manager: PeripheralManager) async {
        let handle = request.characteristic.handle
        let name = request.characteristic.uuid.labelled
        guard let slot = slots[handle], request.descriptorUUID == nil else {
            Console.out("read of \(name) refused: not served here")
            await manager.respond(to: request, withResult: .error(.unlikelyError))
            return
        }
        Console.out(
            "read \(name) (handle \(Hex.prefixed(handle, width: 4)))"
                + (request.offset > 0 ? " at offset \(request.offset)" : "") + " by \(request.central.identifier)")
        await manager.respond(to: request, withValue: slot.value)
    }

    /// A Write Request, an Execute Write's queue (each part at its offset, Vol 3 Part F
    /// §3.4.6), or a Write Command. A characteristic that notifies or indicates sends its new
    /// value to its subscribers.
    mutating func answer(write requests: [ATTRequest], manager: PeripheralManager) async {
        guard let first = requests.first else { return }
        var updated = slots
        for request in requests {
            let handle = request.characteristic.handle
            guard var slot = updated[handle], request.descriptorUUID == nil else {
                await manager.respond(to: first, withResult: .error(.unlikelyError))
                return
            }
            let data = request.value ?? []
            guard request.offset <= slot.value.count else {
                await manager.respond(to: first, withResult: .error(.invalidOffset))
                return
            }
            let written = Array(slot.value.prefix(request.offset)) + data
            guard written.count <= GATTDocument.maximumValueLength else {
                await manager.respond(to: first, withResult: .error(.invalidAttributeValueLength))
                return
            }
            slot.value = written
            updated[handle] = slot
            Console.out(
                "write \(slot.characteristic.uuid.labelled) (handle \(Hex.prefixed(handle, width: 4)))"
                    + (request.offset > 0 ? " at offset \(request.offset)" : "")
                    + (request.isWriteWithoutResponse ? " without response" : "") + ": \(Hex.string(data))"
                    + " by \(request.central.identifier)")
        }
        slots = updated
        await manager.respond(to: first, withResult: .success)
        for handle in Set(requests.map(\.characteristic.handle)).sorted() {
            await send(handle, manager: manager)
        }
    }

    /// The next periodic value of a characteristic.
    mutating func tick(_ handle: UInt16, manager: PeripheralManager) async {
        guard let updates = slots[handle]?.updates, !updates.values.isEmpty else { return }
        let index = updatesSent[handle, default: 0]
        updatesSent[handle] = index &+ 1
        slots[handle]?.value = updates.values[index % updates.values.count]
        await send(handle, manager: manager)
    }

    /// Sends the current value to the characteristic's subscribers, if it has any.
    private func send(_ handle: UInt16, manager: PeripheralManager) async {
        guard let slot = slots[handle], !(subscribers[handle]?.isEmpty ?? true),
            !slot.characteristic.properties.isDisjoint(with: [.notify, .indicate])
        else { return }
        let kind = slot.characteristic.properties.contains(.notify) ? "notified" : "indicated"
        do {
            let sent = try await manager.updateValue(slot.value, for: slot.characteristic)
            Console.out(
                sent
                    ? "\(kind) \(slot.characteristic.uuid.labelled): \(Hex.string(slot.value))"
                    : "\(slot.characteristic.uuid.labelled): a subscriber's queue is full; value not sent")
        } catch {
            Console.out("\(slot.characteristic.uuid.labelled): not sent: \(error)")
        }
    }

    mutating func report(_ event: PeripheralManagerEvent) {
        switch event {
        case .connected(let central):
            Console.out("connected: \(central.identifier)")
        case .disconnected(let central, let reason):
            Console.out("disconnected: \(central.identifier) (\(reason))")
        case .subscribed(let central, let characteristic):
            subscribers[characteristic.handle, default: []].insert(central.identifier)
            Console.out("subscribed: \(central.identifier) to \(characteristic.uuid.labelled)")
        case .unsubscribed(let central, let characteristic):
            subscribers[characteristic.handle]?.remove(central.identifier)
            Console.out("unsubscribed: \(central.identifier) from \(characteristic.uuid.labelled)")
        case .pairingStarted(let central, let method):
            Console.out("pairing: \(central.identifier) (\(method))")
        case .paired(let central, let bond):
            Console.out("paired: \(central.identifier)\(bond == nil ? " (no bond)" : ", bonded")")
        case .pairingFailed(let central, let error):
            Console.out("pairing failed: \(central.identifier): \(error)")
        case .securityChanged(let central, let security):
            Console.out("security: \(central.identifier): \(PairingSummary.describe(security))")
        case .readyToUpdateSubscribers, .linkChanged, .indicationConfirmed:
            return
        }
    }
}
