import Foundation

/// The frames a GIF or WebP holds completely, read from the container without decoding, and
/// the file cut after the last of them and closed again ("repaired").
///
/// A GIF that ends right after a complete frame, lacking only its trailer byte (`0x3B`), is
/// whole, as browsers show it: it is not truncated, and its repaired form has the trailer back
/// (decoders such as libvips' refuse a GIF without one).
///
/// A decoder given a truncated animation would otherwise present a partly decoded frame (rows
/// or blocks filled with the background) as if it were whole; decoding the repaired file gives
/// exactly the complete frames and nothing else.
package struct AnimationStructure {
    /// Whether the data ends before the file does.
    package var isTruncated: Bool
    /// Frames whose data is entirely present.
    package var completeFrames: Int
    /// The bytes to decode instead of the data: up to the end of the last complete frame,
    /// closed as a valid file (a truncated file), or a GIF that lacks only its trailer with it
    /// restored (a whole one); `nil` when the data is decoded as it is, or when no frame is
    /// complete.
    package var repaired: Data?

    /// Scans `data` as `format` (GIF or WebP); `nil` for other formats.
    package static func scan(_ data: Data, format: ImageFormat) -> AnimationStructure? {
        data.withUnsafeBytes { b in
            switch format {
            case .gif: gif(b)
            case .webp: webp(b)
            default: nil
            }
        }
    }

    /// GIF89a blocks: extensions (`0x21`) and images (`0x2C`, with sub-blocks ended by a zero
    /// length), up to the trailer (`0x3B`). A byte that starts no block ends the scan without
    /// calling the file truncated: that is damage, for the decoder to judge.
    package static func gif(_ b: UnsafeRawBufferPointer) -> AnimationStructure {
        let n = b.count
        let truncatedHeader = AnimationStructure(isTruncated: true, completeFrames: 0, repaired: nil)
        guard n >= 13 else { return truncatedHeader }
        var i = 13
        if b[10] & 0x80 != 0 { i += 3 << (Int(b[10] & 0x07) + 1) }
        /// The index after a chain of sub-blocks starting at `start`, or `nil` when it runs off the end.
        func subBlocks(_ start: Int) -> Int? {
            var j = start
            while j < n {
                if b[j] == 0 { return j + 1 }
                j += Int(b[j]) + 1
            }
            return nil
        }
        var frames = 0, lastFrameEnd = 0
        func truncated() -> AnimationStructure {
            var repaired: Data? = nil
            if frames > 0 {
                var bytes = Data(UnsafeRawBufferPointer(rebasing: b[0..<lastFrameEnd]))
                bytes.append(0x3B)
                repaired = bytes
            }
            return AnimationStructure(isTruncated: true, completeFrames: frames, repaired: repaired)
        }
        while true {
            guard i < n else {
                // Ending right after a frame's data is ending where the trailer goes: whole.
                guard frames > 0, lastFrameEnd == n else { return truncated() }
                var bytes = Data(UnsafeRawBufferPointer(rebasing: b[0..<n]))
                bytes.append(0x3B)
                return AnimationStructure(isTruncated: false, completeFrames: frames, repaired: bytes)
            }
            switch b[i] {
            case 0x3B:
                return AnimationStructure(isTruncated: false, completeFrames: frames, repaired: nil)
            case 0x21:
                guard i + 2 < n, let end = subBlocks(i + 2) else { return truncated() }
                i = end
            case 0x2C:
                guard i + 10 < n else { return truncated() }
                let flags = b[i + 9]
                var j = i + 10
                if flags & 0x80 != 0 { j += 3 << (Int(flags & 0x07) + 1) }
                // The LZW minimum code size, then the image data's sub-blocks.
                guard j < n, let end = subBlocks(j + 1) else { return truncated() }
                frames += 1
                lastFrameEnd = end
                i = end
            default:
                return AnimationStructure(isTruncated: false, completeFrames: frames, repaired: nil)
            }
        }
    }

    /// RIFF chunks of a WebP. An animation (VP8X with the animation flag) is repaired by keeping
    /// every chunk present in full before the first one cut short, with the RIFF size and the
    /// VP8X metadata flags (EXIF, XMP: chunks stored after the frames) made true again.
    package static func webp(_ b: UnsafeRawBufferPointer) -> AnimationStructure {
        let n = b.count
        guard n >= 12 else { return AnimationStructure(isTruncated: true, completeFrames: 0, repaired: nil) }
        func u32(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24 }
        let isTruncated = n < u32(4) + 8
        var i = 12, frames = 0
        var kept = Data(), animated = false, vp8xAt: Int? = nil, hasEXIF = false, hasXMP = false
        while i + 8 <= n {
            let fourCC = String(decoding: b[i..<(i + 4)], as: UTF8.self)
            let size = u32(i + 4), end = i + 8 + size + (size & 1)
            guard i + 8 + size <= n else { break }
            if fourCC == "VP8X", size >= 1 { animated = b[i + 8] & 0x02 != 0; vp8xAt = kept.count }
            if fourCC == "ANMF" { frames += 1 }
            if fourCC == "EXIF" { hasEXIF = true }
            if fourCC == "XMP " { hasXMP = true }
            kept.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[i..<min(end, n)]))
            if end > n { kept.append(0) }
            i = end
        }
        guard isTruncated, animated, frames > 0, let vp8xAt else {
            return AnimationStructure(isTruncated: isTruncated, completeFrames: animated ? frames : (isTruncated ? 0 : 1), repaired: nil)
        }
        var flags = kept[vp8xAt + 8]
        if !hasEXIF { flags &= ~0x08 }
        if !hasXMP { flags &= ~0x04 }
        kept[vp8xAt + 8] = flags
        let riffSize = kept.count + 4
        var repaired = Data("RIFF".utf8)
        repaired.append(contentsOf: [UInt8(riffSize & 0xFF), UInt8(riffSize >> 8 & 0xFF), UInt8(riffSize >> 16 & 0xFF), UInt8(riffSize >> 24 & 0xFF)])
        repaired.append(contentsOf: Array("WEBP".utf8))
        repaired.append(kept)
        return AnimationStructure(isTruncated: true, completeFrames: frames, repaired: repaired)
    }
}
