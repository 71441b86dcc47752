import Foundation
import PictorCore
internal import CSpng
internal import CPNGShim

/// What is wrong with a PNG's chunks or image data, read without decoding a pixel: the checks
/// every PNG passes before libvips decodes it (``VipsDecoder``), and the words for the errors
/// libvips gives without any.
package enum PNGImageData {
    /// Runs `body` with a libspng context reading `raw` (and `raw`'s first byte), under the limits
    /// libvips gives libpng: no chunk over 50 MB (zTXt bombs), a bounded chunk cache. `nil` when
    /// `raw` is empty or libspng cannot be set up.
    static func withContext<T>(
        reading raw: UnsafeRawBufferPointer, _ body: (OpaquePointer, UnsafeRawPointer) throws -> T?
    ) rethrows -> T? {
        guard let base = raw.baseAddress, let context = spng_ctx_new(0) else { return nil }
        defer { spng_ctx_free(context) }
        guard spng_set_png_buffer(context, base, raw.count) == 0,
              spng_set_chunk_limits(context, 50 << 20, 100 << 20) == 0 else { return nil }
        return try body(context, base)
    }

    /// Checks the image data of a PNG before libvips decodes it, so that libvips never returns
    /// undefined pixels: libvips 8.14 returns a file whose rows have unknown filter types, that
    /// holds too few rows or whose compressed stream is damaged with rows it never wrote
    /// (different from one call to the next). The header's pixel count is checked first, so
    /// that a decompression bomb is not inflated. A file without IEND (truncation has libvips'
    /// rules) or whose header libspng cannot read is left as it is.
    ///
    /// - Throws: ``/PictorCore/ImageDecodingError/tooManyPixels(width:height:limit:)``, or
    ///   ``/PictorCore/ImageDecodingError/corrupt(_:message:)`` for ``invalidData(cpng:)``.
    package static func checkBeforeLibvips(_ data: Data, options: ImageDecodingOptions) throws {
        guard !FileStructure.isTruncated(data, format: .png) else { return }
        try data.withUnsafeBytes { raw in
            _ = try withContext(reading: raw) { context, base -> Void? in
                var header = spng_ihdr()
                guard spng_get_ihdr(context, &header) == 0, header.width > 0, header.height > 0 else { return nil }
                try VipsDecoder.checkPixelCount(width: Int(header.width), height: Int(header.height), options: options)
                try checkImageData(header, png: base.assumingMemoryBound(to: UInt8.self), length: raw.count)
                return ()
            }
        }
    }

    /// The image data is inflated and its filter types read, pass by pass for an interlaced
    /// file; no pixel is decoded.
    private static func checkImageData(_ header: spng_ihdr, png: UnsafePointer<UInt8>, length: Int) throws {
        let channels: UInt32
        switch Int(header.color_type) {
        case Int(SPNG_COLOR_TYPE_GRAYSCALE.rawValue), Int(SPNG_COLOR_TYPE_INDEXED.rawValue): channels = 1
        case Int(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue): channels = 2
        case Int(SPNG_COLOR_TYPE_TRUECOLOR.rawValue): channels = 3
        default: channels = 4
        }
        let status = cpng_check_image_data(png, length, channels * UInt32(header.bit_depth), header.width, header.height,
                                           header.interlace_method == 0 ? 0 : 1)
        if let problem = invalidData(cpng: status) { throw ImageDecodingError.corrupt(.png, message: problem) }
    }

    /// Why image data that passed its checksums cannot give defined pixels, or `nil` for any
    /// other status: rows with an unknown filter type, fewer rows than the header declares, or a
    /// damaged compressed stream.
    static func invalidData(cpng status: Int32) -> String? {
        switch status {
        case CPNG_EFILTER.rawValue: "a row of the image data has an unknown filter type"
        case CPNG_ESHORT.rawValue: "the image data ends before the last row"
        case CPNG_EZLIB.rawValue: "the compressed image data is damaged"
        default: nil
        }
    }

    /// The words for a damaged image data (`IDAT`) chunk, whose CRC does not match its bytes.
    static let badCRC = "an image data (IDAT) chunk's CRC does not match its bytes"

    /// What is wrong with a PNG's chunks, in words, or `nil` when its header and the chunks
    /// before and of the image data read cleanly: libspng's reason for a header or chunk it
    /// refuses (a bad checksum, a width of 0, an unknown colour type, …), else a damaged image
    /// data (`IDAT`) chunk. The words for a PNG libvips refused without a message (it gives none
    /// for a bad header, or for a bad CRC in an interlaced file).
    package static func chunkProblem(_ raw: UnsafeRawBufferPointer) -> String? {
        withContext(reading: raw) { context, base in chunkProblem(context, base, length: raw.count) }
    }

    private static func chunkProblem(_ context: OpaquePointer, _ base: UnsafeRawPointer, length: Int) -> String? {
        var header = spng_ihdr()
        var status = spng_get_ihdr(context, &header)
        if status == 0 {
            // Reading one ancillary chunk makes libspng read and check every chunk before IDAT.
            var palette = spng_plte()
            status = spng_get_plte(context, &palette)
            if status == Int32(SPNG_ECHUNKAVAIL.rawValue) { status = 0 }
        }
        if status != 0, let text = spng_strerror(status) { return String(cString: text) }
        switch cpng_check_idat(base.assumingMemoryBound(to: UInt8.self), length) {
        case CPNG_ECRC.rawValue: return badCRC
        case CPNG_ESTRUCTURE.rawValue: return "the image data (IDAT) chunks are missing, not consecutive, or run past the end"
        default: return nil
        }
    }
}
