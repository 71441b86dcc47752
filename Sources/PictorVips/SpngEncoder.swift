import Foundation
import PictorCore
internal import CSpng

/// The PNG encoding fast path: the first frame of an image goes to libspng directly, in the
/// PNG colour type of its layout (grey, grey + alpha, RGB, RGBA; 8 bits per sample, not
/// interlaced) and at the encoder's zlib level, as libvips' `pngsave` writes an 8-bit image with
/// `strip`: no metadata. libspng chooses each row's filter adaptively. It skips libvips' copy of
/// the pixels and its thread pool, and lets a process that decoded its PNGs with libspng keep
/// PNG thumbnails without ever loading libvips (whose dependencies alone add tens of megabytes
/// to a process's memory).
///
/// The file is not libvips' byte for byte (libpng and libspng compress differently); it is the
/// same image: decoding it gives back exactly the pixels encoded.
enum SpngEncoder {
    /// The first frame of `image` as PNG, or `nil` when libvips must do it: pixels that are not
    /// packed 8-bit samples, a side over PNG's limit, or any libspng failure.
    ///
    /// - Parameter compression: zlib level, 0...9, already clamped.
    static func encode(_ image: Image, compression: Int32) -> Data? {
        guard let frame = image.frames.first, image.width > 0, image.height > 0,
              image.width <= Int(Int32.max), image.height <= Int(Int32.max),
              frame.pixels.count == image.width * image.height * image.bands,
              let context = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { return nil }
        defer { spng_ctx_free(context) }
        let colourType: spng_color_type = switch image.layout {
        case .gray: SPNG_COLOR_TYPE_GRAYSCALE
        case .grayAlpha: SPNG_COLOR_TYPE_GRAYSCALE_ALPHA
        case .rgb: SPNG_COLOR_TYPE_TRUECOLOR
        case .rgba: SPNG_COLOR_TYPE_TRUECOLOR_ALPHA
        }
        var header = spng_ihdr(width: UInt32(image.width), height: UInt32(image.height), bit_depth: 8,
                               color_type: UInt8(colourType.rawValue), compression_method: 0, filter_method: 0,
                               interlace_method: 0)
        guard spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1) == 0,
              spng_set_option(context, SPNG_IMG_COMPRESSION_LEVEL, compression) == 0,
              spng_set_ihdr(context, &header) == 0 else { return nil }
        let encoded = frame.pixels.withUnsafeBytes { raw in
            spng_encode_image(context, raw.baseAddress, raw.count, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_FINALIZE.rawValue))
        }
        guard encoded == 0 else { return nil }
        var length = 0, error: Int32 = 0
        // The buffer is the caller's once taken (libspng's default allocator is malloc).
        guard let buffer = spng_get_png_buffer(context, &length, &error), error == 0, length > 0 else { return nil }
        return Data(bytesNoCopy: buffer, count: length, deallocator: .free)
    }
}
