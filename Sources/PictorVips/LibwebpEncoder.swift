import Foundation
import PictorCore
internal import CWebP

/// The WebP encoding fast path: a still 8-bit image goes to libwebp directly (the codec
/// libvips' `webpsave` drives too), configured as libvips 8.14 configures it for Pictor's
/// options: the default preset at the quality for lossy, `quality` as effort for lossless, the
/// encoder's effort as libwebp's method (4 by default, libvips' default), alpha quality 100, ARGB input only for lossless, and
/// `WebPEncode` for one frame. Grey becomes RGB by copying the grey value, as libvips' save does.
/// The bitstream is libvips' own, byte for byte.
///
/// No metadata is written: libvips 8.14.1 ignores its `strip` option for WebP (fixed in 8.14.2)
/// and adds an EXIF chunk it rebuilds from the image's header (orientation 1, 25.4 dpi, the pixel
/// size), with a VP8X header to announce it. Pictor asks for no metadata, and the pixels it
/// encodes are already oriented, so this path leaves both out; that is the only difference from
/// libvips' output. It skips libvips' copy of the pixels and its thread pool, and lets a process
/// that decoded its WebPs with libwebp keep WebP thumbnails without ever loading libvips.
enum LibwebpEncoder {
    /// The largest width or height WebP can hold (14 bits); libvips refuses larger images too.
    static let maximumSide = 16383

    /// `image` as a still WebP, or `nil` when libvips must do it: an animation (more than one
    /// frame), a side over ``maximumSide``, pixels that are not packed 8-bit samples, or any
    /// libwebp failure.
    ///
    /// - Parameters:
    ///   - quality: 1...100, already clamped; the lossy quality, or the effort when `lossless`.
    ///   - lossless: whether to write VP8L instead of VP8 (with ALPH for alpha).
    ///   - effort: libwebp's method, 0...6, already clamped (libvips' `effort`).
    static func encode(_ image: Image, quality: Int32, lossless: Bool, effort: Int32 = 4) -> Data? {
        guard image.frames.count == 1, let frame = image.frames.first, image.width > 0, image.height > 0,
              image.width <= maximumSide, image.height <= maximumSide,
              frame.pixels.count == image.width * image.height * image.bands else { return nil }
        guard var config = configuration(quality: quality, lossless: lossless, effort: effort) else { return nil }
        let pixels = image.layout == .gray || image.layout == .grayAlpha ? expandGrey(frame.pixels, alpha: image.hasAlpha) : frame.pixels
        let bands = image.hasAlpha ? 4 : 3

        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { return nil }
        defer { WebPPictureFree(&picture) }
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        // libvips converts to ARGB only where libwebp needs it (lossless); lossy imports straight to YUV.
        picture.use_argb = lossless ? 1 : 0
        let imported = pixels.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return 0 }
            let stride = Int32(image.width * bands)
            return bands == 4 ? WebPPictureImportRGBA(&picture, base, stride) : WebPPictureImportRGB(&picture, base, stride)
        }
        guard imported != 0 else { return nil }

        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        let encoded = withUnsafeMutablePointer(to: &writer) { output -> Int32 in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(output)
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0, let memory = writer.mem, writer.size > 0 else {
            WebPMemoryWriterClear(&writer)
            return nil
        }
        // The writer's buffer becomes the Data's, without a copy.
        return Data(bytesNoCopy: memory, count: writer.size, deallocator: .custom { pointer, _ in WebPFree(pointer) })
    }

    /// libvips 8.14's `webpsave` configuration for `Q`, `lossless` and `effort`, with its defaults
    /// for the options Pictor leaves alone (preset default, alpha_q 100, no smart subsampling,
    /// no near-lossless); `nil` when libwebp rejects it.
    static func configuration(quality: Int32, lossless: Bool, effort: Int32 = 4) -> WebPConfig? {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { return nil }
        // libvips applies the preset to lossy encodes only; lossless keeps WebPConfigInit's values.
        if !lossless, WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, Float(quality)) == 0 { return nil }
        config.lossless = lossless ? 1 : 0
        config.alpha_quality = 100
        config.method = effort
        if lossless { config.quality = Float(quality) }
        return WebPValidateConfig(&config) != 0 ? config : nil
    }

    /// Grey (and grey + alpha) samples as RGB (and RGBA), each grey value copied to the three
    /// colour channels: libvips' B_W to sRGB conversion for 8-bit images, which its WebP save runs.
    static func expandGrey(_ pixels: Data, alpha: Bool) -> Data {
        let inBands = alpha ? 2 : 1, outBands = alpha ? 4 : 3
        let count = pixels.count / inBands
        var out = Data(count: count * outBands)
        out.withUnsafeMutableBytes { destination in
            pixels.withUnsafeBytes { source in
                let d = destination.bindMemory(to: UInt8.self), s = source.bindMemory(to: UInt8.self)
                for i in 0..<count {
                    let grey = s[i * inBands]
                    d[i * outBands] = grey
                    d[i * outBands + 1] = grey
                    d[i * outBands + 2] = grey
                    if alpha { d[i * outBands + 3] = s[i * inBands + 1] }
                }
            }
        }
        return out
    }
}
