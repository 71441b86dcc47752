import Foundation
import PictorCore

extension DiskCache {
    /// Whether the cache only reads: its directory cannot be written (a read-only file system
    /// or mount, or no write permission), at opening or since a write failed that way, or its
    /// file system was full when it opened (SQLite could not write its index). Valid
    /// entries are still served, and ``entries(limit:)``, ``count``, ``totalSize`` and
    /// ``verify()`` still report them (verify removes nothing); stores, metadata updates,
    /// removals, clears, trims and access times are dropped. One warning says so.
    public var isReadOnly: Bool { state.withLock { $0.readOnly } }

    /// Opens a directory that cannot be written, for reading only.
    ///
    /// The index is opened read-only (`mode=ro`, or `immutable=1` when SQLite cannot read a
    /// WAL database otherwise on a read-only medium). When there is none, or it cannot be
    /// read, or its key record is damaged, the entry files are listed into an index in memory
    /// instead (the same adoption as after a lost index, deleting nothing). The key check is
    /// the same as for writing: entries under another key setting are refused, never served.
    static func openReadOnly(files: EntryFiles, indexPath: String, configuration: Configuration) -> Result<WriterResources, OpenFailure> {
        let logger = configuration.logger
        let lock = DirectoryLock(readingDirectory: files.directory)
        // Waits while another process runs crash recovery.
        lock?.share()
        var index: EntryIndex?
        var recorded: KeyCheck?
        if access(indexPath, F_OK) == 0 {
            do {
                let opened = try EntryIndex(readOnlyPath: indexPath)
                try opened.validateSchema()
                recorded = try opened.keyCheck()
                index = opened
            } catch {
                logger.log(.info, "disk cache index cannot be read (\(error.message)); listing the entry files instead")
            }
        }
        if let check = recorded, !check.isWellFormed {
            index = nil
            recorded = nil
        }
        let configured = KeyCheck(configuration.cipher)
        if recorded != configured {
            switch deriveKeyCheck(files: files, cipher: configuration.cipher) {
            case .known(let found) where found == configured:
                // The files prove the setting: the record was lost or is wrong; list the files.
                if recorded != nil { index = nil }
            case .empty where recorded == nil:
                break
            case .known(let found):
                return .failure(.fatal(.keyMismatch(path: files.directory, found.mismatch(configured: configured) ?? .anotherKey)))
            case .empty, .unknown:
                let kind = recorded?.mismatch(configured: configured) ?? (configured.isEncrypted ? .anotherKey : .keyRequired)
                return .failure(.fatal(.keyMismatch(path: files.directory, kind)))
            }
        }
        if index == nil {
            do {
                let memory = try EntryIndex(path: ":memory:", synchronousFull: false)
                try recover(memory, files: files, temporaries: false, reindex: true,
                            encrypted: configuration.cipher != nil, logger: logger, readOnly: true)
                index = memory
            } catch {
                return .failure(.fatal(DiskCacheError(error)))
            }
        }
        guard let index else { return .failure(.readOnly("no index")) }
        return .success(WriterResources(index: index, lock: lock, keyCheck: configured))
    }

    /// Switches to read-only mode after the directory turned out not writable; logs once.
    func enterReadOnly(reason: String) {
        let first = state.withLock { s -> Bool in
            defer { s.readOnly = true; s.operations.removeAll(); s.pendingBytes = 0; s.accesses.removeAll() }
            return !s.readOnly && !s.disabled
        }
        if first {
            configuration.logger.log(.warning, "disk cache is read-only: \(reason); its entries are served, nothing is written (\(files.directory))")
        }
    }
}
