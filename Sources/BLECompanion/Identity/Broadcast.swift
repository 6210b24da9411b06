import BLELocking

/// Streams handed to several listeners, each of which gets every element from the moment it
/// asked. Thread-safe; a stream whose listener went away is dropped at the next element.
final class Broadcast<Element: Sendable>: Sendable {
    private let continuations = Locked<[AsyncStream<Element>.Continuation]>([])

    func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        continuations.withLock { $0.append(continuation) }
        return stream
    }

    func yield(_ element: Element) {
        continuations.withLock { list in
            list.removeAll { continuation in
                if case .terminated = continuation.yield(element) { return true }
                return false
            }
        }
    }

    func finish() {
        let ended = continuations.withLock { list in
            defer { list = [] }
            return list
        }
        for continuation in ended { continuation.finish() }
    }
}
