/// One LL data payload waiting to be sent: a piece of exactly one L2CAP PDU.
///
/// LLID (Core 5.4 Vol 6 Part B §2.4): 0b10 starts an L2CAP PDU (or carries a complete one),
/// 0b01 continues it. One LL packet never carries parts of two L2CAP PDUs (Core 5.4 Vol 3
/// Part A §7.2), so a fragment is always cut from one PDU.
public struct LLFragment: Sendable, Hashable {
    /// Where the fragment sits in its L2CAP PDU (the LLID of LL data PDUs).
    public enum Boundary: Sendable, Hashable {
        /// LLID 0b10: the start of an L2CAP PDU, or a complete one.
        case start
        /// LLID 0b01: a continuation of the PDU the previous fragment belongs to.
        case continuation
    }

    /// LL payload length in octets (1…251; 0 is the empty PDU, never queued).
    public var length: Int
    public var boundary: Boundary
    /// The owner's identifier (e.g. which HCI buffer to free on acknowledgement).
    public var tag: Int

    public init(length: Int, boundary: Boundary, tag: Int = 0) {
        self.length = length
        self.boundary = boundary
        self.tag = tag
    }

    /// The LL payload lengths of an L2CAP PDU of `l2capLength` octets cut into pieces of at most
    /// `maxPayload` (Lmax_tx): full pieces first, the remainder last. None when `maxPayload` is
    /// below one octet (a direction whose maximum time leaves no room for payload carries nothing).
    public static func lengths(l2capLength: Int, maxPayload: Int) -> [Int] {
        guard maxPayload > 0 else { return [] }
        var lengths: [Int] = []
        var remaining = l2capLength
        while remaining > 0 {
            lengths.append(min(remaining, maxPayload))
            remaining -= maxPayload
        }
        return lengths
    }

    /// The fragments of one L2CAP PDU, all tagged `tag`: the first `.start`, the rest
    /// `.continuation`.
    public static func fragments(l2capLength: Int, maxPayload: Int, tag: Int = 0) -> [LLFragment] {
        lengths(l2capLength: l2capLength, maxPayload: maxPayload).enumerated().map { index, length in
            LLFragment(length: length, boundary: index == 0 ? .start : .continuation, tag: tag)
        }
    }
}

/// A side's LL transmit queue as the connection-event planner sees it; the controller owns it.
///
/// The head stays queued while it is in flight and is removed only when the peer acknowledges it
/// (Core 5.4 Vol 6 Part B §4.5.9), so a retransmission is simply the head again.
public protocol LLTransmitQueue {
    /// The fragment `offset` places behind the head (0 = the head); the planner asks only for
    /// offsets 0 and 1 (the head, and whether more follows it for the MD bit).
    func peek(_ offset: Int) -> LLFragment?
    /// Removes the head: the peer acknowledged it.
    mutating func removeFirst()
}

/// A FIFO of LL fragments, a ring buffer that keeps its storage (no allocation per packet once
/// it has grown to the working size).
public struct FragmentQueue: LLTransmitQueue, Sendable {
    private var storage: [LLFragment?]
    private var headIndex = 0
    public private(set) var count = 0

    public init(minimumCapacity: Int = 16) {
        storage = Array(repeating: nil, count: max(1, minimumCapacity))
    }

    public var isEmpty: Bool { count == 0 }

    public func peek(_ offset: Int) -> LLFragment? {
        guard offset >= 0, offset < count else { return nil }
        return storage[(headIndex + offset) % storage.count]
    }

    public mutating func removeFirst() {
        guard count > 0 else { return }
        storage[headIndex] = nil
        headIndex = (headIndex + 1) % storage.count
        count -= 1
    }

    public mutating func append(_ fragment: LLFragment) {
        if count == storage.count { grow() }
        storage[(headIndex + count) % storage.count] = fragment
        count += 1
    }

    /// Queues the fragments of one L2CAP PDU (see `LLFragment.fragments`).
    public mutating func append(l2capLength: Int, maxPayload: Int, tag: Int = 0) {
        for fragment in LLFragment.fragments(l2capLength: l2capLength, maxPayload: maxPayload, tag: tag) {
            append(fragment)
        }
    }

    private mutating func grow() {
        var larger: [LLFragment?] = Array(repeating: nil, count: storage.count * 2)
        for offset in 0..<count { larger[offset] = storage[(headIndex + offset) % storage.count] }
        storage = larger
        headIndex = 0
    }
}
