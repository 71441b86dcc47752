import Foundation
import Synchronization

/// The value stored in every memory-cache benchmark: a small class, as an image container is.
final class Payload: Sendable {
    let bytes: Int
    init(bytes: Int) { self.bytes = bytes }
}

/// Reference 1: a `Dictionary` behind a `Synchronization.Mutex` — the floor for a locked lookup.
final class LockedDictionary<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    let state = Mutex<[Key: Value]>([:])

    @inline(__always) func value(for key: Key) -> Value? { state.withLock { $0[key] } }
    @inline(__always) func set(_ value: Value, for key: Key) { state.withLock { $0[key] = value } }
    /// Insert plus removal of the oldest key: the same hash work as an LRU eviction, without
    /// the recency bookkeeping.
    @inline(__always) func set(_ value: Value, for key: Key, evicting old: Key) {
        state.withLock {
            $0[key] = value
            $0.removeValue(forKey: old)
        }
    }
}

/// Reference 2: Foundation's `NSCache` (swift-corelibs-foundation on Linux) with `NSString` keys
/// built beforehand.
final class FoundationCache: @unchecked Sendable {
    // NSCache is documented thread-safe and the NSString keys are immutable and never mutated
    // after init; the wrapper only makes that visible to Swift 6.
    let cache = NSCache<NSString, Payload>()
    /// The benchmark's keys as `NSString`, built once so that no bridging is timed.
    let keys: [NSString]

    init(keys: [String]) { self.keys = keys.map { NSString(string: $0) } }
}

/// Key text like a real image URL: 76 bytes, as in performance.md §1.1.
func urlKey(_ i: Int) -> String {
    let n = String(i)
    let padded = String(repeating: "0", count: max(0, 10 - n.count)) + n
    return "https://images.example.org/photos/2026/11/30/large/\(padded)-photo-@1x.jpeg"
}
