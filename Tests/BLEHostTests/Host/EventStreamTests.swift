import BLEController
import BLELocking
import BLESimulation
import Testing

@testable import BLEHost

/// The stack's event and value streams: `AsyncStream`'s contract (order, buffering, the end,
/// cancellation) with the consumer waiting in its own isolation.
@Suite("Event streams")
struct EventStreamTests {
    /// An actor on a simulation's executor, to read a stream from an isolated context.
    actor Reader {
        let simulation: Simulation
        nonisolated var unownedExecutor: UnownedSerialExecutor { simulation.executor.asUnownedSerialExecutor() }
        init(simulation: Simulation) { self.simulation = simulation }

        func read(_ stream: EventStream<Int>, upTo count: Int) async -> [Int] {
            var read: [Int] = []
            for await element in stream {
                read.append(element)
                if read.count == count { break }
            }
            return read
        }
    }

    @Test("Elements yielded before and while the consumer waits arrive in order; finish drains the buffer first")
    func orderAndFinish() async {
        let (stream, continuation) = EventStream.makeStream(of: Int.self)
        for value in 0..<3 { #expect(continuation.yield(value) == .enqueued) }
        let reader = Task {
            var read: [Int] = []
            for await element in stream { read.append(element) }
            return read
        }
        for value in 3..<100 { continuation.yield(value) }
        continuation.finish()
        #expect(continuation.yield(100) == .terminated)
        #expect(await reader.value == Array(0..<100))
    }

    @Test("A consumer on an actor receives every element, one resumption of its task per waiting element")
    func isolatedConsumer() async throws {
        let simulation = Simulation()
        let reader = Reader(simulation: simulation)
        let (stream, continuation) = EventStream.makeStream(of: Int.self)
        let count = 50
        let (read, producerJobs, allJobs) = try await simulation.run {
            // The producer alone, to subtract: a sleep per element.
            let start = simulation.executor.statistics
            for _ in 0..<count { try await simulation.clock.sleep(for: .milliseconds(1)) }
            let producer = simulation.executor.statistics - start
            let consumer = Task(executorPreference: simulation.executor) { await reader.read(stream, upTo: count) }
            try await simulation.clock.sleep(for: .milliseconds(1))
            let before = simulation.executor.statistics
            for value in 0..<count {
                // Each element finds the consumer waiting: the simulation runs it before the next.
                try await simulation.clock.sleep(for: .milliseconds(1))
                continuation.yield(value)
            }
            let read = await consumer.value
            return (read, producer.jobs, (simulation.executor.statistics - before).jobs)
        }
        #expect(read == Array(0..<count))
        // One job per element, plus the consumer's start and end; AsyncStream's iterator takes
        // six jobs per element from an actor (over 300 here).
        #expect(allJobs - producerJobs <= count + 5)
    }

    @Test("Cancelling the waiting consumer ends the stream: next returns nil, later yields are dropped")
    func cancellation() async {
        let (stream, continuation) = EventStream.makeStream(of: Int.self)
        let terminations = Locked<[EventStream<Int>.Continuation.Termination]>([])
        continuation.onTermination { termination in terminations.withLock { $0.append(termination) } }
        let reader = Task {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        reader.cancel()
        #expect(await reader.value == nil)
        #expect(continuation.yield(1) == .terminated)
        continuation.finish()
        #expect(terminations.withLock { $0 } == [.cancelled])
    }

    @Test("When the stream and its iterators are gone, yield reports terminated and keeps nothing")
    func abandonedStream() {
        var (stream, continuation): (EventStream<[UInt8]>?, EventStream<[UInt8]>.Continuation) =
            EventStream.makeStream(of: [UInt8].self)
        #expect(continuation.yield([1]) == .enqueued)
        stream = nil
        _ = stream
        #expect(continuation.yield([2]) == .terminated)
    }

    @Test("onTermination set after the end runs at once, once")
    func terminationAfterEnd() {
        let (stream, continuation) = EventStream.makeStream(of: Int.self)
        withExtendedLifetime(stream) {
            continuation.finish()
            let calls = Locked(0)
            continuation.onTermination { termination in
                #expect(termination == .finished)
                calls.withLock { $0 += 1 }
            }
            continuation.finish()
            #expect(calls.withLock { $0 } == 1)
        }
    }
}
