import Foundation
import PictorCore
import Synchronization

/// A persistent cache of encoded bytes: one file per entry, named by a digest of the key, and a
/// SQLite index (WAL) of sizes, access times, expiry and HTTP validators.
///
/// ```swift
/// let cache = try DiskCache(configuration: .init(directory: URL(fileURLWithPath: "/var/cache/pictor")))
/// cache.store(jpegBytes, for: "https://example.org/a.jpg", metadata: DataCacheMetadata(etag: "\"v1\""))
/// let bytes = cache.data(for: "https://example.org/a.jpg")   // readable at once
/// ```
///
/// - Reads are synchronous: a digest of the key and one POSIX read of a self-describing entry
///   file (bytes, then metadata, then a footer). No index query on the
///   read path; last-access times are batched and written with the next writer pass.
/// - Writes return at once; a serial background queue writes a temporary file, renames it onto
///   the entry name and then commits the index row. Until then the bytes are served from
///   memory (read-your-writes). ``flush()`` waits for them; so does releasing the last
///   reference to the cache, which then releases its directory at once.
/// - Limits (``Configuration/sizeLimit``, ``Configuration/maxAge``) are enforced after writes
///   that cross the size limit and on a timer, by an ordered index query: least recently used
///   first, down to ``Configuration/trimRatio`` of the limit. No directory scan. Entries unused
///   for longer than the maximum age are also removed when the cache opens, so none is ever
///   served after its age ran out (unless ``Configuration/sweepInterval`` is `nil`).
/// - Opening recovers from crashes in time proportional to the writes in flight (see
///   ``init(configuration:)``).
/// - Several processes may share a directory (a CLI prefetching while a server reads): index
///   writes are SQLite transactions (WAL, 10 s busy timeout), files are replaced atomically and
///   carry their own metadata, and the part of crash recovery that deletes (temporary files,
///   interrupted writes) runs only when no other process has the directory open (an advisory
///   `flock`; opening asks for it for up to 100 ms while such writes wait). When two processes replace one entry at once, the
///   last rename wins and reads are whole; the index size of that entry may be the other's
///   until the next write of it or ``verify()``. Statistics and the access-time batching are
///   per process.
/// - Neither the files nor the index contain a key or a URL. The index records which key the
///   entries are sealed under (a non-secret key identifier) and refuses another one (see
///   ``init(configuration:)``).
///
/// - Important: Thread-safe. Faults while running are never thrown: a full disk counts a write
///   failure (existing entries are still served), a deleted directory is recreated on the next
///   write, and a read-only directory turns the cache read-only (``isReadOnly``) with one
///   warning: entries are still served, nothing is written.
public final class DiskCache: DataCaching, Sendable {
    /// The configuration the cache was created with.
    public let configuration: Configuration
    let files: EntryFiles
    let indexPath: String
    let state: Mutex<CacheState>
    /// The connection and directory lock used on the writer queue (`nil` when disabled).
    let writer: Mutex<WriterResources?>
    /// The serial queue of every write, trim and recovery.
    let queue: DispatchQueue
    let timer: Mutex<(any DispatchSourceTimer)?>
    /// The key hashing and cipher in use; replaced by ``rotateKey(to:)`` (DiskCache+KeyRotation).
    let keys: Mutex<EntryKeys>

    /// Whether the cache stores and serves entries; `false` once it stopped (another process
    /// switched the directory to another key setting, or it cannot be read at all): every read
    /// is then a miss and every write a no-op. A directory that only cannot be written keeps
    /// the cache enabled and ``isReadOnly``.
    public var isEnabled: Bool { !state.withLock { $0.disabled } }

    /// Counters since creation, in this process.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Opens (creating if needed) the cache in ``Configuration/directory``.
    ///
    /// Recovery, when no other process has the directory open (asked for up to 100 ms while
    /// interrupted writes wait, since a child process being started elsewhere in this process
    /// holds the lock for an instant): leftover temporary files are deleted; entries whose
    /// write or removal was in flight at a crash are dropped (both file and row). At any open,
    /// a lost or new index adopts the entry files, and a damaged one is moved aside and rebuilt
    /// (below). The cost is proportional
    /// to the writes in flight, not to the entries: no directory scan unless the index is new
    /// or rebuilt.
    ///
    /// **Age limit.** With a ``Configuration/maxAge`` and a ``Configuration/sweepInterval``
    /// (both set by default), entries not read or written for longer than the maximum age are
    /// removed before the initialiser returns, as the first sweep would remove them: a process
    /// that opens the cache, reads and exits before its first sweep never gets an entry past
    /// its age. The cost is proportional to the entries removed (an index range scan).
    ///
    /// A directory that cannot be written (read-only file system, no permission) does not
    /// throw: the cache opens read-only (``isReadOnly``) after one warning, serving its valid
    /// entries and writing nothing. An index that is damaged (not a database, cut short,
    /// another schema, or a key record that the entry files contradict) is moved aside to
    /// `index.sqlite.damaged-<time>` and rebuilt from the entry files, as a lost one is; the
    /// three newest copies moved aside are kept for inspection, and ``removeAll()`` deletes them.
    ///
    /// **Key check.** The index records which key setting the entries are written under: plain,
    /// or the cipher's non-secret ``/PictorCore/DataCipher/keyIdentifier`` (never the key; its
    /// SHA-256 when it is over 512 bytes). Opening with
    /// another setting — another key, a key for a plain cache, no key for an encrypted one —
    /// throws ``DiskCacheError/keyMismatch(path:_:)`` before any file is read, written or
    /// removed (unless ``Configuration/keyMismatchPolicy`` says to discard the entries), even
    /// when the cache is empty: a cleared or rotated cache keeps its key. When the record is
    /// lost (a new index over existing files, an index rebuilt after corruption, an index
    /// written before the check existed), it is derived from the entry files: a file whose
    /// footer parses is plain, a file that opens under the configured cipher is under that key;
    /// when no file is either, nothing is guessed and opening fails as for a mismatch. An
    /// instance still open when another one switched the directory to another setting
    /// (``DiskCache/KeyMismatchPolicy/removeEntries``) stops writing and disables itself
    /// with a warning.
    ///
    /// - Parameter configuration: the directory, limits, durability, key hashing, cipher and
    ///   key-mismatch policy; fixed for the life of the cache.
    /// - Throws: ``DiskCacheError/keyMismatch(path:_:)`` as above;
    ///   ``DiskCacheError/invalidConfiguration(_:)`` for a limit out of range;
    ///   ``DiskCacheError/directoryUnavailable(path:errno:)`` when the directory cannot be
    ///   created or is not a directory; ``DiskCacheError/index(operation:code:message:)`` when
    ///   SQLite fails in another way.
    public init(configuration: Configuration) throws(DiskCacheError) {
        try Self.validate(configuration)
        self.configuration = configuration
        var path = configuration.directory.standardizedFileURL.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        files = EntryFiles(directory: path, injectedWriteErrno: configuration.diskFull.fileWriteErrno)
        indexPath = path + "/index.sqlite"
        state = Mutex(CacheState())
        queue = DispatchQueue(label: "pictor.disk-cache.writer", qos: .utility)
        timer = Mutex(nil)
        keys = Mutex(EntryKeys(configuration))

        switch Self.openResources(files: files, indexPath: indexPath, configuration: configuration) {
        case .success(let resources):
            let otherKeyEntriesRemoved = resources.otherKeyEntriesRemoved
            writer = Mutex(resources)
            state.withLock { $0.statistics.otherKeyEntriesRemoved = otherKeyEntriesRemoved }
            removeExpiredAtOpen()
            startTimer()
        case .failure(.readOnly(let reason)):
            switch Self.openReadOnly(files: files, indexPath: indexPath, configuration: configuration) {
            case .success(let resources):
                writer = Mutex(resources)
                enterReadOnly(reason: reason)
            case .failure(.fatal(let error)):
                throw error
            case .failure(.readOnly(let why)), .failure(.damaged(let why)):
                writer = Mutex(nil)
                disable(reason: "\(reason); \(why)")
            }
        case .failure(.fatal(let error)):
            throw error
        case .failure(.damaged(let reason)):
            throw .index(operation: "open", code: 11, message: reason)
        }
    }

    // MARK: Reads

    /// The bytes and metadata stored for `key`, or `nil` on a miss.
    ///
    /// Expired entries (past ``/PictorCore/DataCacheMetadata/expiresAt``) are returned; callers check
    /// freshness. An entry file that is truncated or malformed, or (with a
    /// ``Configuration/cipher``) fails to open, is a miss, and the entry is removed and counted
    /// in ``Statistics/corruptEntriesRemoved``.
    ///
    /// **Key binding.** Each entry file records SHA-256 of the key it was stored under (sealed
    /// with the rest when encrypted). A file whose record is another key's — copied, swapped,
    /// restored from a backup or renamed onto this name, or a key that a custom
    /// ``/PictorCore/CacheKeyHashing`` names alike — is a miss, removed and counted the same way. Files
    /// written before the record existed have none and are treated alike: they are misses and
    /// removed, so the pipeline downloads them once more, never served on trust.
    ///
    /// - Parameter key: the cache key (the pipeline's data key; by default the image URL).
    /// - Complexity: the name digest, one SHA-256 of the key and one file read (the metadata is
    ///   stored in the file, so no index query); the last-access time is recorded later in a
    ///   batch.
    public func entry(for key: String) -> DataCacheEntry? {
        guard let digest = digest(for: key) else { return miss() }
        return entry(digest: digest, binding: KeyBinding(key: key))
    }

    /// The key's digest, checked to be 1–64 lowercase hex characters (the ``CacheKeyHashing``
    /// contract) so that a faulty custom hasher can never name a path outside the directory;
    /// `nil` (a miss or no-op, logged) otherwise.
    func digest(for key: String) -> String? {
        let digest = currentKeyHashing.digest(for: key)
        guard EntryFiles.looksLikeDigest(digest) else {
            configuration.logger.log(.error, "disk cache key hashing returned a name that is not 1-64 lowercase hex characters; ignored")
            return nil
        }
        return digest
    }

    /// Whether an entry for `key` would be served: a staged write for this key, or a file bound
    /// to this key. A file under the key's name that was stored under another key (copied,
    /// swapped, restored) or that is damaged does not count. Freshness is not checked, nothing
    /// is removed and no statistic changes.
    ///
    /// - Complexity: plain cache: one read of the file's trailer (its metadata, not the
    ///   payload); encrypted cache: the whole file is read and opened, since the binding is
    ///   sealed with the payload.
    ///
    /// - Parameter key: the cache key.
    public func contains(_ key: String) -> Bool {
        guard let digest = digest(for: key) else { return false }
        let binding = KeyBinding(key: key)
        switch staged(digest, binding: binding, countingMisses: false) {
        case .hit: return true
        case .miss: return false
        case .disk: return file(digest, isBoundTo: binding)
        }
    }

    /// The metadata of the entry ``entry(for:)`` would serve for `key`, or `nil`; as
    /// ``contains(_:)``, nothing is removed and no statistic changes, but the read counts as an
    /// access for the least-recently-used order (the pipeline warms entries with it before
    /// they are used).
    ///
    /// - Complexity: plain cache: one read of the file's trailer (its metadata, not the
    ///   payload); encrypted cache: the whole file is read and opened.
    ///
    /// - Parameter key: the cache key.
    public func metadata(for key: String) -> DataCacheMetadata? {
        guard let digest = digest(for: key) else { return nil }
        let binding = KeyBinding(key: key)
        let metadata: DataCacheMetadata?
        switch staged(digest, binding: binding, countingMisses: false) {
        case .hit(let entry): return entry.metadata
        case .miss: return nil
        case .disk(let override): metadata = fileMetadata(digest, boundTo: binding).map { override ?? $0 }
        }
        if metadata != nil {
            let now = configuration.now()
            let needsDrain = state.withLock { s in
                guard !s.readOnly, s.recordAccess(digest, at: now, resolution: Self.accessTimeResolution) else { return false }
                return s.accesses.count >= Self.accessBatchSize && s.scheduleDrain()
            }
            if needsDrain { scheduleDrain() }
        }
        return metadata
    }

    /// Whether the entry file `digest` is intact and bound to `binding`.
    private func file(_ digest: String, isBoundTo binding: KeyBinding) -> Bool {
        fileMetadata(digest, boundTo: binding) != nil
    }

    /// The metadata of the entry file `digest` when it is intact and bound to `binding`.
    private func fileMetadata(_ digest: String, boundTo binding: KeyBinding) -> DataCacheMetadata? {
        if currentCipher == nil {
            guard let (trailer, size) = files.readTrailer(digest),
                  let tail = EntryContainer.decodeTail(trailer, fileSize: size), tail.binding == binding else { return nil }
            return tail.metadata
        }
        guard case .data(let bytes) = files.read(digest), let decoded = decode(bytes, digest: digest),
              decoded.binding == binding else { return nil }
        return decoded.metadata
    }

    func entry(digest: String, binding: KeyBinding) -> DataCacheEntry? {
        let override: DataCacheMetadata?
        switch staged(digest, binding: binding, countingMisses: true) {
        case .hit(let entry): return entry
        case .miss: return nil
        case .disk(let metadata): override = metadata
        }
        guard case .data(let bytes) = files.read(digest) else { return miss() }
        guard let decoded = decode(bytes, digest: digest) else {
            configuration.logger.log(.warning, "disk cache entry \(digest) is corrupt or failed to open; \(droppedFate)")
            dropEntry(digest)
            return miss()
        }
        guard decoded.binding == binding else {
            configuration.logger.log(.warning, "disk cache entry \(digest) was not stored under this key (moved, copied or written by an older version); \(droppedFate)")
            dropEntry(digest)
            return miss()
        }
        let now = configuration.now()
        let needsDrain = state.withLock { s in
            s.statistics.hits += 1
            s.statistics.bytesRead += decoded.payload.count
            guard !s.readOnly, s.recordAccess(digest, at: now, resolution: Self.accessTimeResolution) else { return false }
            return s.accesses.count >= Self.accessBatchSize && s.scheduleDrain()
        }
        if needsDrain { scheduleDrain() }
        return DataCacheEntry(data: decoded.payload, metadata: override ?? decoded.metadata)
    }

    /// Opens (when encrypted) and decodes an entry file; `nil` when it is not intact.
    func decode(_ file: Data, digest: String) -> EntryContainer.Decoded? {
        EntryContainer.open(file, digest: digest, cipher: currentCipher)
    }

    /// Access times buffered before the writer is woken to record them.
    static let accessBatchSize = 256
    /// Seconds within which repeated reads of one entry record its access time only once
    /// (`60`): LRU order at minute resolution is plenty for a disk cache, and a hot entry then
    /// costs no index write per read.
    static let accessTimeResolution: Double = 60

    private enum Staged {
        case hit(DataCacheEntry)
        case miss
        /// Read the file; replace its metadata with this one when set.
        case disk(DataCacheMetadata?)
    }

    /// What the staged changes say about `digest`; a staged store bound to another key than
    /// `binding` (when given) is a miss.
    private func staged(_ digest: String, binding: KeyBinding?, countingMisses: Bool) -> Staged {
        state.withLock { s in
            if s.disabled {
                if countingMisses { s.statistics.misses += 1 }
                return .miss
            }
            if let operation = s.operations[digest] {
                switch operation.kind {
                case .store(let data, let metadata, _, let staged, _):
                    if let binding, staged != binding {
                        if countingMisses { s.statistics.misses += 1 }
                        return .miss
                    }
                    if countingMisses {
                        s.statistics.hits += 1
                        s.statistics.bytesRead += data.count
                    }
                    return .hit(DataCacheEntry(data: data, metadata: metadata))
                case .remove:
                    if countingMisses { s.statistics.misses += 1 }
                    return .miss
                case .metadata(let metadata, _):
                    return s.pendingClears > 0 ? .miss : .disk(metadata)
                }
            }
            if s.pendingClears > 0 {
                if countingMisses { s.statistics.misses += 1 }
                return .miss
            }
            return .disk(nil)
        }
    }

    private func miss() -> DataCacheEntry? {
        state.withLock { $0.statistics.misses += 1 }
        return nil
    }

    /// Removes an entry found corrupt by a read, unless a newer change for it is staged.
    /// What happens to an entry that cannot be served, for log messages.
    private var droppedFate: String { isReadOnly ? "kept (the cache is read-only), not served" : "removed" }

    private func dropEntry(_ digest: String) {
        let needsDrain = state.withLock { s in
            // A read-only cache cannot remove it; the read is a miss all the same.
            guard s.operations[digest] == nil, !s.readOnly else { return false }
            s.statistics.corruptEntriesRemoved += 1
            return s.stage(.remove, for: digest)
        }
        if needsDrain { scheduleDrain() }
    }

    /// Writes what is still staged, then releases the directory (its lock and the index
    /// connection go with the stored properties). Queued work holds the cache weakly, so this
    /// runs when the last user reference goes, not whenever the background queue gets to it:
    /// an instance opened next finds the directory free and can recover. No block runs on
    /// ``queue`` meanwhile (a running one would hold a strong reference), so draining here,
    /// on the releasing thread, is serial with the queue.
    deinit {
        timer.withLock { $0?.cancel() }
        drain()
    }
}
