import Foundation
import PictorCore
internal import CTurboJPEG

/// Decodes plain JPEGs with libjpeg-turbo directly, beside ``VipsDecoder``: full size straight
/// to RGB or grey; thumbnails at a DCT-scaled size (1/2, 1/4 or 1/8) that leaves at least a 2×
/// reduction for a triangle-filter resample. EXIF orientation is then applied to the result.
///
/// It takes (``accepts(_:format:options:)``, from the markers and the frame header alone) an
/// 8-bit JPEG whose marker segments parse, whose colour space is grey, YCbCr or RGB, with no
/// embedded ICC profile, whose header libjpeg-turbo reads without a warning, that ends with its
/// EOI marker, and whose coded data holds no marker libjpeg does not expect there. It refuses
/// CMYK/YCCK and ICC profiles (colour management is libvips'), 12-bit samples (libvips says what
/// they are), malformed markers, truncated files (libvips decides what a truncated file gives),
/// and a stray marker in the coded data (libjpeg fails on it after the last row, which libvips
/// ignores). Finding those reads the file's bytes once (`memchr` for `FF`), no more. It skips libvips' thread-pool hand-offs (≈ 7 ms per image on
/// 2 vCPUs, performance.md §1.5).
///
/// Fidelity: full-size pixels are libjpeg's own, the same library and settings libvips uses
/// (identical, ±1 for libvips' colour handling); thumbnails match libvips' within a few levels
/// (another resampling filter).
///
/// Damage found while decoding: a libjpeg warning (corrupt entropy data, extraneous bytes, …),
/// which libvips also decodes through, gives the image libjpeg makes of the file; a premature
/// end of the data throws ``/PictorCore/ImageDecodingError/truncated(_:)`` unless
/// ``/PictorCore/ImageDecodingOptions/allowsTruncatedData``; a libjpeg error throws
/// ``/PictorCore/ImageDecodingError/corrupt(_:message:)`` with libjpeg's text.
///
/// - Important: thread-safe; a value type with no state.
public struct TurboJPEGDecoder: ImageDecoding {
    /// Creates the decoder.
    public init() {}

    /// Whether `data` is a JPEG this decoder takes (see the type's discussion); reads the marker
    /// segments and the frame header, decodes nothing.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes.
    ///   - format: their sniffed format; only ``/PictorCore/ImageFormat/jpeg`` is accepted.
    ///   - options: the decode's options; invalid ones are refused.
    /// - Returns: `true` when ``decode(_:format:options:)`` decodes `data` itself.
    public func accepts(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) -> Bool {
        guard format == .jpeg, options.isValid, let handle = tjInitDecompress() else { return false }
        defer { tjDestroy(handle) }
        return data.withUnsafeBytes { raw in (try? Self.header(of: data, raw, handle: handle).get()) != nil }
    }

    /// Decodes `data`, which must be a JPEG this decoder accepts; see
    /// ``decode(_:format:options:)``.
    ///
    /// - Throws: ``/PictorCore/ImageDecodingError/emptyData``, ``/PictorCore/ImageDecodingError/unknownFormat``,
    ///   ``/PictorCore/ImageDecodingError/unsupportedFormat(_:)`` for another format, or as
    ///   ``decode(_:format:options:)``.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        guard !data.isEmpty else { throw ImageDecodingError.emptyData }
        guard let format = ImageFormat.sniff(data) else { throw ImageDecodingError.unknownFormat }
        return try decode(data, format: format, options: options)
    }

    /// Decodes `data`, sniffed as `format`, at full size or as the thumbnail `options` asks for.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes.
    ///   - format: their sniffed format (``/PictorCore/ImageFormat/jpeg``).
    ///   - options: the thumbnail, the pixel limit and whether truncated data is accepted.
    /// - Throws: ``/PictorCore/ImageDecodingError/invalidOptions(detail:)``;
    ///   ``/PictorCore/ImageDecodingError/unsupportedFormat(_:)`` for another format;
    ///   for a file ``accepts(_:format:options:)`` refuses,
    ///   ``/PictorCore/ImageDecodingError/truncated(_:)`` (it ends before its EOI marker) or
    ///   ``/PictorCore/ImageDecodingError/unsupportedVariant(_:detail:)`` naming the reason;
    ///   ``/PictorCore/ImageDecodingError/tooManyPixels(width:height:limit:)`` from the header;
    ///   ``/PictorCore/ImageDecodingError/truncated(_:)`` for libjpeg's premature end of data;
    ///   ``/PictorCore/ImageDecodingError/corrupt(_:message:)`` for a libjpeg error.
    public func decode(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) throws -> Image {
        guard format == .jpeg else { throw ImageDecodingError.unsupportedFormat(format) }
        try options.validate()
        guard let handle = tjInitDecompress() else { throw ImageDecodingError.corrupt(.jpeg, message: "libjpeg-turbo could not start") }
        defer { tjDestroy(handle) }
        return try data.withUnsafeBytes { raw in
            let header = try Self.header(of: data, raw, handle: handle).get()
            return try Self.decode(raw, header: header, handle: handle, options: options)
        }
    }

    /// What the decoder needs from a JPEG it takes.
    struct Header {
        var width: Int, height: Int, gray: Bool, orientation: Int
    }

    /// The header of `data` (whose bytes are `raw`), or the error that says why this decoder
    /// refuses it: every refusal is known from the markers and the frame header.
    static func header(of data: Data, _ raw: UnsafeRawBufferPointer, handle: tjhandle) -> Result<Header, ImageDecodingError> {
        guard let base = raw.baseAddress, let markers = JPEGMarkers(raw) else {
            return .failure(.unsupportedVariant(.jpeg, detail: "malformed marker segments"))
        }
        guard !markers.hasICCProfile else {
            return .failure(.unsupportedVariant(.jpeg, detail: "an embedded ICC profile (colour management is libvips')"))
        }
        if let precision = FileStructure.jpegPrecision(data), precision != 8 {
            return .failure(.unsupportedVariant(.jpeg, detail: "\(precision)-bit samples"))
        }
        // Whether a truncated file gives an image, and which, is libvips' rule.
        guard !FileStructure.isTruncated(data, format: .jpeg) else { return .failure(.truncated(.jpeg)) }
        guard markers.scanMarkersAreExpected(raw) else {
            return .failure(.unsupportedVariant(.jpeg, detail: "a marker inside the coded data (libvips decides what such damage gives)"))
        }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colourspace: Int32 = 0
        guard tjDecompressHeader3(handle, base.assumingMemoryBound(to: UInt8.self), UInt(raw.count),
                                  &width, &height, &subsampling, &colourspace) == 0, width > 0, height > 0 else {
            return .failure(.unsupportedVariant(.jpeg, detail: "a header libjpeg-turbo does not read cleanly"))
        }
        let gray = colourspace == Int32(TJCS_GRAY.rawValue)
        guard gray || colourspace == Int32(TJCS_YCbCr.rawValue) || colourspace == Int32(TJCS_RGB.rawValue) else {
            return .failure(.unsupportedVariant(.jpeg, detail: "a CMYK or YCCK colour space"))
        }
        return .success(Header(width: Int(width), height: Int(height), gray: gray, orientation: markers.orientation))
    }

    private static func decode(_ raw: UnsafeRawBufferPointer, header: Header, handle: tjhandle, options: ImageDecodingOptions) throws -> Image {
        let source = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let width = header.width, height = header.height, gray = header.gray, orientation = header.orientation
        try VipsDecoder.checkPixelCount(width: width, height: height, options: options)

        let plan = Plan(width: width, height: height, orientation: orientation, target: options.thumbnail)
        let bands = gray ? 1 : 3
        let denominator = dctDenominator(shrink: plan.shrink)
        let scaledWidth = (width + denominator - 1) / denominator
        let scaledHeight = (height + denominator - 1) / denominator
        let format = gray ? TJPF_GRAY : TJPF_RGB
        let layout: Image.PixelLayout = gray ? .gray : .rgb
        let scaledBytes = scaledWidth * scaledHeight * bands
        func decompress(into pixels: UnsafeMutablePointer<UInt8>) throws {
            func run(_ flags: Int32) -> Bool {
                tjDecompress2(handle, source, UInt(raw.count), pixels, Int32(scaledWidth), 0, Int32(scaledHeight),
                              Int32(format.rawValue), flags) == 0
            }
            if run(TJFLAG_STOPONWARNING) { return }
            let first = String(cString: tjGetErrorStr2(handle))
            guard tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) else { throw ImageDecodingError.corrupt(.jpeg, message: first) }
            // libvips fails on a premature end of the data (fail_on truncated) and reads on
            // through every other warning: so does this, to the end of the scan.
            if first.hasPrefix("Premature end of JPEG file"), !options.allowsTruncatedData { throw ImageDecodingError.truncated(.jpeg) }
            if run(0) { return }
            // The text of the first warning stays libjpeg-turbo's last message unless an error
            // stopped the decode after it.
            let last = String(cString: tjGetErrorStr2(handle))
            guard last == first else { throw ImageDecodingError.corrupt(.jpeg, message: last) }
        }
        if scaledWidth == plan.outputWidth, scaledHeight == plan.outputHeight, orientation == 1 {
            // Nothing to resample, orient or crop: decode straight into the image's buffer,
            // allocated uninitialised (libjpeg-turbo writes every byte).
            guard let memory = malloc(max(1, scaledBytes)) else { throw ImageDecodingError.corrupt(.jpeg, message: "out of memory") }
            do { try decompress(into: memory.bindMemory(to: UInt8.self, capacity: scaledBytes)) } catch { free(memory); throw error }
            let data = Data(bytesNoCopy: memory, count: scaledBytes, deallocator: .free)
            return Image(width: scaledWidth, height: scaledHeight, layout: layout, frames: [Image.Frame(pixels: data)],
                         sourceFrameCount: 1, sourceFormat: .jpeg)
        }
        // Decoded pixels, uninitialised until libjpeg-turbo fills them; then resample, orientation
        // and crop in one pass into the image's buffer.
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: scaledBytes)
        defer { pixels.deallocate() }
        try decompress(into: pixels)
        let result = PixelResampler.thumbnail(pixels, width: scaledWidth, height: scaledHeight, bands: bands,
                                              resizedTo: plan.resizedSourceWidth, plan.resizedSourceHeight,
                                              orientation: orientation, croppedTo: plan.outputWidth, plan.outputHeight)
        return Image(width: plan.outputWidth, height: plan.outputHeight, layout: layout,
                     frames: [Image.Frame(pixels: result)], sourceFrameCount: 1, sourceFormat: .jpeg)
    }

    /// The DCT scale 1/n (n = 1, 2, 4 or 8) for an overall reduction of `shrink`: the largest that
    /// still leaves ≥ 2× for the resampler, as libvips' `thumbnail` and Pillow's `draft` do.
    static func dctDenominator(shrink: Double) -> Int {
        [8, 4, 2].first { shrink >= Double(2 * $0) } ?? 1
    }

    /// Output sizes, following libvips' `thumbnail` rules (fit, fill with centre crop, force).
    struct Plan {
        /// Resampled size in the file's stored orientation.
        var resizedSourceWidth: Int, resizedSourceHeight: Int
        /// Final size after orientation and crop.
        var outputWidth: Int, outputHeight: Int
        /// The smaller of the two reduction factors before rounding (source ÷ resized; 1 or less
        /// when enlarging), which picks the DCT scale as libvips does.
        var shrink: Double

        init(width: Int, height: Int, orientation: Int, target: ThumbnailOptions?) {
            let swaps = orientation >= 5
            guard let target else {
                resizedSourceWidth = width; resizedSourceHeight = height
                outputWidth = swaps ? height : width; outputHeight = swaps ? width : height
                shrink = 1
                return
            }
            let dw = Double(swaps ? height : width), dh = Double(swaps ? width : height)
            let tw = Double(target.width)
            let th = target.height.map(Double.init)
            var rw: Double, rh: Double
            switch (target.contentMode, th) {
            case (.stretch, let th?):
                rw = tw; rh = th
                shrink = min(dw / tw, dh / th)
            case (.aspectFill, let th?):
                var scale = max(tw / dw, th / dh)
                if !target.allowsUpscaling { scale = min(scale, 1) }
                rw = dw * scale; rh = dh * scale
                shrink = 1 / scale
            default:
                var scale = min(tw / dw, (th ?? .infinity) / dh)
                if !target.allowsUpscaling { scale = min(scale, 1) }
                rw = dw * scale; rh = dh * scale
                shrink = 1 / scale
            }
            let displayWidth = max(1, Int(rw.rounded())), displayHeight = max(1, Int(rh.rounded()))
            resizedSourceWidth = swaps ? displayHeight : displayWidth
            resizedSourceHeight = swaps ? displayWidth : displayHeight
            if target.contentMode == .aspectFill, let h = target.height {
                // Fill: the resized image covers the box; the centre is cut out.
                outputWidth = min(target.width, displayWidth)
                outputHeight = min(h, displayHeight)
            } else {
                outputWidth = displayWidth
                outputHeight = displayHeight
            }
        }
    }
}
