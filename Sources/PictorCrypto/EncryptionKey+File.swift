import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension EncryptionKey {
    /// The largest key file read, in bytes (4,096); a key file is 32 to ~90 bytes.
    static let maximumKeyFileSize = 4096

    /// A key read from `path`: 32 raw bytes, or 64 hex digits, or base64 of 32 bytes (text may
    /// end with a newline). A 32-byte file of hex digits only is read as (too short) hex text.
    ///
    /// The file must be a regular file that group and others can neither read nor write (mode
    /// `0600`, `0400` or stricter); this is checked on the opened descriptor (`fstat`), before
    /// any byte is read. The read buffer is wiped afterwards.
    ///
    /// Every error names the file: its ``CryptoError/operation`` is `"key file '<path>'"`.
    ///
    /// - Parameter path: the key file, for example one written by `pictor cache key generate`.
    /// - Throws: ``CryptoError/Code/keyFilePermissions`` when the mode is looser than `0600`;
    ///   ``CryptoError/Code/keyFileAccess`` when it cannot be opened or read, is not a regular
    ///   file or is larger than 4 kB; otherwise as ``init(encoded:)`` (including
    ///   ``CryptoError/Code/weakKey``).
    public init(contentsOfFile path: String) throws(CryptoError) {
        let operation = "key file '\(path)'"
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.fileError(operation, path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Self.fileError(operation, path) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw CryptoError(.keyFileAccess, operation: operation, message: "not a regular file")
        }
        let loose = info.st_mode & 0o077
        guard loose == 0 else {
            throw CryptoError(.keyFilePermissions, operation: operation, message:
                "mode \(String(info.st_mode & 0o777, radix: 8)) lets group or others access it; run chmod 600 '\(path)'")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.maximumKeyFileSize + 1, alignment: 16)
        defer { wipe(buffer); buffer.deallocate() }
        var total = 0
        while total < buffer.count {
            let n = read(fd, buffer.baseAddress! + total, buffer.count - total)
            if n < 0 {
                if errno == EINTR { continue }
                throw Self.fileError(operation, path)
            }
            if n == 0 { break }
            total += n
        }
        guard total <= Self.maximumKeyFileSize else {
            throw CryptoError(.keyFileAccess, operation: operation, message: "larger than 4 kB; not a key file")
        }
        let contents = UnsafeRawBufferPointer(rebasing: buffer[0..<total])
        let key: EncryptionKey
        do {
            // 32 bytes that are all hex digits are a 128-bit hex key, not 32 raw bytes (a random
            // raw key is all hex digits with probability (22/256)^32).
            if total == Self.byteCount && !contents.allSatisfy(Self.isHexDigit) {
                key = try EncryptionKey(bytes: contents)
            } else {
                key = try EncryptionKey(encoded: String(decoding: contents, as: UTF8.self))
            }
        } catch {
            throw error.naming(operation)
        }
        self = key
    }

    /// Writes the key to a new file at `path` as 64 lowercase hex digits and a newline, with mode
    /// `0600`; the file must not exist yet (`O_EXCL`), and it is flushed (`fsync`) before
    /// returning. This is what `pictor cache key generate --out FILE` calls.
    ///
    /// - Parameter path: where to create the key file; it must not exist.
    /// - Throws: ``CryptoError/Code/keyFileAccess`` when the file exists or cannot be written.
    public func write(toFile path: String) throws(CryptoError) {
        let operation = "key file '\(path)'"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.fileError(operation, path) }
        var ok = false
        defer {
            close(fd)
            if !ok { unlink(path) }
        }
        guard fchmod(fd, 0o600) == 0 else { throw Self.fileError(operation, path) }
        let text = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * Self.byteCount + 1, alignment: 1)
        defer { wipe(text); text.deallocate() }
        let digits = Array("0123456789abcdef".utf8)
        withUnsafeBytes { key in
            for (i, b) in key.enumerated() {
                text[2 * i] = digits[Int(b >> 4)]
                text[2 * i + 1] = digits[Int(b & 0x0F)]
            }
        }
        text[2 * Self.byteCount] = UInt8(ascii: "\n")
        var written = 0
        while written < text.count {
            let n = Glibc.write(fd, text.baseAddress! + written, text.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                throw Self.fileError(operation, path)
            }
            written += n
        }
        guard fsync(fd) == 0 else { throw Self.fileError(operation, path) }
        ok = true
    }

    private static func fileError(_ operation: String, _ path: String) -> CryptoError {
        CryptoError(.keyFileAccess, operation: operation, message: String(cString: strerror(errno)))
    }
}
