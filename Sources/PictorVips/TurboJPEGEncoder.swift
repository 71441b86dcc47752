import Foundation
import PictorCore
internal import CTurboJPEG

/// The JPEG encoding fast path: opaque grey or RGB images go to libjpeg-turbo directly (the
/// codec libvips' `jpegsave` drives too), with libvips' defaults: baseline, no optimised
/// Huffman tables, no metadata, 4:2:0 chroma below quality 90 and 4:4:4 from 90 on. It skips
/// libvips' copy of the pixels and its thread pool, and lets a process that decoded its JPEGs on
/// the libjpeg-turbo path write thumbnails without ever loading libvips.
enum TurboJPEGEncoder {
    /// The first frame of `image` as JPEG, or `nil` when libvips must do it: an image with alpha
    /// (libvips flattens it over white) or any libjpeg-turbo failure.
    ///
    /// - Parameter quality: 1...100, already clamped.
    static func encode(_ image: Image, quality: Int32, progressive: Bool = false) -> Data? {
        guard !image.hasAlpha, let frame = image.frames.first else { return nil }
        guard let handle = tjInitCompress() else { return nil }
        defer { tjDestroy(handle) }
        let gray = image.layout == .gray
        let subsampling = gray ? TJSAMP_GRAY : (quality >= 90 ? TJSAMP_444 : TJSAMP_420)
        let format = gray ? TJPF_GRAY : TJPF_RGB
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let status = frame.pixels.withUnsafeBytes { raw in
            tjCompress2(handle, raw.bindMemory(to: UInt8.self).baseAddress, Int32(image.width), 0, Int32(image.height),
                        Int32(format.rawValue), &buffer, &size, Int32(subsampling.rawValue), quality,
                        TJFLAG_ACCURATEDCT | (progressive ? TJFLAG_PROGRESSIVE : 0))
        }
        guard status == 0, let buffer else {
            if let buffer { tjFree(buffer) }
            return nil
        }
        return Data(bytesNoCopy: buffer, count: Int(size), deallocator: .custom { pointer, _ in
            tjFree(pointer.assumingMemoryBound(to: UInt8.self))
        })
    }
}

extension Image {
    /// This opaque image as a progressive JPEG (libjpeg-turbo's default scan script: 10 scans
    /// for colour, 6 for grey), for tests and benchmarks of previews; `nil` for an image with
    /// alpha or on a libjpeg-turbo failure.
    ///
    /// - Parameter quality: 1...100.
    package func progressiveJPEG(quality: Int = 85) -> Data? {
        TurboJPEGEncoder.encode(self, quality: Int32(max(1, min(100, quality))), progressive: true)
    }
}
