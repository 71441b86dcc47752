import Foundation
import PictorCore
import PictorCrypto

extension DiskCache {
    /// One entry as listed for tools (`pictor cache list`): never the key or a URL.
    public struct EntryInfo: Sendable, Hashable {
        /// The key digest, which is also the file name (64 hex characters by default).
        public var digest: String
        /// The byte size of the entry file (the envelope when encrypted).
        public var size: Int
        /// When the entry was stored.
        public var created: Date
        /// When it was last read or written (batched; see ``DiskCache/flush()``).
        public var lastAccess: Date
        /// When it stops being fresh under HTTP rules, if known.
        public var expiresAt: Date?
        /// The image format: as stored, or sniffed from the bytes when stored without one; `nil`
        /// when unknown, and always `nil` for an encrypted cache (its index does not record the
        /// format, which stays in the sealed file).
        public var format: ImageFormat?

        /// Creates an entry description (for tools and their tests).
        public init(digest: String, size: Int, created: Date, lastAccess: Date, expiresAt: Date? = nil, format: ImageFormat? = nil) {
            self.digest = digest
            self.size = size
            self.created = created
            self.lastAccess = lastAccess
            self.expiresAt = expiresAt
            self.format = format
        }
    }

    /// What ``DiskCache/verify()`` found.
    public struct VerificationReport: Sendable, Hashable {
        /// Entries in the index when the check started.
        public var checked = 0
        /// Entries that read back whole (and opened, when encrypted).
        public var valid = 0
        /// Index rows whose file was missing; the rows were dropped.
        public var missingFiles = 0
        /// Entries that were truncated or malformed, failed to open, had another size than the
        /// index's, did not match their recorded format, or carried no key binding (written
        /// before entries recorded their key); they were removed.
        public var corrupt = 0
        /// Files in the directory with no index row (nor a write in flight); they were deleted.
        public var orphanFiles = 0
        /// Digests of the removed corrupt entries.
        public var corruptDigests: [String] = []

        /// Creates a report; every count defaults to zero.
        public init(checked: Int = 0, valid: Int = 0, missingFiles: Int = 0, corrupt: Int = 0,
                    orphanFiles: Int = 0, corruptDigests: [String] = []) {
            self.checked = checked
            self.valid = valid
            self.missingFiles = missingFiles
            self.corrupt = corrupt
            self.orphanFiles = orphanFiles
            self.corruptDigests = corruptDigests
        }
    }

    /// The entries, least recently used first (the order trimming removes them), after staged
    /// writes are done.
    ///
    /// - Parameter limit: The most entries returned; `nil` (the default) for all.
    /// - Complexity: O(n) in the entries returned (an ordered index scan); meant for tools such
    ///   as `pictor cache list`, not for the request path.
    public func entries(limit: Int? = nil) -> [EntryInfo] {
        queue.sync {
            drain()
            return writer.withLock { resources in
                var result: [EntryInfo] = []
                try? resources?.index.forEachRow(limit: limit) { row in
                    result.append(EntryInfo(
                        digest: row.digest, size: row.size, created: Date(timeIntervalSince1970: row.created),
                        lastAccess: Date(timeIntervalSince1970: row.accessed), expiresAt: row.metadata.expiresAt,
                        format: row.metadata.format))
                }
                return result
            }
        }
    }

    /// Re-reads every entry and removes the bad ones: rows without a file, files of another
    /// size than the index says, files that are truncated or malformed or fail to open
    /// (encrypted), files stored under another entry's name (plain caches with the default
    /// ``/PictorCrypto/SHA256KeyHashing`` names; a sealed file opens only under its own name), bytes that no
    /// longer sniff as their recorded format, and files without a row. Waits for staged
    /// writes first. A read-only cache reports the same and removes nothing.
    ///
    /// - Complexity: O(n) file reads plus one directory scan; meant for `pictor cache verify`.
    @discardableResult
    public func verify() -> VerificationReport {
        queue.sync {
            drain()
            return writer.withLock { resources in
                guard let index = resources?.index else { return VerificationReport() }
                return verify(index)
            }
        }
    }

    private func verify(_ index: EntryIndex) -> VerificationReport {
        var report = VerificationReport()
        var rows: [IndexRow] = []
        try? index.forEachRow { rows.append($0) }
        report.checked = rows.count
        var missing: [String] = []
        for row in rows {
            switch files.read(row.digest) {
            case .missing, .failed:
                missing.append(row.digest)
            case .data(let bytes):
                if isIntact(bytes, row) {
                    report.valid += 1
                } else {
                    report.corruptDigests.append(row.digest)
                }
            }
        }
        report.missingFiles = missing.count
        report.corrupt = report.corruptDigests.count
        // A read-only cache reports what it would remove, and removes nothing.
        let readOnly = isReadOnly
        if !readOnly { _ = evict(missing + report.corruptDigests, from: index) }

        var known = Set(rows.map(\.digest))
        known.formUnion((try? index.intents()) ?? [])
        for file in files.scanEntries() where !known.contains(file.digest) {
            // Another process may have renamed the file in place and not yet committed its row.
            if (try? index.contains(file.digest)) == true { continue }
            if readOnly || files.remove(file.digest) { report.orphanFiles += 1 }
        }
        if !readOnly {
            state.withLock { s in
                s.statistics.missingFilesRemoved += report.missingFiles
                s.statistics.corruptEntriesRemoved += report.corrupt
            }
        }
        if report.corrupt + report.missingFiles + report.orphanFiles > 0 {
            configuration.logger.log(.warning, "disk cache verify: \(report.corrupt) corrupt, \(report.missingFiles) missing, \(report.orphanFiles) orphan files "
                + (readOnly ? "found (read-only: nothing removed)" : "removed"))
        }
        return report
    }

    private func isIntact(_ bytes: Data, _ row: IndexRow) -> Bool {
        // Without the key, verify cannot check which key a file is bound to, but a file with
        // no binding at all can never be served: it goes too.
        guard bytes.count == row.size, let decoded = decode(bytes, digest: row.digest), let binding = decoded.binding else { return false }
        // A plain cache with the default names: the name is SHA-256 of the key, and so is the
        // binding, so a file under another entry's name (swapped, copied, renamed) shows
        // without the key. Sealed files are bound to their name by the cipher already.
        if currentCipher == nil, currentKeyHashing is SHA256KeyHashing, Hex.encode(binding.bytes) != row.digest { return false }
        if let format = decoded.metadata.format, ImageFormat.sniff(decoded.payload) != format { return false }
        return true
    }
}
