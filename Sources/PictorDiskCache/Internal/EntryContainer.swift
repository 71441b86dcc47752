import Foundation
import PictorCore

/// The layout of an entry file (before sealing, when encrypted): the stored bytes first, then
/// the metadata, then a fixed 16-byte footer.
///
/// ```text
/// payload (n bytes) | metadata fields (m bytes) | n: UInt64 LE | m: UInt32 LE | "PDC1"
/// ```
///
/// Metadata fields are `tag: UInt8, length: UInt32 LE, bytes`; unknown tags are skipped, so
/// later versions can add fields. The key binding field (tag 9, the 32 bytes of
/// ``KeyBinding``) ties the file to the key it was stored under; files written before it
/// existed have none and are never served (see ``DiskCache/entry(for:)``). Keeping the metadata in the file makes a read one file read
/// with no index query (the index keeps a copy for listing and limits), and the payload comes
/// first so a read returns it without copying. The footer's lengths must add up to the file
/// size, so a truncated or foreign file is detected.
package enum EntryContainer {
    static let magic = Array("PDC1".utf8)
    package static let footerSize = 16

    private enum Tag: UInt8 {
        case created = 1, expiresAt, etag, lastModified, cacheControl, format, userInfo, vary, keyBinding, varyKey, sharedExpiresAt, encodingQuality, pixelWidth, pixelHeight
    }

    /// The metadata section and footer to write after `payloadCount` bytes of payload, bound to
    /// the key whose ``KeyBinding`` is `binding` (`nil` only to write the layout of files from
    /// before the binding, in tests).
    package static func trailer(payloadCount: Int, metadata m: DataCacheMetadata, created: Double, binding: KeyBinding?) -> Data {
        var out = [UInt8]()
        out.reserveCapacity(64)
        func field(_ tag: Tag, _ bytes: some Collection<UInt8>) {
            out.append(tag.rawValue)
            append(UInt32(bytes.count), to: &out)
            out.append(contentsOf: bytes)
        }
        func double(_ tag: Tag, _ value: Double) {
            var bytes = [UInt8]()
            append(value.bitPattern, to: &bytes)
            field(tag, bytes)
        }
        double(.created, created)
        if let v = m.expiresAt { double(.expiresAt, v.timeIntervalSince1970) }
        if let v = m.etag { field(.etag, Array(v.utf8)) }
        if let v = m.lastModified { field(.lastModified, Array(v.utf8)) }
        if let v = m.cacheControl { field(.cacheControl, Array(v.utf8)) }
        if let v = m.format { field(.format, Array(v.rawValue.utf8)) }
        if let v = m.userInfo { field(.userInfo, v) }
        if let v = m.vary { field(.vary, Array(v.utf8)) }
        if let v = m.varyKey { field(.varyKey, Array(v.utf8)) }
        if let v = m.sharedExpiresAt { double(.sharedExpiresAt, v.timeIntervalSince1970) }
        if let v = m.encodingQuality { double(.encodingQuality, Double(v)) }
        if let v = m.pixelWidth { double(.pixelWidth, Double(v)) }
        if let v = m.pixelHeight { double(.pixelHeight, Double(v)) }
        if let binding { field(.keyBinding, binding.bytes) }
        let metadataCount = out.count
        append(UInt64(payloadCount), to: &out)
        append(UInt32(metadataCount), to: &out)
        out.append(contentsOf: magic)
        return Data(out)
    }

    /// A stored count (a quality, a side in pixels) when it is a whole number in 0...2^31.
    private static func count(_ value: Double) -> Int? {
        value >= 0 && value <= 2_147_483_648 && value.rounded() == value ? Int(value) : nil
    }

    /// A decoded entry file.
    package struct Decoded {
        /// The stored bytes (sharing the file buffer; `startIndex == 0`).
        package var payload: Data
        package var metadata: DataCacheMetadata
        /// When the entry was stored, seconds since 1970.
        package var created: Double
        /// The key the entry was stored under; `nil` in files written before the binding.
        package var binding: KeyBinding?
    }

    /// Opens a whole entry file with `cipher` (associated data: the digest, UTF-8) when there
    /// is one, then decodes it; `nil` when it is not intact.
    package static func open(_ file: Data, digest: String, cipher: (any DataCipher)?) -> Decoded? {
        guard let cipher else { return decode(file) }
        guard let plain = try? cipher.open(file, associatedData: Data(digest.utf8)) else { return nil }
        return decode(plain)
    }

    /// Decodes a whole entry file; `nil` when it is truncated, foreign or malformed.
    package static func decode(_ file: Data) -> Decoded? {
        guard let tail = decodeTail(file, fileSize: file.count) else { return nil }
        return Decoded(payload: file.prefix(tail.payloadCount), metadata: tail.metadata, created: tail.created, binding: tail.binding)
    }

    /// The metadata section and footer size for a file, read from its last 16 bytes; `nil` when
    /// the footer is not ours or does not fit the file size.
    package static func trailerSize(footer: Data, fileSize: Int) -> Int? {
        guard footer.count == footerSize, Array(footer.suffix(4)) == magic else { return nil }
        let metadataCount = footer.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 8, as: UInt32.self).littleEndian) }
        return metadataCount + footerSize <= fileSize ? metadataCount + footerSize : nil
    }

    /// Parses the metadata from the last bytes of a file of `fileSize` bytes (`tail` must hold
    /// at least the metadata section and the footer), without the payload.
    package static func decodeTail(_ tail: Data, fileSize: Int) -> Tail? {
        tail.withUnsafeBytes { raw -> Tail? in
            let total = raw.count
            guard total >= footerSize, total <= fileSize, Array(raw[(total - 4)...]) == magic else { return nil }
            let payloadCount = raw.loadUnaligned(fromByteOffset: total - 16, as: UInt64.self).littleEndian
            let metadataCount = Int(raw.loadUnaligned(fromByteOffset: total - 8, as: UInt32.self).littleEndian)
            guard payloadCount <= UInt64(fileSize), Int(payloadCount) + metadataCount + footerSize == fileSize,
                  metadataCount + footerSize <= total else { return nil }
            var metadata = DataCacheMetadata()
            var created = 0.0
            var binding: KeyBinding?
            var offset = total - footerSize - metadataCount
            let end = total - footerSize
            while offset < end {
                guard end - offset >= 5 else { return nil }
                let tag = raw[offset]
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + 1, as: UInt32.self).littleEndian)
                offset += 5
                guard length <= end - offset else { return nil }
                let bytes = UnsafeRawBufferPointer(rebasing: raw[offset..<offset + length])
                let text = { String(decoding: bytes, as: UTF8.self) }
                let number = { bytes.count == 8 ? Double(bitPattern: bytes.loadUnaligned(as: UInt64.self).littleEndian) : nil }
                switch Tag(rawValue: tag) {
                case .created?: created = number() ?? 0
                case .expiresAt?: metadata.expiresAt = number().map(Date.init(timeIntervalSince1970:))
                case .etag?: metadata.etag = text()
                case .lastModified?: metadata.lastModified = text()
                case .cacheControl?: metadata.cacheControl = text()
                case .format?: metadata.format = ImageFormat(rawValue: text())
                case .userInfo?: metadata.userInfo = Data(bytes)
                case .vary?: metadata.vary = text()
                case .varyKey?: metadata.varyKey = text()
                case .sharedExpiresAt?: metadata.sharedExpiresAt = number().map(Date.init(timeIntervalSince1970:))
                case .encodingQuality?: metadata.encodingQuality = number().flatMap(Self.count)
                case .pixelWidth?: metadata.pixelWidth = number().flatMap(Self.count)
                case .pixelHeight?: metadata.pixelHeight = number().flatMap(Self.count)
                case .keyBinding?: binding = KeyBinding(raw: bytes)
                case nil: break
                }
                offset += length
            }
            return Tail(payloadCount: Int(payloadCount), metadata: metadata, created: created, binding: binding)
        }
    }

    /// What the trailer of an entry file says, without the payload.
    package struct Tail {
        package var payloadCount: Int
        package var metadata: DataCacheMetadata
        /// When the entry was stored, seconds since 1970.
        package var created: Double
        /// The key the entry was stored under; `nil` in files written before the binding.
        package var binding: KeyBinding?
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }
}
