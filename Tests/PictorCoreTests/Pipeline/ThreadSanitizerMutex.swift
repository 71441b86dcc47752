// Only with `-Xswiftc -DPICTOR_TSAN`: a pthread-based stand-in for `Synchronization.Mutex`.
//
// On Linux (Swift 6.3.1) `Mutex` locks inside the uninstrumented Synchronization library with
// futex calls, so ThreadSanitizer cannot see its happens-before edges and reports every pair of
// accesses made under the lock as a race (an eight-line program with `concurrentPerform` and a
// `Mutex<[Int: Int]>` reproduces it). TSan does intercept `pthread_mutex_lock`, so under the flag
// this module-local `Mutex` shadows the library's and the sanitizer sees the locking:
//
//     swift test --sanitize=thread -Xswiftc -DPICTOR_TSAN --filter Pipeline
//
// Normal builds never compile it.
#if PICTOR_TSAN
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock-protected value with `Mutex`'s `withLock` shape, built on `pthread_mutex_t`.
/// `@usableFromInline` like the library's, since `@inlinable` code (the memory cache) uses it.
@usableFromInline
final class Mutex<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched with `lock` held (see `withLock`).
    @usableFromInline let lock: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    @usableFromInline
    init(_ value: Value) {
        self.value = value
        lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    @inlinable
    func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }
}
#endif
