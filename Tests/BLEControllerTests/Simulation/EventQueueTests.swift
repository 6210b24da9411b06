import Testing

@testable import BLEController

@Suite("Discrete-event queue")
struct EventQueueTests {
    @Test("Actions run in time order, ties in scheduling order, and now follows them")
    func ordering() {
        let queue = EventQueue()
        var trace: [String] = []
        queue.schedule(at: .microseconds(300)) { trace.append("c@\(queue.now.nanoseconds)") }
        queue.schedule(at: .microseconds(100)) { trace.append("a@\(queue.now.nanoseconds)") }
        queue.schedule(at: .microseconds(100)) { trace.append("b@\(queue.now.nanoseconds)") }
        #expect(queue.pendingCount == 3)
        #expect(queue.runUntilIdle() == 3)
        #expect(trace == ["a@100000", "b@100000", "c@300000"])
        #expect(queue.now == .microseconds(300))
    }

    @Test("A cancelled action never runs; cancelling twice or after running is harmless")
    func cancellation() {
        let queue = EventQueue()
        var ran: [Int] = []
        let first = queue.schedule(at: .microseconds(10)) { ran.append(1) }
        let second = queue.schedule(at: .microseconds(20)) { ran.append(2) }
        queue.cancel(first)
        queue.cancel(first)
        #expect(queue.pendingCount == 1)
        #expect(queue.nextTime == .microseconds(20))
        queue.runUntilIdle()
        queue.cancel(second)
        #expect(ran == [2])
        #expect(queue.pendingCount == 0)
    }

    @Test("A token of an action that ran or was cancelled never cancels a later action")
    func staleTokens() {
        let queue = EventQueue()
        var ran: [Int] = []
        let first = queue.schedule(at: .microseconds(10)) { ran.append(1) }
        queue.runUntilIdle()
        queue.schedule(at: .microseconds(20)) { ran.append(2) }
        queue.cancel(first)
        #expect(queue.pendingCount == 1)
        let third = queue.schedule(at: .microseconds(30)) { ran.append(3) }
        queue.cancel(third)
        #expect(queue.nextTime == .microseconds(20))
        queue.runUntilIdle()
        queue.schedule(at: .microseconds(40)) { ran.append(4) }
        queue.cancel(third)
        queue.cancel(first)
        #expect(queue.pendingCount == 1)
        queue.runUntilIdle()
        #expect(ran == [1, 2, 4])
        #expect(queue.pendingCount == 0)
    }

    @Test("Actions may schedule more actions; a time in the past runs at now")
    func reentrantScheduling() {
        let queue = EventQueue()
        var times: [Int64] = []
        queue.schedule(at: .microseconds(50)) {
            times.append(queue.now.nanoseconds)
            queue.schedule(at: .zero) { times.append(queue.now.nanoseconds) }
            queue.schedule(after: .microseconds(5)) { times.append(queue.now.nanoseconds) }
        }
        queue.runUntilIdle()
        #expect(times == [50_000, 50_000, 55_000])
    }

    @Test("run(until:) stops at the deadline and lets time pass when nothing happens")
    func runUntil() {
        let queue = EventQueue()
        var ran = 0
        queue.schedule(at: .microseconds(10)) { ran += 1 }
        queue.schedule(at: .microseconds(30)) { ran += 1 }
        queue.run(until: .microseconds(20))
        #expect(ran == 1)
        #expect(queue.now == .microseconds(20))
        queue.run(until: .microseconds(100))
        #expect(ran == 2)
        #expect(queue.now == .microseconds(100))
    }

    @Test("A hundred thousand events keep their order (heap property under load)")
    func manyEvents() {
        let queue = EventQueue()
        var generator = SeededRandomGenerator(seed: 42)
        var last: Int64 = -1
        var ordered = true
        for _ in 0..<100_000 {
            let time = Int64(generator.next() % 1_000_000)
            queue.schedule(at: VirtualInstant(nanoseconds: time)) {
                if queue.now.nanoseconds < last { ordered = false }
                last = queue.now.nanoseconds
            }
        }
        #expect(queue.runUntilIdle() == 100_000)
        #expect(ordered)
    }
}
