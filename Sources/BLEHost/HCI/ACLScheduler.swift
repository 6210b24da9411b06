import BLEWire
import DequeModule

/// LE ACL flow control of one host (Core 5.4 Vol 4 Part E §4.1.1): the controller has
/// `bufferCount` buffers of `bufferSize` octets; each ACL packet sent takes one, and Number Of
/// Completed Packets gives them back. Links are served round-robin, one whole L2CAP PDU per turn,
/// so a busy link cannot starve the others and fragments of two PDUs never interleave on a link.
struct ACLScheduler {
    /// What goes first on a link when buffers are scarce (ATT's rule: responses and
    /// confirmations first, then commands, then a request, then an indication — the bearer
    /// already holds back a second request or indication).
    enum Priority: Int, CaseIterable, Comparable {
        case response = 0
        case signaling = 1
        case command = 2
        case request = 3
        case indication = 4
        /// K-frames of credit based channels (Core 5.4 Vol 3 Part A §3.4.3): after ATT.
        case channelData = 5

        static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private struct Link {
        var queues: [Deque<[UInt8]>] = Array(repeating: [], count: Priority.allCases.count)
        /// Fragments of the PDU being sent, when it did not fit the credits of its turn.
        var current: Deque<ACLPacket> = []
        var inFlight = 0
        var isEmpty: Bool { current.isEmpty && queues.allSatisfy { $0.isEmpty } }
        var queuedCommands: Int { queues[Priority.command.rawValue].count }
    }

    private(set) var bufferSize: Int
    private(set) var bufferCount: Int
    private(set) var credits: Int
    private var links: [ConnectionHandle: Link] = [:]
    private var turn: Deque<ConnectionHandle> = []
    /// Command-class PDUs a link may queue before it reports "not ready" (Core Bluetooth's
    /// canSendWriteWithoutResponse / updateValue returning false).
    let commandQueueLimit: Int

    init(bufferSize: Int = 27, bufferCount: Int = 1, commandQueueLimit: Int = 8) {
        self.bufferSize = max(1, bufferSize)
        self.bufferCount = max(1, bufferCount)
        self.credits = max(1, bufferCount)
        self.commandQueueLimit = commandQueueLimit
    }

    /// The controller's buffers (LE Read Buffer Size); resets credits.
    mutating func configure(bufferSize: Int, bufferCount: Int) {
        self.bufferSize = max(1, bufferSize)
        self.bufferCount = max(1, bufferCount)
        credits = self.bufferCount - links.values.reduce(0) { $0 + $1.inFlight }
    }

    mutating func addLink(_ handle: ConnectionHandle) {
        guard links[handle] == nil else { return }
        links[handle] = Link()
    }

    /// The link is gone: its queued PDUs are dropped and its packets in flight give their
    /// buffers back (Vol 4 Part E §4.3: the controller flushes them on disconnection).
    mutating func removeLink(_ handle: ConnectionHandle) {
        guard let link = links.removeValue(forKey: handle) else { return }
        credits = min(bufferCount, credits + link.inFlight)
        turn.removeAll { $0 == handle }
    }

    func hasLink(_ handle: ConnectionHandle) -> Bool { links[handle] != nil }

    /// True when everything queued on the link went out and the controller reported it sent
    /// (Number Of Completed Packets), or the link is gone.
    func isDelivered(_ handle: ConnectionHandle) -> Bool {
        guard let link = links[handle] else { return true }
        return link.isEmpty && link.inFlight == 0
    }

    /// True when the link can take another command-class PDU without exceeding its queue limit.
    func isReady(_ handle: ConnectionHandle) -> Bool {
        guard let link = links[handle] else { return false }
        return link.queuedCommands < commandQueueLimit
    }

    mutating func enqueue(_ pdu: [UInt8], on handle: ConnectionHandle, priority: Priority) {
        guard links[handle] != nil else { return }
        let wasEmpty = links[handle]!.isEmpty
        links[handle]!.queues[priority.rawValue].append(pdu)
        if wasEmpty { turn.append(handle) }
    }

    /// Number Of Completed Packets for one handle.
    mutating func completed(_ count: Int, on handle: ConnectionHandle) {
        guard links[handle] != nil else { return }
        let returned = min(count, links[handle]!.inFlight)
        links[handle]!.inFlight -= returned
        credits = min(bufferCount, credits + returned)
    }

    /// ACL packets to send now, as many as the credits allow, round-robin by whole PDU.
    mutating func nextPackets() -> [ACLPacket] {
        var packets: [ACLPacket] = []
        nextPackets(into: &packets)
        return packets
    }

    /// The same, appended to `packets` (a caller's reused buffer).
    mutating func nextPackets(into packets: inout [ACLPacket]) {
        while credits > 0, let handle = turn.first {
            // The link is changed in place in the dictionary: a copy would copy its queues.
            guard let index = links.index(forKey: handle) else {
                turn.removeFirst()
                continue
            }
            let (unfinished, hasMore) = Self.takeTurn(
                &links.values[index], handle: handle, bufferSize: bufferSize, credits: &credits, into: &packets)
            turn.removeFirst()
            // A PDU cut short by the credits keeps its place at the head: it finishes first.
            if unfinished {
                turn.prepend(handle)
            } else if hasMore {
                turn.append(handle)
            }
        }
    }

    /// One link's turn: the fragments of its current PDU (or of the next, by priority) that
    /// the credits allow. Returns whether that PDU is unfinished, and whether more is queued.
    private static func takeTurn(
        _ link: inout Link, handle: ConnectionHandle, bufferSize: Int, credits: inout Int, into packets: inout [ACLPacket]
    ) -> (unfinished: Bool, hasMore: Bool) {
        if link.current.isEmpty, let pdu = popHighest(&link) {
            if pdu.count <= bufferSize {
                // One buffer holds it (the usual case): no fragments to keep.
                packets.append(ACLPacket(handle: handle, packetBoundary: .firstNonFlushable, data: pdu[...]))
                link.inFlight += 1
                credits -= 1
                return (false, !link.isEmpty)
            }
            let fragmenter = L2CAPFragmenter(maximumDataLength: bufferSize, firstBoundary: .firstNonFlushable)
            link.current = Deque(fragmenter.fragments(of: pdu[...], handle: handle))
        }
        while credits > 0, let fragment = link.current.popFirst() {
            packets.append(fragment)
            link.inFlight += 1
            credits -= 1
        }
        return (!link.current.isEmpty, !link.isEmpty)
    }

    private static func popHighest(_ link: inout Link) -> [UInt8]? {
        for index in link.queues.indices where !link.queues[index].isEmpty {
            return link.queues[index].removeFirst()
        }
        return nil
    }
}
