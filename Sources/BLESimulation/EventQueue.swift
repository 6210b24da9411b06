/// The discrete-event core of the virtual radio: actions scheduled at virtual instants, run in
/// time order (ties in scheduling order), one at a time.
///
/// Everything on the virtual air — advertising events, connection events, supervision timers —
/// is an action in this queue. It is deliberately synchronous and single-owner: the simulation
/// that owns it runs it from one isolation domain, so runs are deterministic and cheap (no task
/// per event). `now` only moves forward, to the time of the action being run.
public final class EventQueue {
    /// Identifies a scheduled action, for cancelling it.
    public struct Token: Hashable, Sendable {
        fileprivate let slot: Int32
        fileprivate let sequence: UInt64
    }

    /// The current virtual time: the time of the action running now, or of the last one run.
    public private(set) var now: VirtualInstant = .zero
    // One stored property for all the bookkeeping: each call below is one exclusive access to
    // it, not one per array and counter (class properties are checked at run time).
    private var pending = PendingActions()

    public init() {}

    /// Number of pending (not cancelled) actions.
    public var pendingCount: Int { pending.liveCount }

    /// The time of the earliest pending action, or nil when nothing is scheduled.
    public var nextTime: VirtualInstant? { pending.firstLiveTime() }

    /// Schedules `action` at `time` (not before now: a past time runs at `now`).
    @discardableResult
    public func schedule(at time: VirtualInstant, _ action: @escaping () -> Void) -> Token {
        let (slot, sequence) = pending.insert(at: max(time, now), action)
        return Token(slot: slot, sequence: sequence)
    }

    /// Schedules `action` after `delay` from now.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping () -> Void) -> Token {
        schedule(at: now.advanced(by: delay), action)
    }

    /// Cancels a pending action; cancelling one that already ran or was cancelled does nothing.
    public func cancel(_ token: Token) {
        pending.cancel(slot: token.slot, sequence: token.sequence)
    }

    /// Runs the earliest pending action, advancing `now` to its time. Returns false when
    /// nothing is pending.
    @discardableResult
    public func runNext() -> Bool {
        guard let (time, action) = pending.removeFirstLive() else { return false }
        now = time
        action()
        return true
    }

    /// Runs every action scheduled up to and including `deadline`, then sets `now` to the
    /// deadline (time passes even when nothing happens).
    public func run(until deadline: VirtualInstant) {
        while let next = nextTime, next <= deadline {
            runNext()
        }
        if deadline > now { now = deadline }
    }

    /// Runs actions until none is pending or `limit` actions have run; returns how many ran.
    @discardableResult
    public func runUntilIdle(limit: Int = .max) -> Int {
        var count = 0
        while count < limit, runNext() { count += 1 }
        return count
    }
}

/// The scheduled actions: a binary heap ordered by (time, sequence), and which of its entries
/// are still live.
///
/// Cancellation without hashing: each entry holds a slot, and `occupants[slot]` is the sequence
/// of the live action in it, or `vacant` once that action was cancelled. A slot is reused only
/// after its entry left the heap, so a token of an action that ran or was cancelled never
/// matches its slot's occupant again (sequences are never reused). Cancelled entries stay in the
/// heap until they surface.
private struct PendingActions {
    private struct Entry {
        let time: VirtualInstant
        let sequence: UInt64
        /// Where the entry's liveness is kept (`occupants`).
        let slot: Int32
        let action: () -> Void
    }

    private static let vacant = UInt64.max
    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0
    private var occupants: [UInt64] = []
    private var freeSlots: [Int32] = []
    /// Entries neither run nor cancelled.
    private(set) var liveCount = 0

    mutating func insert(at time: VirtualInstant, _ action: @escaping () -> Void) -> (slot: Int32, sequence: UInt64) {
        let sequence = nextSequence
        nextSequence &+= 1
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            occupants[Int(free)] = sequence
        } else {
            slot = Int32(occupants.count)
            occupants.append(sequence)
        }
        push(Entry(time: time, sequence: sequence, slot: slot, action: action))
        liveCount += 1
        return (slot, sequence)
    }

    mutating func cancel(slot: Int32, sequence: UInt64) {
        let slot = Int(slot)
        guard slot < occupants.count, occupants[slot] == sequence else { return }
        occupants[slot] = Self.vacant
        liveCount -= 1
    }

    /// Removes the earliest live entry (and the cancelled ones before it).
    mutating func removeFirstLive() -> (time: VirtualInstant, action: () -> Void)? {
        while let entry = popMin() {
            let live = occupants[Int(entry.slot)] == entry.sequence
            release(entry.slot)
            guard live else { continue }
            liveCount -= 1
            return (entry.time, entry.action)
        }
        return nil
    }

    /// The time of the earliest live entry; drops the cancelled ones before it.
    mutating func firstLiveTime() -> VirtualInstant? {
        // Fields read in place: copying the entry out would retain and release its action.
        while !heap.isEmpty, occupants[Int(heap[0].slot)] != heap[0].sequence {
            release(heap[0].slot)
            _ = popMin()
        }
        return heap.isEmpty ? nil : heap[0].time
    }

    /// Frees the slot of an entry that left the heap.
    private mutating func release(_ slot: Int32) {
        occupants[Int(slot)] = Self.vacant
        freeSlots.append(slot)
    }

    // The sift loops work on the buffer and compare keys in place: copying an `Entry` out of
    // the array to compare it would retain and release its action for every step.

    private mutating func push(_ entry: Entry) {
        heap.append(entry)
        heap.withUnsafeMutableBufferPointer { heap in
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard Self.precedes(heap, child, parent) else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }
    }

    private mutating func popMin() -> Entry? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let min = heap.removeLast()
        heap.withUnsafeMutableBufferPointer { heap in
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count, Self.precedes(heap, left, smallest) { smallest = left }
                if right < heap.count, Self.precedes(heap, right, smallest) { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return min
    }

    /// Whether the entry at `lhs` runs before the one at `rhs`: earlier, or as early and
    /// scheduled first.
    private static func precedes(_ heap: UnsafeMutableBufferPointer<Entry>, _ lhs: Int, _ rhs: Int) -> Bool {
        let (lhsTime, rhsTime) = (heap[lhs].time, heap[rhs].time)
        return lhsTime != rhsTime ? lhsTime < rhsTime : heap[lhs].sequence < heap[rhs].sequence
    }
}
