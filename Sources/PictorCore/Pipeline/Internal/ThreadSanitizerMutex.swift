// Only with `-Xswiftc -DPICTOR_TSAN` (scripts/sanitize.sh thread): a pthread-based stand-in for
// `Synchronization.Mutex`.
//
// On Linux (Swift 6.3.1) `Mutex` locks inside the uninstrumented Synchronization library with
// futex calls, so ThreadSanitizer cannot see its happens-before edges and reports every pair of
// accesses made under the lock as a race (an eight-line program with `concurrentPerform` and a
// `Mutex<[Int: Int]>` reproduces it; the same program on this class reports nothing). TSan does
// intercept `pthread_mutex_lock`, so under the flag each module's `Mutex` is this class and the
// sanitizer sees the locking.
//
// One class, here; every other module that uses `Mutex` has a `ThreadSanitizerMutex.swift` with
// a module-local `typealias Mutex` to it. It has to be module-local: a declaration of the module
// itself shadows an imported one, but two imported `Mutex` types (this one and
// Synchronization's) are ambiguous in a type annotation. A module without the alias compiles and
// uses the library's `Mutex`, and TSan then reports its locked accesses as races.
// Normal builds never compile it.
#if PICTOR_TSAN
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock-protected value with `Mutex`'s `withLock` shape (noncopyable values too, as the
/// library's), built on `pthread_mutex_t`.
/// `@usableFromInline` like the library's, since `@inlinable` code (the memory cache) uses it.
@usableFromInline
package final class ThreadSanitizerMutex<Value: ~Copyable>: @unchecked Sendable {
    // @unchecked: `value` is only touched with `lock` held (see `withLock`).
    @usableFromInline let lock: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    @usableFromInline
    package init(_ value: consuming Value) {
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
    package func withLock<Result: ~Copyable, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }
}

/// This module's `Mutex` under the flag (other modules have their own alias to the class).
@usableFromInline
typealias Mutex<Value: ~Copyable> = ThreadSanitizerMutex<Value>
#endif
