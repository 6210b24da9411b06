import BLEWire
import DequeModule

/// The HCI command flow of one host (Core 5.4 Vol 4 Part E §4.4): commands wait for a
/// Num_HCI_Command_Packets credit, at most that many are outstanding, and each is completed by
/// the Command Complete or Command Status that names its opcode — or by the host's timeout.
///
/// A value owned by the host actor: it decides what to send and whom to resume, the actor does
/// the I/O.
struct CommandFlow {
    typealias Completion = CheckedContinuation<CommandOutcome, Never>

    struct Pending {
        let id: UInt64
        let packet: HCICommandPacket
        let completion: Completion
    }

    /// How a command ended.
    enum CommandOutcome: Sendable {
        case complete(HCIEvent.CommandComplete)
        case status(HCIStatus)
        case timedOut
        case stopped
    }

    /// Commands the controller may accept now (the last Num_HCI_Command_Packets).
    private(set) var credits = 1
    private var waiting: Deque<Pending> = []
    private var outstanding: [Pending] = []
    private var nextID: UInt64 = 0

    mutating func makeID() -> UInt64 {
        defer { nextID &+= 1 }
        return nextID
    }

    mutating func enqueue(_ pending: Pending) { waiting.append(pending) }

    /// Commands to send now, consuming credits.
    mutating func takeSendable() -> [Pending] {
        var sendable: [Pending] = []
        while credits > 0, let next = waiting.popFirst() {
            credits -= 1
            outstanding.append(next)
            sendable.append(next)
        }
        return sendable
    }

    /// A Command Complete or Command Status arrived: the controller's new credit count, and the
    /// oldest outstanding command with that opcode is done. Opcode 0x0000 only updates credits.
    mutating func complete(opcode: HCIOpcode, credits newCredits: UInt8) -> Pending? {
        credits = Int(newCredits)
        guard let index = outstanding.firstIndex(where: { $0.packet.opcode == opcode }) else { return nil }
        return outstanding.remove(at: index)
    }

    /// The command timed out: forget it and assume the controller can take one more (a
    /// controller that never answers must not hang the host).
    mutating func timeOut(id: UInt64) -> Pending? {
        guard let index = outstanding.firstIndex(where: { $0.id == id }) else { return nil }
        credits = max(credits, 1)
        return outstanding.remove(at: index)
    }

    /// Everything pending, for failing on stop.
    mutating func drainAll() -> [Pending] {
        defer {
            waiting.removeAll()
            outstanding.removeAll()
        }
        return Array(waiting) + outstanding
    }
}
