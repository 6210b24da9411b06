/// How the phone merges Bluetooth events queued for a suspended foreground-only app.
///
/// Apple documents that such events are queued and delivered when the app comes to the
/// foreground (Core Bluetooth Programming Guide, "Core Bluetooth Background Processing for iOS
/// Apps") but not whether or how they are coalesced (phone-rules.md: FIFO is an inference,
/// coalescing undocumented), so this is a knob with "keep everything" as its default.
public enum EventCoalescing: Sendable, Hashable, CustomStringConvertible {
    /// Every event is kept, in order.
    case none
    /// Of the events with the same coalescing key (a characteristic's value updates) only the
    /// latest is kept, at the place of the latest.
    case latestPerKey
    /// Only the last `n` events are kept.
    case bounded(Int)

    public var description: String {
        switch self {
        case .none: "none"
        case .latestPerKey: "latest per key"
        case .bounded(let n): "bounded(\(n))"
        }
    }
}

/// The events queued for one app while it is suspended, in arrival order, with the coalescing
/// policy applied as each arrives (a value type; the phone traces what it returns).
///
/// Each operation is O(1) amortised: coalescing leaves a hole that draining skips, so a day of
/// events does not cost a scan per event.
package struct AppInbox {
    private var entries: [AppBluetoothDelivery?] = []
    private var head = 0
    /// The index in `entries` of the queued event with each key (`.latestPerKey`).
    private var latestByKey: [String: Int] = [:]
    package private(set) var count = 0

    package init() {}

    /// Queues `delivery`; returns the earlier events the policy merged away.
    package mutating func enqueue(_ delivery: AppBluetoothDelivery, policy: EventCoalescing) -> [AppBluetoothDelivery] {
        var coalesced: [AppBluetoothDelivery] = []
        switch policy {
        case .none: break
        case .latestPerKey:
            if let key = delivery.coalescingKey, let index = latestByKey[key], let earlier = entries[index] {
                entries[index] = nil
                count -= 1
                coalesced.append(earlier)
            }
        case .bounded(let limit):
            while count >= max(limit, 0), let oldest = popFirst() {
                coalesced.append(oldest)
            }
        }
        if let key = delivery.coalescingKey { latestByKey[key] = entries.count }
        entries.append(delivery)
        count += 1
        return coalesced
    }

    /// Everything queued, oldest first; the inbox is empty afterwards.
    package mutating func drain() -> [AppBluetoothDelivery] {
        var result: [AppBluetoothDelivery] = []
        result.reserveCapacity(count)
        while let next = popFirst() { result.append(next) }
        return result
    }

    private mutating func popFirst() -> AppBluetoothDelivery? {
        while head < entries.count {
            let entry = entries[head]
            entries[head] = nil
            head += 1
            if let entry {
                count -= 1
                if let key = entry.coalescingKey, latestByKey[key] == head - 1 { latestByKey[key] = nil }
                compactIfEmpty()
                return entry
            }
        }
        compactIfEmpty()
        return nil
    }

    /// Drops the consumed front of `entries` once it is most of the array (amortised O(1)).
    private mutating func compactIfEmpty() {
        if count == 0 {
            entries.removeAll(keepingCapacity: true)
            head = 0
            latestByKey.removeAll(keepingCapacity: true)
        } else if head >= 64, head * 2 >= entries.count {
            entries.removeFirst(head)
            for (key, index) in latestByKey { latestByKey[key] = index - head }
            head = 0
        }
    }
}
