import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads `file:` and `data:` URLs for ``DataLoader``: local bytes, with no transport, no
/// redirect and no HTTP size cap (a 100 MB local PNG can be thumbnailed; the decoder's
/// pixel-count guard still applies).
enum LocalDataLoader {
    /// Chunk size for `file://` reads, in bytes (1 MiB).
    static let fileChunkSize = 1024 * 1024

    /// Reads a `file://` URL in chunks, checking for cancellation between them.
    ///
    /// - Throws: ``DataLoadingError/transport(code:message:)`` for a missing, unreadable or
    ///   non-regular file (a FIFO would block forever); `CancellationError`.
    static func loadFile(
        _ url: URL, progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> (Data, URLResponse) {
        let path = url.path
        // Only regular files: opening a FIFO with no writer (or a device) would block forever,
        // outside Pictor's deadline.
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw DataLoadingError.transport(code: URLError.fileIsDirectory.rawValue, message: "not a regular file")
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            let exists = FileManager.default.fileExists(atPath: path)
            throw DataLoadingError.transport(
                code: exists ? URLError.noPermissionsToReadFile.rawValue : URLError.fileDoesNotExist.rawValue,
                message: exists ? "file cannot be read" : "file does not exist")
        }
        defer { try? handle.close() }
        let total = Int64((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? -1)
        progress?(TransferProgress(completed: 0, total: total))
        var body = Data()
        if total > 0 { body.reserveCapacity(Int(total)) }
        while true {
            try Task.checkCancellation()
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: fileChunkSize) ?? Data()
            } catch {
                throw DataLoadingError.transport(code: URLError.cannotOpenFile.rawValue, message: "file read failed")
            }
            if chunk.isEmpty { break }
            body.append(chunk)
            progress?(TransferProgress(completed: Int64(body.count), total: total))
        }
        return (body, URLResponse(url: url, mimeType: nil, expectedContentLength: Int(total), textEncodingName: nil))
    }

    /// Decodes a `data:` URL (RFC 2397): `data:[<mediatype>][;base64],<data>`.
    ///
    /// - Throws: ``DataLoadingError/malformedDataURL`` without a comma or with a payload that
    ///   does not decode.
    static func loadDataURL(
        _ url: URL, progress: (@Sendable (TransferProgress) -> Void)?
    ) throws -> (Data, URLResponse) {
        let string = url.absoluteString
        guard let comma = string.firstIndex(of: ",") else { throw DataLoadingError.malformedDataURL }
        let header = string[string.index(string.startIndex, offsetBy: 5)..<comma]
        let payload = String(string[string.index(after: comma)...])
        let parameters = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let isBase64 = parameters.last?.lowercased() == "base64"
        let mimeType = parameters.first.flatMap { $0.contains("/") ? $0 : nil } ?? "text/plain"
        let data: Data?
        let bytes = percentDecoded(payload)
        if isBase64 {
            data = decodeBase64(String(decoding: bytes, as: UTF8.self))
        } else {
            data = bytes
        }
        guard let data else { throw DataLoadingError.malformedDataURL }
        let total = Int64(data.count)
        progress?(TransferProgress(completed: total, total: total))
        return (data, URLResponse(url: url, mimeType: mimeType, expectedContentLength: data.count, textEncodingName: nil))
    }

    /// WHATWG URL "percent-decode": each `%` followed by two hex digits becomes that byte;
    /// anything else, a lone `%` included, is kept as it is. Foundation's
    /// `removingPercentEncoding` gives up on a whole payload that mixes escapes with characters
    /// browsers accept raw (`<svg%20xmlns="…">`), and only returns text.
    static func percentDecoded(_ text: String) -> Data {
        let utf8 = Array(text.utf8)
        var out = Data(capacity: utf8.count)
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x41...0x46: c - 0x41 + 10
            case 0x61...0x66: c - 0x61 + 10
            default: nil
            }
        }
        var i = 0
        while i < utf8.count {
            if utf8[i] == 0x25, i + 2 < utf8.count, let high = hex(utf8[i + 1]), let low = hex(utf8[i + 2]) {
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(utf8[i])
                i += 1
            }
        }
        return out
    }

    /// Forgiving base64 (WHATWG "forgiving-base64 decode"): ASCII whitespace is skipped and
    /// missing `=` padding is added; any other character outside the alphabet is an error (`nil`).
    static func decodeBase64(_ text: String) -> Data? {
        var compact = text.filter { !" \t\n\r\u{0C}".contains($0) }
        if compact.count % 4 == 1 { return nil }
        if !compact.hasSuffix("=") { compact += String(repeating: "=", count: (4 - compact.count % 4) % 4) }
        return Data(base64Encoded: compact)
    }
}
