import BLELocking
import DequeModule

/// An unbounded, single-consumer asynchronous sequence fed by a `Continuation`: the stack's
/// streams of events and values (`Host.events`, `Peripheral.values(for:)`, a peripheral
/// manager's requests).
///
/// It behaves as `AsyncStream` with the default buffering policy — elements are buffered in
/// order until read, `finish()` lets the buffer drain before the end, cancelling the consumer's
/// task ends the stream, and once the consumer is gone `yield` reports `.terminated` and keeps
/// nothing — but its consumer waits in its own isolation (`next(isolation:)`): an element for a
/// waiting consumer costs one resumption of its task. `AsyncStream`'s iterator goes through the
/// generic executor, and from an actor that is six executor switches per element.
public struct EventStream<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = Never

    @usableFromInline let storage: Storage
    /// Ends the stream when the last copy of the stream and of its iterators is gone.
    @usableFromInline let lifetime: ConsumerLifetime

    @usableFromInline init(storage: Storage) {
        self.storage = storage
        self.lifetime = ConsumerLifetime(storage: storage)
    }

    /// A stream and the continuation that feeds it.
    public static func makeStream(of elementType: Element.Type = Element.self) -> (
        stream: EventStream, continuation: Continuation
    ) {
        let storage = Storage()
        return (EventStream(storage: storage), Continuation(storage: storage))
    }

    @inlinable
    public func makeAsyncIterator() -> Iterator { Iterator(storage: storage, lifetime: lifetime) }

    /// The producer's side.
    public struct Continuation: Sendable {
        @usableFromInline let storage: Storage

        @usableFromInline init(storage: Storage) { self.storage = storage }

        /// What became of an element.
        public enum YieldResult: Sendable, Equatable {
            /// Buffered, or handed to the waiting consumer.
            case enqueued
            /// The stream had ended (finished, or its consumer gone): the element was dropped.
            case terminated
        }

        /// Why the stream ended, for `onTermination`.
        public enum Termination: Sendable, Equatable {
            /// `finish()` was called.
            case finished
            /// The consumer's task was cancelled, or the stream and its iterators went away.
            case cancelled
        }

        /// Hands `element` to the consumer, or buffers it.
        @inlinable
        @discardableResult
        public func yield(_ element: Element) -> YieldResult {
            storage.yield(element)
        }

        /// Whether the stream has ended (finished, or its consumer gone): yields are dropped.
        public var isTerminated: Bool {
            storage.state.withLock { $0.ending != nil }
        }

        /// Ends the stream: the consumer reads what is buffered, then the end.
        public func finish() {
            storage.end(.finished)
        }

        /// Called once, when the stream ends for either reason (at once when it already has).
        public func onTermination(_ handler: @escaping @Sendable (Termination) -> Void) {
            storage.setTerminationHandler(handler)
        }
    }

    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline let storage: Storage
        @usableFromInline let lifetime: ConsumerLifetime

        @usableFromInline init(storage: Storage, lifetime: ConsumerLifetime) {
            self.storage = storage
            self.lifetime = lifetime
        }

        /// The next element, waiting in the caller's isolation when none is buffered; nil once
        /// the stream ended and its buffer is drained.
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            switch storage.take() {
            case .element(let element): return element
            case .end: return nil
            case .empty: break
            }
            let storage = self.storage
            return await withTaskCancellationHandler {
                await withUnsafeContinuation(isolation: actor) { (consumer: UnsafeContinuation<Element?, Never>) in
                    storage.wait(consumer)
                }
            } onCancel: {
                storage.end(.cancelled)
            }
        }

        /// Runs in the caller's isolation too (`nonisolated(nonsending)`), so that an iterator
        /// driven by hand, `await iterator.next()`, waits there as a `for await` loop does.
        @inlinable
        public nonisolated(nonsending) mutating func next() async -> Element? {
            await next(isolation: #isolation)
        }
    }

    /// The buffer, the waiting consumer and how the stream ended, under one lock.
    @usableFromInline
    final class Storage: Sendable {
        @usableFromInline
        struct State: ~Copyable {
            @usableFromInline var buffer = Deque<Element>()
            @usableFromInline var consumer: UnsafeContinuation<Element?, Never>?
            @usableFromInline var ending: Continuation.Termination?
            var terminationHandler: (@Sendable (Continuation.Termination) -> Void)?
            var terminationReported = false

            @usableFromInline init() {}
        }

        @usableFromInline
        enum Taken {
            case element(Element)
            case end
            case empty
        }

        @usableFromInline let state = Locked(State())

        @usableFromInline init() {}

        @inlinable
        func yield(_ element: Element) -> Continuation.YieldResult {
            let outcome = state.withLock { state -> (UnsafeContinuation<Element?, Never>?, Continuation.YieldResult) in
                guard state.ending == nil else { return (nil, .terminated) }
                if let consumer = state.consumer {
                    state.consumer = nil
                    return (consumer, .enqueued)
                }
                state.buffer.append(element)
                return (nil, .enqueued)
            }
            outcome.0?.resume(returning: element)
            return outcome.1
        }

        @inlinable
        func take() -> Taken {
            state.withLock { state in
                if let element = state.buffer.popFirst() { return .element(element) }
                return state.ending == nil ? .empty : .end
            }
        }

        /// Parks the consumer, or resumes it at once when an element or the end came between
        /// its `take()` and now.
        @inlinable
        func wait(_ consumer: UnsafeContinuation<Element?, Never>) {
            let early = state.withLock { state -> Taken in
                if let element = state.buffer.popFirst() { return .element(element) }
                if state.ending != nil { return .end }
                state.consumer = consumer
                return .empty
            }
            switch early {
            case .element(let element): consumer.resume(returning: element)
            case .end: consumer.resume(returning: nil)
            case .empty: break
            }
        }

        /// Ends the stream. Finishing keeps the buffer for the consumer; cancelling drops it.
        @usableFromInline
        func end(_ termination: Continuation.Termination) {
            let (consumer, handler) = state.withLock {
                state -> (UnsafeContinuation<Element?, Never>?, (@Sendable (Continuation.Termination) -> Void)?) in
                if state.ending == nil { state.ending = termination }
                if termination == .cancelled { state.buffer.removeAll() }
                let consumer = state.consumer
                state.consumer = nil
                return (consumer, state.reportTermination())
            }
            consumer?.resume(returning: nil)
            handler?(termination)
        }

        func setTerminationHandler(_ handler: @escaping @Sendable (Continuation.Termination) -> Void) {
            let ended = state.withLock { state -> Continuation.Termination? in
                state.terminationHandler = handler
                guard let ending = state.ending else { return nil }
                return state.reportTermination() == nil ? nil : ending
            }
            if let ended { handler(ended) }
        }
    }

    /// Owned by the stream and its iterators only: its end is the consumer's.
    @usableFromInline
    final class ConsumerLifetime: Sendable {
        let storage: Storage

        init(storage: Storage) { self.storage = storage }

        deinit { storage.end(.cancelled) }
    }
}

extension EventStream.Storage.State {
    /// The termination handler, the first time the stream has ended; nil after.
    fileprivate mutating func reportTermination() -> (@Sendable (EventStream.Continuation.Termination) -> Void)? {
        guard ending != nil, !terminationReported, let handler = terminationHandler else { return nil }
        terminationReported = true
        terminationHandler = nil
        return handler
    }
}
