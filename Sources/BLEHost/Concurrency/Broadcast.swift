import BLELocking

/// A stream of events with any number of listeners (Core Bluetooth's delegates are one object;
/// an app here may have several tasks listening): each call to `stream()` is a new listener
/// with its own `EventStream`, which gets every element yielded from that moment on, in order.
/// A late listener gets no history; a listener that goes away (its task cancelled, its stream
/// dropped) is forgotten at the next element and never ends the others; `finish()` ends them
/// all, and a listener that comes after gets an ended stream.
///
/// Thread-safe and usable from outside the producer's isolation, so a manager can offer it as a
/// `nonisolated` property: `public nonisolated var events: EventStream<E> { broadcast.stream() }`.
/// Yielding allocates nothing beyond what each listener's `EventStream` buffers.
package final class Broadcast<Element: Sendable>: Sendable {
    private struct State: ~Copyable {
        var listeners: [EventStream<Element>.Continuation] = []
        var finished = false
    }

    private let state = Locked(State())

    package init() {}

    /// A new listener: the elements yielded from now on.
    package func stream() -> EventStream<Element> {
        let (stream, continuation) = EventStream.makeStream(of: Element.self)
        let added = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.listeners.append(continuation)
            return true
        }
        if !added { continuation.finish() }
        return stream
    }

    /// Hands `element` to every listener; listeners that went away are dropped.
    package func yield(_ element: Element) {
        state.withLock { state in
            var ended = false
            for listener in state.listeners where listener.yield(element) == .terminated { ended = true }
            if ended { state.listeners.removeAll { $0.isTerminated } }
        }
    }

    /// The listeners that have not gone away (as of the last element).
    package var listenerCount: Int {
        state.withLock { $0.listeners.count }
    }

    /// Ends every listener's stream (each reads what it has buffered first); later listeners
    /// get an ended stream.
    package func finish() {
        let listeners = state.withLock { state -> [EventStream<Element>.Continuation] in
            state.finished = true
            defer { state.listeners = [] }
            return state.listeners
        }
        for listener in listeners { listener.finish() }
    }
}
