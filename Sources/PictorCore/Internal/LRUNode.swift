/// One slot of ``LRUStorage``: an entry and its links in the recency list.
///
/// Slots live in one array and link to each other by index, so the list needs no per-node
/// allocation. A free slot has `key == nil` and `value == nil` and is chained through `next`.
@usableFromInline
struct LRUNode<Key, Value> {
    /// The entry's key; `nil` while the slot is free.
    @usableFromInline var key: Key?
    /// The entry's value; `nil` while the slot is free.
    @usableFromInline var value: Value?
    /// The entry's cost, in the cache's unit (bytes for images).
    @usableFromInline var cost: Int
    /// Clock time in seconds after which the entry is expired; `.infinity` for never.
    @usableFromInline var expiry: Double
    /// The next more recently used slot, `-1` at the head.
    @usableFromInline var prev: Int32
    /// The next less recently used slot (or the next free slot), `-1` at the tail.
    @usableFromInline var next: Int32

    @inlinable
    init(key: Key, value: Value, cost: Int, expiry: Double) {
        self.key = key
        self.value = value
        self.cost = cost
        self.expiry = expiry
        self.prev = -1
        self.next = -1
    }
}
