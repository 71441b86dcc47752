import Foundation
import PictorCore
import PictorCrypto

extension DiskCache {
    /// What the entry files say about the key setting, when the index has no record of it.
    enum DerivedKeyCheck: Equatable {
        /// No entry files: any setting fits.
        case empty
        /// An entry file is a plain entry, or opened under the configured cipher.
        case known(KeyCheck)
        /// Entry files exist but none is plain or opens under the configured cipher: they are
        /// sealed under a key we do not have (or all damaged); never guessed.
        case unknown
    }

    /// The most entry files tried when deriving the setting from the files (`64`): one plain
    /// or openable file settles it; 64 damaged ones in a row mean we cannot tell.
    static let keyCheckProbeLimit = 64

    /// Derives the setting from the entry files, for an index that has no record (new,
    /// rebuilt after corruption, or written by version 1), or to test a record. A file is plain
    /// when its footer and metadata parse (a sealed file ends in a random tag, so it does not);
    /// it is under the configured cipher when it opens with it (authenticated, bound to its
    /// name); it is sealed when it starts with the envelope's magic (`PXCE`).
    ///
    /// Plain files are evidence of a plain cache only when no sealed file is among those probed:
    /// a plain file copied into an encrypted cache must not make it plain, which would delete
    /// the sealed entries as foreign files. Mixed evidence is `unknown`: never guessed.
    static func deriveKeyCheck(files: EntryFiles, cipher: (any DataCipher)?) -> DerivedKeyCheck {
        let entries = files.scanEntries()
        if entries.isEmpty { return .empty }
        var plain = false, sealed = false
        for file in entries.prefix(keyCheckProbeLimit) {
            if let (trailer, size) = files.readTrailer(file.digest), EntryContainer.decodeTail(trailer, fileSize: size) != nil {
                plain = true
                continue
            }
            if let cipher, case .data(let bytes) = files.read(file.digest),
               EntryContainer.open(bytes, digest: file.digest, cipher: cipher) != nil {
                return .known(KeyCheck(cipher))
            }
            if looksSealed(file.digest, files: files) { sealed = true }
        }
        return plain && !sealed ? .known(KeyCheck(nil)) : .unknown
    }

    /// Whether an entry file starts like an AES-GCM envelope (``AESGCMCipher/magic``): a
    /// sealed entry, never a plain one (a plain entry starts with its image bytes).
    static func looksSealed(_ digest: String, files: EntryFiles) -> Bool {
        Array(files.readPrefix(digest, count: AESGCMCipher.magic.count)) == AESGCMCipher.magic
    }

    /// Makes the index's key check agree with `configuration.cipher`, or fails; runs in
    /// `openResources` before recovery touches any file.
    ///
    /// - No record (new index, rebuilt index, version-1 index): the setting is derived from the
    ///   entry files (``deriveKeyCheck(files:cipher:)``) and recorded (first writer wins when
    ///   two processes create the cache at once). Files that cannot be attributed are never
    ///   adopted under a guess: opening fails as for a mismatch.
    /// - A record that differs, even in an empty cache (a cleared or rotated cache keeps its
    ///   key): ``DiskCache/KeyMismatchPolicy/removeEntries`` removes every entry and adopts
    ///   the configured setting; otherwise ``DiskCacheError/keyMismatch(path:_:)``.
    ///
    /// - Returns: The setting now recorded (the configured one), and the number of entries
    ///   removed because they were under another setting (only under
    ///   ``DiskCache/KeyMismatchPolicy/removeEntries``).
    static func resolveKeyCheck(
        _ index: EntryIndex, files: EntryFiles, configuration: Configuration, exclusive: Bool
    ) throws(OpenFailure) -> (keyCheck: KeyCheck, removed: Int) {
        let configured = KeyCheck(configuration.cipher)
        func fail(_ kind: DiskCacheError.KeyMismatch) -> OpenFailure { .fatal(.keyMismatch(path: files.directory, kind)) }
        do {
            var recorded = try index.keyCheck()
            var unattributable = false
            if recorded == nil {
                switch deriveKeyCheck(files: files, cipher: configuration.cipher) {
                case .empty: try index.connection.transaction { () throws(SQLiteError) in try index.setKeyCheck(configured, replacing: false) }
                case .known(let found): try index.connection.transaction { () throws(SQLiteError) in try index.setKeyCheck(found, replacing: false) }
                case .unknown: unattributable = true
                }
                recorded = try index.keyCheck()
            }
            if let recorded, !recorded.isWellFormed {
                throw OpenFailure.damaged("its key record is not one this build writes")
            }
            let mismatch: DiskCacheError.KeyMismatch? = if let recorded {
                recorded.mismatch(configured: configured)
            } else if unattributable {
                configured.isEncrypted ? .anotherKey : .keyRequired
            } else {
                nil
            }
            // A recorded setting binds even an empty cache: after `removeAll` or `rotateKey`, the
            // old key (or no key) must not quietly take the directory back.
            guard let mismatch else { return (configured, 0) }
            // A record is evidence, not proof: when the entry files themselves are under the
            // configured setting (plain files that parse, or files that open and authenticate
            // under the configured key) and no clear or rotation is half done (no intents), the
            // record is what is wrong. A damaged record never locks the user out, nor costs
            // the entries under a removal policy.
            if let recorded, try index.intents(limit: 1).isEmpty,
               case .known(let found) = deriveKeyCheck(files: files, cipher: configuration.cipher), found == configured {
                throw OpenFailure.damaged("its key record says the entries are \(recorded.isEncrypted ? "encrypted" : "plain") but the entry files are \(configured.isEncrypted ? "sealed under the configured key" : "plain")")
            }
            guard configuration.keyMismatchPolicy == .removeEntries else { throw fail(mismatch) }
            configuration.logger.log(.warning, "disk cache \(files.directory) was written under another key setting; removing its entries")
            // Counted before anything goes: the entries are the files, and the rows whose file
            // a crash left missing (a rebuilt index lists none, an intact one lists them all).
            var removed = Set(files.scanEntries().map(\.digest))
            try index.forEachRow { removed.insert($0.digest) }
            try index.connection.transaction { () throws(SQLiteError) in
                try index.clearAllIntoIntents()
                try index.setKeyCheck(configured, replacing: true)
            }
            try index.replayIntents(files: files)
            // A rebuilt index does not list the files yet.
            for file in files.scanEntries() { files.remove(file.digest) }
            return (configured, removed.count)
        } catch let error as SQLiteError {
            if isDamage(error) { throw .damaged(error.message) }
            if error.isReadOnly { throw .readOnly("cannot write the index: \(error.message)") }
            throw .fatal(DiskCacheError(error))
        } catch let error as OpenFailure {
            throw error
        } catch {
            throw .fatal(.index(operation: "key check", code: 0, message: "\(error)"))
        }
    }
}
