import Foundation

extension DiskCache {
    /// Whether `directory` may be opened as a cache without adopting someone else's files: it
    /// is missing or empty, or everything in it is Pictor's own layout.
    ///
    /// Pictor's layout is `lock`, `tmp/`, `index.sqlite` (with `-wal`, `-shm`, `-journal`, and damaged
    /// copies moved aside as `index.sqlite.damaged-…` or `index.sqlite.corrupt`) and entry
    /// files named by 1–64 lowercase hex characters. A directory of only such names is
    /// recognised when it has an index, a lock file (any process that opened it made one, so
    /// a cache being created by another process right now is recognised), or an entry file
    /// whose footer is Pictor's (plain entries; a folder whose index was deleted). A folder
    /// with any other file (`~/Downloads`) is not: opening it would treat its digest-named
    /// files as entries.
    ///
    /// Reads names and at most the last bytes of one file per name; writes nothing.
    ///
    /// - Parameter directory: the folder to look at; it may not exist.
    public static func looksLikeCacheDirectory(_ directory: URL) -> Bool {
        let path = directory.standardizedFileURL.path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path), !names.isEmpty else { return true }
        var marked = false
        var digests: [String] = []
        for name in names {
            switch name {
            case "lock", "index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "index.sqlite-journal", "index.sqlite.corrupt":
                marked = true
            case "tmp":
                var info = stat()
                guard stat(path + "/tmp", &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return false }
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
}
