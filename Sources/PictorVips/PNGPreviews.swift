import Foundation
import PictorCore
internal import CPNGShim

/// Incremental previews of a PNG while it downloads (``/PictorCore/ImagePreviewDecoding``, kind
/// ``/PictorCore/ImagePreviewKinds/incremental``): `CPNGShim` feeds the bytes to libpng's
/// progressive reader, which hands over each row as it is decoded; the rows go into a full-size
/// image, and each preview is that image so far, brought to the final image's size by
/// ``PixelResampler`` (the plan ``SpngDecoder`` follows):
/// - a non-interlaced file: the rows decoded so far, each time more have come; the rest
///   mid-grey (128), transparent where the image has alpha;
/// - an interlaced (Adam7) file: a coarse whole image each time a pass completes (7 at most),
///   each pixel copied from the nearest one above-left that the passes so far hold.
///
/// Every colour type and bit depth is read, with libpng's transforms: samples become 8 bits
/// (16-bit colour: the high byte; 16-bit grey: v / 257 rounded), a palette RGB, and a tRNS
/// chunk an alpha band, as the final decode (libvips) gives them. libpng checks the chunks'
/// CRCs and the deflate data (not the Adler-32): damaged data before the last row stops the
/// previews (``preview(appending:)`` throws), never the final decode; once every row is in,
/// nothing stops them. The declared pixel count is
/// checked against the decode's limit before the image is allocated; the decoder keeps the
/// image (`width × height × bands` bytes), libpng's row buffers and zlib's 32 KiB window, and
/// of the bytes it was given only those libpng cannot use yet (a chunk other than image data
/// is gathered whole before it is read or skipped).
final class PNGPreviews: ImagePreviewDecoding, @unchecked Sendable {
    // Unchecked Sendable: the pipeline calls one preview decoder from one thread at a time.
    private let decoder: OpaquePointer
    private let options: ImageDecodingOptions
    private var rendered: UInt32 = 0

    var kind: ImagePreviewKinds { .incremental }

    init?(options: ImageDecodingOptions) {
        guard let decoder = cpng_rows_new(UInt64(clamping: max(0, options.maximumPixelCount))) else { return nil }
        self.decoder = decoder
        self.options = options
    }

    deinit { cpng_rows_free(decoder) }

    func preview(appending bytes: Data) throws -> Image? {
        let status = bytes.withUnsafeBytes { raw in
            cpng_rows_append(decoder, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        try check(status)
        let progress = cpng_rows_progress(decoder)
        guard progress > rendered else { return nil }
        var width: UInt32 = 0, height: UInt32 = 0, channels: UInt32 = 0
        var interlaced: Int32 = 0
        try check(cpng_rows_info(decoder, &width, &height, &channels, &interlaced))
        let w = Int(width), h = Int(height), bands = Int(channels)
        guard let layout = Image.PixelLayout(rawValue: bands) else { return nil }
        let count = w * h * bands
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, count))
        var owner: UnsafeMutablePointer<UInt8>? = pixels
        defer { owner?.deallocate() }
        try check(cpng_rows_render(decoder, pixels, count))
        rendered = progress
        guard let target = options.thumbnail else {
            // Full size: the buffer becomes the preview's, without a copy (as SpngDecoder's).
            owner = nil
            let data = Data(bytesNoCopy: pixels, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
            return Image(width: w, height: h, layout: layout, frames: [Image.Frame(pixels: data)], sourceFrameCount: 1, sourceFormat: .png)
        }
        let plan = TurboJPEGDecoder.Plan(width: w, height: h, orientation: 1, target: target)
        let result = PixelResampler.thumbnail(pixels, width: w, height: h, bands: bands,
                                              resizedTo: plan.resizedSourceWidth, plan.resizedSourceHeight,
                                              orientation: 1, croppedTo: plan.outputWidth, plan.outputHeight)
        return Image(width: plan.outputWidth, height: plan.outputHeight, layout: layout,
                     frames: [Image.Frame(pixels: result)], sourceFrameCount: 1, sourceFormat: .png)
    }

    private func check(_ status: Int32) throws {
        guard status < 0 else { return }
        switch status {
        case CPNG_ROWS_ETOOLARGE.rawValue:
            throw ImageDecodingError.unsupportedVariant(.png, detail: "more pixels than the decoding limit")
        case CPNG_ROWS_EFORMAT.rawValue:
            throw ImageDecodingError.unsupportedVariant(.png, detail: "a header or chunk the preview decoder does not read")
        case CPNG_ROWS_ELIBPNG.rawValue:
            throw ImageDecodingError.corrupt(.png, message: String(cString: cpng_rows_message(decoder)))
        default:
            throw SpngDecoder.failure(status) ?? ImageDecodingError.corrupt(.png, message: "the image data cannot be read")
        }
    }
}

extension SpngDecoder {
    /// Incremental previews for a PNG (`PNGPreviews`): the rows decoded so far, or a coarse
    /// image per Adam7 pass, of any PNG (not only the files ``accepts(_:format:options:)``
    /// takes); `nil` for another format or when ``/PictorCore/ImagePreviewKinds/incremental``
    /// is not asked for.
    ///
    /// - Parameters:
    ///   - format: the sniffed format; only ``/PictorCore/ImageFormat/png`` gets previews.
    ///   - options: the final decode's options: its thumbnail is the previews' size, its pixel
    ///     limit theirs.
    ///   - kinds: the kinds of previews wanted.
    public func makePreviewDecoder(
        format: ImageFormat, options: ImageDecodingOptions, kinds: ImagePreviewKinds
    ) -> (any ImagePreviewDecoding)? {
        guard format == .png, options.isValid, kinds.contains(.incremental) else { return nil }
        return PNGPreviews(options: options)
    }
}
