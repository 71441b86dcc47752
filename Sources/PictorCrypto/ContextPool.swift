import Foundation
import Synchronization

/// Idle libcrypto contexts (`EVP_CIPHER_CTX`, `EVP_MD_CTX`) kept for reuse.
///
/// Making and freeing a context costs about as much as a short operation on it (a SHA-256 of a
/// URL, a GCM open of a small entry). A context is taken for one call and given back after it,
/// so no two threads ever use one at once; at most ``capacity`` idle ones are kept, and one given
/// back to a full pool is freed.
///
/// `@unchecked Sendable` because `OpaquePointer` is not `Sendable`; safe because the idle list
/// is only touched under the `Mutex` and a context taken out belongs to its taker.
final class ContextPool: @unchecked Sendable {
    /// Idle contexts kept at most.
    let capacity: Int
    private let idle = Mutex<[Int]>([])  // bit patterns of idle context pointers
    private let release: @Sendable (OpaquePointer) -> Void

    /// - Parameters:
    ///   - capacity: idle contexts kept at most.
    ///   - release: frees a context (`EVP_CIPHER_CTX_free`, `EVP_MD_CTX_free`).
    init(capacity: Int, release: @escaping @Sendable (OpaquePointer) -> Void) {
        self.capacity = capacity
        self.release = release
    }

    /// An idle context, or `nil` when there is none (the caller makes one).
    func take() -> OpaquePointer? {
        idle.withLock { $0.popLast() }.flatMap { OpaquePointer(bitPattern: $0) }
    }

    /// Keeps `context` for a later ``take()``, or frees it when ``capacity`` are kept.
    func give(_ context: OpaquePointer) {
        let bits = Int(bitPattern: UnsafeRawPointer(context))
        let kept = idle.withLock { list -> Bool in
            guard list.count < capacity else { return false }
            list.append(bits)
            return true
        }
        if !kept { release(context) }
    }

    deinit {
        for bits in idle.withLock({ $0 }) {
            if let context = OpaquePointer(bitPattern: bits) { release(context) }
        }
    }
}
