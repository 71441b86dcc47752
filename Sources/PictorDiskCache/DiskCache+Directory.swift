import Foundation

extension DiskCache {
    /// Whether `directory` may be opened as a cache without adopting someone else's files: it
    /// is missing or empty, it holds a Pictor cache, or everything in it is Pictor's own layout.
    ///
    /// Pictor's layout is `lock`, `tmp/`, `index.sqlite` (with `-wal`, `-shm`, `-journal`, and
    /// damaged copies moved aside as `index.sqlite.damaged-…` or `index.sqlite.corrupt`) and
    /// entry files named by 1–64 lowercase hex characters.
    ///
    /// - A directory with Pictor's index (an SQLite database whose schema, in the file or its
    ///   WAL, has Pictor's `entries` and `intents` tables), or with Pictor's `lock` file and its
    ///   `tmp/` folder (what another process creating the cache makes first), is a cache even
    ///   when other files sit beside them (`lost+found`, `.DS_Store`, a README, a copy of the
    ///   index): the cache never adopts, changes or deletes a file whose name is not a digest.
    /// - Without those, a directory of only Pictor's names is recognised when it has an index,
    ///   a lock file, or an entry file whose footer is Pictor's (a plain cache whose index and
    ///   lock were deleted), and when it holds nothing but `tmp/` (a cache being created).
    /// - A folder of other files with no Pictor index or lock (`~/Downloads`, even with
    ///   digest-named files in it) is not: opening it would treat its digest-named files as
    ///   entries.
    ///
    /// Reads names, at most 64 kB of the index and of its WAL, and at most the last bytes of one
    /// file per name; writes nothing.
    ///
    /// - Parameter directory: the folder to look at; it may not exist.
    public static func looksLikeCacheDirectory(_ directory: URL) -> Bool {
        let path = directory.standardizedFileURL.path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path), !names.isEmpty else { return true }
        let present = Set(names)
        func type(_ name: String) -> mode_t? {
            var info = stat()
            return stat(path + "/" + name, &info) == 0 ? info.st_mode & S_IFMT : nil
        }
        // `tmp` that is not a folder is not Pictor's: the cache could not write through it.
        if present.contains("tmp"), type("tmp") != S_IFDIR { return false }
        let hasTemporaryDirectory = present.contains("tmp")
        let hasLock = present.contains("lock") && type("lock") == S_IFREG
        if hasLock && hasTemporaryDirectory { return true }
        if present.contains("index.sqlite"), type("index.sqlite") == S_IFREG, isPictorIndex(path + "/index.sqlite") { return true }

        var marked = false
        var digests: [String] = []
        for name in names {
            switch name {
            case "lock", "index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "index.sqlite-journal", "index.sqlite.corrupt":
                marked = true
            case "tmp":
                break
            default:
                if name.hasPrefix("index.sqlite.damaged-") {
                    marked = true
                } else if EntryFiles.looksLikeDigest(name) {
                    digests.append(name)
                } else {
                    return false
                }
            }
        }
        // Nothing but `tmp/`: another process is creating the cache (it makes `tmp/` first).
        if marked || digests.isEmpty { return true }
        let files = EntryFiles(directory: path)
        return digests.contains { digest in
            guard let (trailer, size) = files.readTrailer(digest) else { return false }
            return EntryContainer.decodeTail(trailer, fileSize: size) != nil
        }
    }

    /// Whether `path` is an SQLite database with Pictor's schema: the SQLite header, and the
    /// `CREATE TABLE` statements of Pictor's `entries` and `intents` tables in the schema page,
    /// which is in the file or, before a checkpoint, in the first frames of its WAL. Reads at
    /// most 64 kB of each.
    static func isPictorIndex(_ path: String) -> Bool {
        func prefix(_ path: String) -> Data? {
            guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
            defer { try? handle.close() }
            return try? handle.read(upToCount: 64 * 1024)
        }
        guard let database = prefix(path), database.starts(with: Data("SQLite format 3\0".utf8)) else { return false }
        let tables = ["CREATE TABLE entries(", "CREATE TABLE intents("].map { Data($0.utf8) }
        return [database, prefix(path + "-wal") ?? Data()].contains { bytes in
            tables.allSatisfy { bytes.range(of: $0) != nil }
        }
    }
}
