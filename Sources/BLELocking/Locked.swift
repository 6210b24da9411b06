#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a lock, shaped like `Synchronization.Mutex`: the one lock every module of
/// ours uses.
///
/// Why not `Mutex`: on Linux it hands a contended lock to the waiter inside the kernel (a
/// priority-inheriting futex), so ThreadSanitizer never sees the waiter acquire it and reports
/// every access under a contended `Mutex` as a race, which makes `scripts/sanitize thread`
/// useless. A `pthread_mutex_t` is intercepted by ThreadSanitizer, so the happens-before edges
/// it creates are the real ones.
///
/// `@unchecked Sendable`: `value` is read and written only inside `withLock`, between
/// `pthread_mutex_lock` and `pthread_mutex_unlock` on `mutex`; values go in and out `sending`,
/// as with `Mutex`, so no reference to the state escapes to another isolation region.
///
/// `public` (the type and `withLock`) only because `@inlinable` public code (`EventStream`)
/// locks through it; apps have no use for it.
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
    /// On the heap, never moved: a pthread mutex must keep its address while in use.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        // Default attributes: fails only when out of memory (POSIX), where nothing can go on.
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock. Not reentrant: calling `withLock` on
    /// the same instance from `body` deadlocks, as with `Mutex`.
    @inlinable
    public func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
