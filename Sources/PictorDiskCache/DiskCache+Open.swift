import Foundation
import PictorCore
import Synchronization

/// The writer's connection, the directory lock and the key setting this instance writes
/// under, used on the writer queue only.
final class WriterResources {
    var index: EntryIndex
    /// `nil` only for a read-only cache whose directory has no lock file (nothing to share).
    var lock: DirectoryLock?
    /// The setting recorded in the index when this instance last checked or changed it; a
    /// batch whose index record differs was changed by another process and is not committed.
    var keyCheck: KeyCheck
    /// Entries the opening removed because they were under another key setting
    /// (``DiskCache/KeyMismatchPolicy/removeEntries``).
    let otherKeyEntriesRemoved: Int

    init(index: EntryIndex, lock: DirectoryLock?, keyCheck: KeyCheck, otherKeyEntriesRemoved: Int = 0) {
        self.index = index
        self.lock = lock
        self.keyCheck = keyCheck
        self.otherKeyEntriesRemoved = otherKeyEntriesRemoved
    }
}

extension DiskCache {
    static func validate(_ c: Configuration) throws(DiskCacheError) {
        guard c.directory.isFileURL else { throw .invalidConfiguration("directory must be a file URL") }
        guard c.sizeLimit >= 0 else { throw .invalidConfiguration("sizeLimit must be ≥ 0 bytes") }
        guard (0...1).contains(c.trimRatio) else { throw .invalidConfiguration("trimRatio must be in 0...1") }
        if let maxAge = c.maxAge, !(maxAge > 0) { throw .invalidConfiguration("maxAge must be > 0 seconds") }
        if let interval = c.sweepInterval, !(interval > 0) { throw .invalidConfiguration("sweepInterval must be > 0 seconds") }
        guard c.maxPendingBytes > 0 else { throw .invalidConfiguration("maxPendingBytes must be > 0") }
    }

    enum OpenFailure: Error {
        case readOnly(String)
        case fatal(DiskCacheError)
        /// The index cannot be trusted (unreadable, another schema, or a key record the entry
        /// files contradict): it is moved aside and rebuilt from the files.
        case damaged(String)
    }

    private static func isReadOnlyErrno(_ code: Int32) -> Bool { code == EROFS || code == EACCES || code == EPERM }

    /// Whether SQLite's error means the index file is damaged (rather than busy, full or
    /// unwritable): not a database, corrupt pages, a schema newer than this build, or tables
    /// that do not match the version it claims.
    static func isDamage(_ error: SQLiteError) -> Bool {
        error.isCorruption || error.primaryCode == 20 /* SQLITE_MISMATCH */ || error.primaryCode == 1 /* SQLITE_ERROR */
    }

    /// Creates the directories, takes the lock, opens (or rebuilds) the index and recovers.
    static func openResources(
        files: EntryFiles, indexPath: String, configuration: Configuration, forceRebuild: Bool = false
    ) -> Result<WriterResources, OpenFailure> {
        if configuration.opensReadOnly { return .failure(.readOnly("opened read-only by its configuration")) }
        if let code = files.createDirectories() {
            if isReadOnlyErrno(code) { return .failure(.readOnly("cannot create \(files.directory)")) }
            return .failure(.fatal(.directoryUnavailable(path: files.directory, errno: code)))
        }
        var info = stat()
        if stat(files.directory, &info) != 0 || (info.st_mode & S_IFMT) != S_IFDIR {
            return .failure(.fatal(.directoryUnavailable(path: files.directory, errno: ENOTDIR)))
        }
        if access(files.directory, W_OK) != 0 && isReadOnlyErrno(errno) {
            return .failure(.readOnly("\(files.directory) is not writable"))
        }
        let lock: DirectoryLock
        do {
            lock = try DirectoryLock(directory: files.directory)
        } catch {
            guard case .posix(let code) = error else { fatalError() }
            if isReadOnlyErrno(code) { return .failure(.readOnly("cannot create the lock file")) }
            return .failure(.fatal(.directoryUnavailable(path: files.directory, errno: code)))
        }
        let exclusive = lock.tryExclusive()
        defer { lock.share() }

        if forceRebuild { moveAside(indexPath, logger: configuration.logger) }
        switch openIndex(files: files, indexPath: indexPath, configuration: configuration, lock: lock,
                         exclusive: exclusive, rebuilding: forceRebuild) {
        case .failure(.damaged(let reason)):
            // Once: a fresh index is re-derived from the entry files, as a lost one is.
            configuration.logger.log(.warning, "disk cache index damaged (\(reason)); moved aside and rebuilt from the entry files")
            moveAside(indexPath, logger: configuration.logger)
            let retried = openIndex(files: files, indexPath: indexPath, configuration: configuration, lock: lock,
                                    exclusive: exclusive, rebuilding: true)
            if case .failure(.damaged(let again)) = retried {
                return .failure(.fatal(.index(operation: "rebuild", code: 11, message: again)))
            }
            return retried
        case let other:
            return other
        }
    }

    /// Opens the index, checks the key setting and recovers; `.damaged` when the index file
    /// cannot be trusted (the caller moves it aside and tries once more).
    private static func openIndex(
        files: EntryFiles, indexPath: String, configuration: Configuration, lock: DirectoryLock, exclusive: Bool,
        rebuilding: Bool
    ) -> Result<WriterResources, OpenFailure> {
        func failure(_ error: SQLiteError, _ what: String) -> OpenFailure {
            if isDamage(error) { return .damaged(error.message) }
            if error.isReadOnly { return .readOnly("cannot \(what) the index: \(error.message)") }
            // A full file system (SQLite cannot write its journal, WAL or pages): what the
            // directory holds is still served, read-only, and every load goes on from the network.
            if error.isFull { return .readOnly("the file system is full (\(error.message))") }
            return .fatal(DiskCacheError(error))
        }
        let index: EntryIndex
        do {
            index = try EntryIndex(path: indexPath, synchronousFull: configuration.durability == .fsync,
                                   pageLimit: configuration.diskFull.indexPageLimit)
            try index.validateSchema()
        } catch {
            return .failure(failure(error, "open"))
        }

        // A new or rebuilt index adopts the entry files, at this open or (when it fails or
        // cannot recover now) at the next one that can: the need is recorded in the index.
        let reindex: Bool
        do {
            if rebuilding || index.foundVersion == 0 { try index.setSetting("reindex", "pending") }
            reindex = try index.setting("reindex") != nil
        } catch {
            return .failure(failure(error, "write"))
        }

        // Before recovery touches a file: the entries must be under the configured key setting.
        let keyCheck: KeyCheck
        let otherKeyEntriesRemoved: Int
        do {
            (keyCheck, otherKeyEntriesRemoved) = try resolveKeyCheck(index, files: files, configuration: configuration, exclusive: exclusive)
        } catch {
            return .failure(error)
        }

        // Replaying interrupted writes needs the directory alone (another process may be
        // writing those very entries); a holder of the lock is often there only for an instant.
        var alone = exclusive
        if !alone {
            do {
                if try index.hasIntents() { alone = lock.tryExclusive(configuration.exclusiveRetry) }
            } catch {
                return .failure(failure(error, "read"))
            }
        }
        // Adopting the entry files into a new or rebuilt index only adds rows for whole files
        // (files appear by rename), so it runs even when other processes are present:
        // otherwise they would stay unindexed until the next exclusive open.
        if alone || rebuilding || reindex {
            do {
                try recover(index, files: files, temporaries: alone, intents: alone, reindex: reindex,
                            encrypted: configuration.cipher != nil, logger: configuration.logger)
            } catch {
                return .failure(failure(error, "write"))
            }
        }
        return .success(WriterResources(index: index, lock: lock, keyCheck: keyCheck, otherKeyEntriesRemoved: otherKeyEntriesRemoved))
    }

    /// Crash recovery. Temporary files and interrupted writes (`intents`) only when no other
    /// process has the directory open; adoption of the files into a new index (`reindex`) at
    /// any open. `readOnly` (a read-only directory, indexed in memory): files are adopted,
    /// never deleted.
    static func recover(
        _ index: EntryIndex, files: EntryFiles, temporaries cleanTemporaries: Bool, intents replay: Bool = true,
        reindex: Bool, encrypted: Bool, logger: PictorLog, readOnly: Bool = false
    ) throws(SQLiteError) {
        let temporaries = cleanTemporaries ? files.removeTemporaryFiles() : 0
        let interrupted = replay ? try index.replayIntents(files: files) : 0
        var reindexed = 0
        if reindex {
            // A new or rebuilt index: adopt the entry files in the directory. A plain file's
            // metadata is read from its trailer, and a missing format is sniffed from the
            // payload's first 64 bytes; a sealed file is adopted by size and date (its metadata
            // is read from the file on each hit anyway). Plain files that are not entry files,
            // or carry no key binding (never served, see `entry(for:)`), are deleted. The key
            // check already made sure the files are under this setting.
            var rows: [IndexRow] = []
            for file in files.scanEntries() {
                var row = IndexRow(digest: file.digest, size: file.size, created: file.modified,
                                   accessed: file.modified, metadata: DataCacheMetadata())
                if !encrypted {
                    guard let (trailer, size) = files.readTrailer(file.digest),
                          let decoded = EntryContainer.decodeTail(trailer, fileSize: size), decoded.binding != nil else {
                        // A sealed file beyond the key check's probes is left alone: it is
                        // someone's encrypted entry, not a damaged plain one.
                        if !readOnly, !looksSealed(file.digest, files: files) { files.remove(file.digest) }
                        continue
                    }
                    row.size = size
                    row.created = decoded.created
                    // Entries stored without a format get the sniffed one, as when written.
                    let head = decoded.metadata.format == nil ? files.readPrefix(file.digest, count: EntryFiles.sniffPrefixCount) : Data()
                    row.metadata = IndexRow.indexed(decoded.metadata, payload: head.prefix(decoded.payloadCount), encrypted: false)
                }
                rows.append(row)
            }
            try index.connection.transaction { () throws(SQLiteError) in
                for row in rows { try index.upsert(row) }
                try index.setSetting("reindex", nil)
            }
            reindexed = rows.count
        }
        if temporaries + interrupted + reindexed > 0 {
            logger.log(.info, "disk cache recovery: \(temporaries) temporary files deleted, \(interrupted) interrupted entries dropped, \(reindexed) files re-indexed")
        }
    }

    /// How many damaged indexes moved aside are kept for inspection (`3`, the newest): an
    /// index that keeps getting damaged must not fill the disk with copies.
    static let damagedIndexesKept = 3

    /// Moves a damaged index out of the way as `index.sqlite.damaged-<seconds since 1970>`
    /// (kept for inspection; an earlier one is never overwritten), with its `-wal` next to it,
    /// then deletes all but the newest ``damagedIndexesKept`` such copies.
    private static func moveAside(_ indexPath: String, logger: PictorLog) {
        // After the newest one kept: a second in the same second gets `-<n>`, one above the
        // newest, so that the name order stays the age order when older ones are deleted.
        let seconds = Int(Date().timeIntervalSince1970)
        let base = indexPath + ".damaged-" + String(seconds)
        var sequence = damagedIndexes(beside: indexPath).compactMap { path -> Int? in
            guard path == base || path.hasPrefix(base + "-") else { return nil }
            return path == base ? 0 : Int(path.dropFirst(base.count + 1))
        }.max().map { $0 + 1 } ?? 0
        var aside = sequence == 0 ? base : base + "-" + String(sequence)
        while access(aside, F_OK) == 0 {
            sequence += 1
            aside = base + "-" + String(sequence)
        }
        if rename(indexPath, aside) == 0 {
            rename(indexPath + "-wal", aside + "-wal")
            logger.log(.info, "disk cache: the damaged index was kept as \(aside)")
        }
        unlink(indexPath + "-wal")
        unlink(indexPath + "-shm")
        let old = damagedIndexes(beside: indexPath).dropLast(damagedIndexesKept)
        for path in old {
            unlink(path)
            unlink(path + "-wal")
        }
        if !old.isEmpty { logger.log(.info, "disk cache: deleted \(old.count) older damaged indexes") }
    }

    /// The damaged indexes moved aside next to `indexPath` (`index.sqlite.damaged-<seconds>`,
    /// or `…-<seconds>-<n>` for a second one in the same second), oldest first, as paths
    /// without their `-wal`. Names in another form are not Pictor's and are not listed.
    static func damagedIndexes(beside indexPath: String) -> [String] {
        let directory = (indexPath as NSString).deletingLastPathComponent
        let prefix = (indexPath as NSString).lastPathComponent + ".damaged-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var found: [(seconds: Int, sequence: Int, path: String)] = []
        for name in names where name.hasPrefix(prefix) && !name.hasSuffix("-wal") {
            let parts = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let seconds = Int(parts[0]) else { continue }
            guard let sequence = parts.count == 2 ? Int(parts[1]) : 0 else { continue }
            found.append((seconds, sequence, directory + "/" + name))
        }
        return found.sorted { ($0.seconds, $0.sequence) < ($1.seconds, $1.sequence) }.map(\.path)
    }

    /// The configuration with the keys in use now (they change with `rotateKey`).
    var currentConfiguration: Configuration {
        var c = configuration
        c.cipher = currentCipher
        c.keyHashing = currentKeyHashing
        return c
    }

    /// Runs on the writer queue after SQLite reported the index corrupt while running: moves it
    /// aside and rebuilds it from the entry files (each carries its metadata).
    func rebuildIndex() {
        configuration.logger.log(.warning, "disk cache index corrupt while running; moved aside and rebuilt")
        writer.withLock { resources in
            guard let resources else { return }
            switch Self.openResources(files: files, indexPath: indexPath, configuration: currentConfiguration, forceRebuild: true) {
            case .success(let fresh):
                resources.index = fresh.index
                resources.lock = fresh.lock
                resources.keyCheck = fresh.keyCheck
            case .failure(.readOnly(let reason)):
                enterReadOnly(reason: reason)
            case .failure(.fatal(let error)):
                configuration.logger.log(.warning, "disk cache could not rebuild its index: \(error)")
            case .failure(.damaged(let reason)):
                configuration.logger.log(.warning, "disk cache could not rebuild its index: \(reason)")
            }
        }
    }

    /// Runs on the writer queue before a batch: when the directory (or its index) was deleted
    /// while running, recreates it with a new index.
    func reopenIfDirectoryVanished(_ resources: WriterResources) {
        var info = stat()
        guard stat(indexPath, &info) != 0, errno == ENOENT else { return }
        configuration.logger.log(.warning, "disk cache directory \(files.directory) vanished; recreating it")
        switch Self.openResources(files: files, indexPath: indexPath, configuration: currentConfiguration) {
        case .success(let fresh):
            resources.index = fresh.index
            resources.lock = fresh.lock
        case .failure(.readOnly(let reason)):
            disable(reason: reason)
        case .failure(.fatal(let error)):
            configuration.logger.log(.warning, "disk cache could not recreate its directory: \(error)")
        case .failure(.damaged(let reason)):
            configuration.logger.log(.warning, "disk cache could not recreate its directory: \(reason)")
        }
    }
}
