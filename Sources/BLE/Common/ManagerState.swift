/// The state of a manager's radio, in Core Bluetooth's terms (`CBManagerState`).
///
/// A manager starts `.poweredOff`; `powerOn()` starts its host (HCI Reset and the
/// initialisation sequence, Core 5.4 Vol 4 Part E §3, while `.resetting`) and reaches
/// `.poweredOn`, or `.unsupported` when the controller cannot be brought up.
public enum ManagerState: Sendable, Hashable, CustomStringConvertible {
    case unknown
    case resetting
    case unsupported
    case unauthorized
    case poweredOff
    case poweredOn

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .resetting: "resetting"
        case .unsupported: "unsupported"
        case .unauthorized: "unauthorized"
        case .poweredOff: "powered off"
        case .poweredOn: "powered on"
        }
    }
}

/// The connection state of a peripheral (Core Bluetooth's `CBPeripheralState`).
public enum PeripheralState: Sendable, Hashable {
    case disconnected
    case connecting
    case connected
    case disconnecting
}

/// Streams handed out to several listeners: each gets every element from the moment it asked,
/// in order. A stream whose listener went away is dropped at the next element.
struct Subscribers<Element: Sendable> {
    private var continuations: [EventStream<Element>.Continuation] = []

    /// No stream was made, or every one ended and was noticed.
    var isEmpty: Bool { continuations.isEmpty }

    /// A new stream, starting with `initial` when given.
    mutating func make(initial: Element? = nil) -> EventStream<Element> {
        let (stream, continuation) = EventStream.makeStream(of: Element.self)
        if let initial { continuation.yield(initial) }
        continuations.append(continuation)
        return stream
    }

    mutating func yield(_ element: Element) {
        if offer(element) { dropEnded() }
    }

    /// Hands `element` to every stream without changing the list (no copy of it when the
    /// subscribers sit in a dictionary); true when a listener has gone — `dropEnded()` then.
    func offer(_ element: Element) -> Bool {
        var ended = false
        for continuation in continuations where continuation.yield(element) == .terminated { ended = true }
        return ended
    }

    /// Drops the streams whose listener went away.
    mutating func dropEnded() {
        continuations.removeAll { $0.isTerminated }
    }

    /// Ends every stream.
    mutating func finish() {
        for continuation in continuations { continuation.finish() }
        continuations = []
    }
}
