import Foundation

/// Runs blocking work (a child process, a server starting, a raw socket) on a thread of its
/// own, so that it never holds one of Swift's cooperative threads: on a 2-core machine there are
/// two, and two blocked tests would stall every other test's tasks until their time limits.
///
/// ```swift
/// let outcome = try await offPool { try BinaryRunner.run(["prefetch", list]) }
/// ```
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
