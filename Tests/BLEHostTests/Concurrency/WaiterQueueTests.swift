import Testing

@testable import BLEHost

/// An owner of a waiter queue, as the host and the managers are: a condition of its state and
/// the callers waiting for it.
private actor Gate {
    var isOpen = false
    var queue = WaiterQueue()
    /// How many times the condition was asked.
    var checks = 0
    /// Answers for the condition, first to last, before `isOpen` decides.
    var scriptedAnswers: [Bool] = []
    let enqueued: AsyncStream<Int>
    private let enqueuedSink: AsyncStream<Int>.Continuation
    /// Callers' tags as they go on after waiting.
    let passed: AsyncStream<Int>
    private let passedSink: AsyncStream<Int>.Continuation

    init() {
        (enqueued, enqueuedSink) = AsyncStream.makeStream(of: Int.self)
        (passed, passedSink) = AsyncStream.makeStream(of: Int.self)
    }

    func script(_ answers: [Bool]) { scriptedAnswers = answers }

    private func condition() -> Bool {
        checks += 1
        return scriptedAnswers.isEmpty ? isOpen : scriptedAnswers.removeFirst()
    }

    /// Waits once; returns the caller's tag.
    func pass(_ tag: Int) async -> Int {
        await WaiterQueue.wait(unless: { condition() }) { waiter in
            queue.append(waiter)
            enqueuedSink.yield(tag)
        }
        passedSink.yield(tag)
        return tag
    }

    func resumeFirst() -> Bool { queue.resumeFirst() }
    func resumeAll() { queue.resumeAll() }
    var waiting: Int { queue.count }
}

@Suite("WaiterQueue: check, suspend, re-check inside the continuation, resume in order")
struct WaiterQueueTests {
    @Test("A met condition returns at once, asked once, nothing queued")
    func metConditionDoesNotWait() async {
        let gate = Gate()
        await gate.script([true])
        #expect(await gate.pass(1) == 1)
        #expect(await gate.checks == 1)
        #expect(await gate.waiting == 0)
    }

    @Test("A condition met by the time the continuation's body runs resumes without queueing")
    func reCheckedInsideTheBody() async {
        let gate = Gate()
        // Not met at the caller's check, met inside the body (as when another job of the
        // executor ran in between).
        await gate.script([false, true])
        #expect(await gate.pass(1) == 1)
        #expect(await gate.checks == 2)
        #expect(await gate.waiting == 0)
    }

    @Test("Waiters are resumed first come first served; resumeAll empties the queue")
    func firstComeFirstServed() async {
        let gate = Gate()
        var enqueued = gate.enqueued.makeAsyncIterator()
        var passed = gate.passed.makeAsyncIterator()
        var tasks: [Task<Int, Never>] = []
        for tag in 0..<3 {
            tasks.append(Task { await gate.pass(tag) })
            #expect(await enqueued.next() == tag)
        }
        #expect(await gate.waiting == 3)
        #expect(await gate.resumeFirst())
        #expect(await passed.next() == 0)
        #expect(await gate.waiting == 2)
        #expect(await gate.resumeFirst())
        #expect(await passed.next() == 1)
        await gate.resumeAll()
        #expect(await gate.waiting == 0)
        #expect(await passed.next() == 2)
        for task in tasks { _ = await task.value }
        #expect(await !gate.resumeFirst())
    }
}
