import Foundation

/// The entry files of a cache directory, through POSIX calls only.
///
/// Layout: `<directory>/<digest>` for entries, `<directory>/tmp/` for files being written.
/// Paths are `String`s: `URL(fileURLWithPath:)` stats the path (performance.md §4.4) and
/// Foundation's atomic write fsyncs every file (§4.1).
struct EntryFiles: Sendable {
    /// The cache directory path, without a trailing slash.
    let directory: String
    /// The `errno` every write fails with, standing for a full file system in tests
    /// (`DiskCache.DiskFull`); `nil` in use.
    var injectedWriteErrno: Int32? = nil
    /// The directory for temporary files, inside ``directory`` (same file system, so `rename`
    /// is atomic).
    var temporaryDirectory: String { directory + "/tmp" }

    /// How a write ended.
    enum WriteFailure: Error {
        /// `errno` from the failing call (`ENOSPC`, `EROFS`, `EACCES`, `ENOENT`, …).
        case posix(Int32)
    }

    /// How a read ended.
    enum ReadResult {
        case data(Data)
        case missing
        case failed(Int32)
    }

    func path(for digest: String) -> String { directory + "/" + digest }

    /// Creates the directory and its `tmp/` subdirectory when missing.
    func createDirectories() -> Int32? {
        for path in [directory, temporaryDirectory] {
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                // Parents may be missing too.
                if errno == ENOENT, (try? FileManager.default.createDirectory(
                    atPath: path, withIntermediateDirectories: true)) != nil { continue }
                return errno
            }
        }
        return nil
    }

    /// Reads the whole entry file into fresh memory (no zero-fill), trusting `fstat` for its
    /// size: entry files are replaced by `rename`, never written in place, so the open file
    /// cannot grow (a short read returns what is there, and the footer check then fails).
    func read(_ digest: String) -> ReadResult {
        let fd = open(path(for: digest), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT ? .missing : .failed(errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failed(errno) }
        let size = max(Int(info.st_size), 0)
        guard let buffer = malloc(max(size, 1)) else { return .failed(ENOMEM) }
        var count = 0
        while count < size {
            let n = Foundation.read(fd, buffer + count, size - count)
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                free(buffer)
                return .failed(code)
            }
            if n == 0 { break }
            count += n
        }
        return .data(Data(bytesNoCopy: buffer, count: count, deallocator: .free))
    }

    /// The last bytes of a plain entry file that hold its metadata and footer (two `pread`s,
    /// never the payload), with the file size; `nil` when missing or not an entry file.
    func readTrailer(_ digest: String) -> (trailer: Data, fileSize: Int)? {
        let fd = open(path(for: digest), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        func readAt(_ offset: Int, _ count: Int) -> Data? {
            guard offset >= 0, count >= 0 else { return nil }
            var bytes = [UInt8](repeating: 0, count: count)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return n == count ? Data(bytes) : nil
        }
        guard size >= EntryContainer.footerSize, let footer = readAt(size - EntryContainer.footerSize, EntryContainer.footerSize),
              let trailerSize = EntryContainer.trailerSize(footer: footer, fileSize: size),
              let trailer = readAt(size - trailerSize, trailerSize) else { return nil }
        return (trailer, size)
    }

    /// Writes `parts` (concatenated) to a new temporary file, optionally fsyncs it, and renames
    /// it onto the entry's name, so readers see the old file or the new one, never a part.
    func write(_ parts: [Data], to digest: String, fsync durable: Bool) -> Result<Void, WriteFailure> {
        if let injectedWriteErrno { return .failure(.posix(injectedWriteErrno)) }
        let temporary = temporaryDirectory + "/" + digest + "." + String(getpid()) + "." + String(UInt32.random(in: .min ... .max), radix: 16)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return .failure(.posix(errno)) }
        var failure: Int32?
        for part in parts where failure == nil {
            part.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        return
                    }
                    offset += n
                }
            }
        }
        if failure == nil, durable, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == nil { failure = errno }
        if failure == nil, rename(temporary, path(for: digest)) != 0 { failure = errno }
        if let failure {
            unlink(temporary)
            return .failure(.posix(failure))
        }
        if durable { syncDirectory() }
        return .success(())
    }

    /// Bytes of a payload enough to sniff its format (`64`: ``ImageFormat/sniff(_:)-(Data)``
    /// reads ISO BMFF `ftyp` brands, for AVIF and HEIC, from at most the first 64 bytes).
    static let sniffPrefixCount = 64

    /// Up to `count` bytes from the start of an entry file (one `pread`); empty when missing.
    func readPrefix(_ digest: String, count: Int) -> Data {
        let fd = open(path(for: digest), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return Data() }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, 0) }
        return n > 0 ? Data(bytes.prefix(n)) : Data()
    }

    /// Removes an entry file; `true` when it existed.
    @discardableResult
    func remove(_ digest: String) -> Bool { unlink(path(for: digest)) == 0 }

    /// Whether an entry file exists (one `stat`).
    func exists(_ digest: String) -> Bool {
        var info = stat()
        return stat(path(for: digest), &info) == 0
    }

    /// The byte size of an entry file, or `nil` when it does not exist.
    func size(of digest: String) -> Int? {
        var info = stat()
        return stat(path(for: digest), &info) == 0 ? Int(info.st_size) : nil
    }

    /// Deletes every file in `tmp/` (only when no other process has the cache open).
    func removeTemporaryFiles() -> Int {
        var removed = 0
        for name in names(in: temporaryDirectory) where unlink(temporaryDirectory + "/" + name) == 0 { removed += 1 }
        return removed
    }

    /// The entry files present (names that look like digests), with their sizes and
    /// modification times: a directory scan, used only by recovery and ``DiskCache/verify()``.
    func scanEntries() -> [(digest: String, size: Int, modified: Double)] {
        names(in: directory).compactMap { name in
            guard Self.looksLikeDigest(name) else { return nil }
            var info = stat()
            guard stat(path(for: name), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            return (name, Int(info.st_size), modified)
        }
    }

    /// Lowercase hex, 1–64 characters: what ``CacheKeyHashing`` produces.
    static func looksLikeDigest(_ name: String) -> Bool {
        let utf8 = name.utf8
        return !utf8.isEmpty && utf8.count <= 64 && utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private func names(in path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var result: [String] = []
        // The name is read in place, up to its NUL. Not `entry.pointee.d_name`: that copies all
        // 256 bytes of the array, but glibc packs records of their own length (`d_reclen`)
        // into its buffer, so a short name at the buffer's end is followed by no more bytes.
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(dir) {
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { result.append(name) }
        }
        return result
    }

    private func syncDirectory() {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
