// Only with `-Xswiftc -DPICTOR_TSAN` (scripts/sanitize.sh thread): this module's `Mutex` is
// PictorCore's pthread-based stand-in, whose locking ThreadSanitizer sees (Synchronization's
// `Mutex` locks in an uninstrumented library, so TSan reports what it guards as races; the
// proof is in PictorCore's ThreadSanitizerMutex.swift). A module-local alias, because a
// declaration of this module shadows the imported `Mutex`, where an imported one would be
// ambiguous with it. Normal builds never compile it.
#if PICTOR_TSAN
import PictorCore

typealias Mutex<Value: ~Copyable> = ThreadSanitizerMutex<Value>
#endif
