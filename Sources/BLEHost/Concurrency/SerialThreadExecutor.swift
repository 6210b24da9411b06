import BLELocking
import Foundation
import Synchronization

/// A serial executor backed by one thread: the default home of a host actor when it does not
/// run on a simulation's executor (the design's "one serial executor per host").
///
/// Jobs run in the order they were enqueued. `shutdown()` lets the thread finish the jobs it
/// has and end.
public final class SerialThreadExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside `jobs`' lock and the `alive` atomic;
    // `wakeUp` is a lock.
    private let jobs = Locked<[UnownedJob]>([])
    private let wakeUp = NSCondition()
    private let alive = Atomic<Bool>(true)

    public init(name: String = "swift-ble host") {
        // The thread keeps the executor alive until `shutdown()`.
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        jobs.withLock { $0.append(unowned) }
        signal()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Ends the thread once the jobs already enqueued have run.
    public func shutdown() {
        alive.store(false, ordering: .releasing)
        signal()
    }

    private func signal() {
        wakeUp.lock()
        wakeUp.signal()
        wakeUp.unlock()
    }

    private func loop() {
        while true {
            let batch = jobs.withLock { queue in
                defer { queue.removeAll(keepingCapacity: true) }
                return queue
            }
            if batch.isEmpty {
                guard alive.load(ordering: .acquiring) else { return }
                wakeUp.lock()
                if jobs.withLock({ $0.isEmpty }) && alive.load(ordering: .acquiring) { wakeUp.wait() }
                wakeUp.unlock()
                continue
            }
            for job in batch {
                job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            }
        }
    }
}
