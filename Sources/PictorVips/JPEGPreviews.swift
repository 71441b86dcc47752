import Foundation
import PictorCore
internal import CJPEGShim

/// Previews of a JPEG while it downloads (``/PictorCore/ImagePreviewDecoding``), by
/// `CJPEGShim` over the bytes as they come, at the DCT scale (1/1, 1/2, 1/4 or 1/8) just above
/// the thumbnail, which ``PixelResampler`` then brings to the final image's size and EXIF
/// orientation (the plan ``TurboJPEGDecoder`` follows), so that every preview has the final
/// image's shape:
/// - a progressive file (``/PictorCore/ImagePreviewKinds/progressive``): libjpeg's
///   buffered-image mode renders the scans so far each time one has arrived completely;
/// - a baseline (single-scan) file, when ``/PictorCore/ImagePreviewKinds/incremental`` is
///   asked for: libjpeg decodes rows as their bytes arrive, and a preview shows the rows
///   decoded so far, the rest mid-grey (128), each time more rows have come.
///
/// Only 8-bit Huffman-coded grey, YCbCr or RGB JPEGs are previewed (libjpeg's arithmetic
/// decoder cannot suspend): a baseline file without the incremental kind, a sequential file in
/// several scans, arithmetic coding, CMYK, or damage stops the previews
/// (``preview(appending:)`` throws), never the final decode. The declared pixel count is
/// checked against the decode's limit before any coefficient or row buffer is allocated; the
/// shim keeps only the bytes libjpeg has not consumed (at most ``maximumUnreadBytes``), and
/// libjpeg the image's coefficients (2 bytes per sample) or the scaled rows (1 byte per sample).
package final class JPEGPreviews: ImagePreviewDecoding, @unchecked Sendable {
    /// The most unread bytes the shim keeps: libjpeg consumes every whole unit it is given, so
    /// only a marker segment or an MCU cut by a chunk boundary waits (16 MiB covers any
    /// APPn/ICC segment chain).
    static let maximumUnreadBytes = 16 * 1024 * 1024
    /// Bytes kept to read the markers (EXIF orientation) from, at most.
    static let maximumHeaderBytes = 1024 * 1024

    // Unchecked Sendable: the pipeline calls one preview decoder from one thread at a time.
    private let decoder: OpaquePointer
    private let options: ImageDecodingOptions
    private let kinds: ImagePreviewKinds
    /// The file's start, until the header is read (its markers give the EXIF orientation).
    private var header = Data()
    private var plan: TurboJPEGDecoder.Plan?
    /// The EXIF orientation (1...8) read from the markers before the first scan; 1 until then.
    package private(set) var orientation = 1
    private var renderedScans = 0
    private var renderedRows = 0
    /// The kind of the previews given: ``/PictorCore/ImagePreviewKinds/progressive`` until a
    /// baseline file's rows are.
    package private(set) var kind: ImagePreviewKinds = .progressive
    /// The image's size as its header declares it, once the header is read.
    package private(set) var declaredSize: (width: Int, height: Int)?
    /// The size of the last preview rendered by the shim, at the DCT scale, before resampling:
    /// width and height in pixels, channels 1 (grey) or 3 (RGB).
    package private(set) var renderedSize: (width: Int, height: Int, channels: Int)?

    /// A decoder for one file's previews; `nil` when libjpeg cannot be set up.
    ///
    /// - Parameters:
    ///   - options: the final decode's options: its thumbnail is the previews' size, its pixel
    ///     limit theirs.
    ///   - kinds: the kinds of previews wanted.
    package init?(options: ImageDecodingOptions, kinds: ImagePreviewKinds) {
        let limit = UInt64(clamping: max(0, options.maximumPixelCount))
        let rows: Int32 = kinds.contains(.incremental) ? 1 : 0
        guard let decoder = pjpeg_new(limit, Self.maximumUnreadBytes, rows) else { return nil }
        self.decoder = decoder
        self.options = options
        self.kinds = kinds
    }

    deinit { pjpeg_free(decoder) }

    package func preview(appending bytes: Data) throws -> Image? {
        if plan == nil, header.count < Self.maximumHeaderBytes { header.append(bytes) }
        var status = bytes.withUnsafeBytes { raw in
            pjpeg_append(decoder, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        if status == Int32(PJPEG_HEADER_READY.rawValue) { status = try start() }
        try check(status)
        guard let plan else { return nil }
        if pjpeg_is_sequential(decoder) != 0 {
            kind = .incremental
            let rows = Int(pjpeg_completed_rows(decoder))
            guard rows > renderedRows else { return nil }
            renderedRows = rows
        } else {
            guard kinds.contains(.progressive) else {
                throw ImageDecodingError.unsupportedVariant(.jpeg, detail: "no previews of this kind of JPEG")
            }
            let completed = Int(pjpeg_completed_scans(decoder))
            guard completed > renderedScans else { return nil }
            renderedScans = completed
        }
        var width: UInt32 = 0, height: UInt32 = 0, channels: UInt32 = 0
        try check(pjpeg_output_size(decoder, &width, &height, &channels))
        let scaledWidth = Int(width), scaledHeight = Int(height), bands = Int(channels)
        let count = scaledWidth * scaledHeight * bands
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, count))
        defer { pixels.deallocate() }
        try check(pjpeg_render(decoder, pixels, count))
        renderedSize = (scaledWidth, scaledHeight, bands)
        let result: Data
        if scaledWidth == plan.outputWidth, scaledHeight == plan.outputHeight, orientation == 1 {
            result = Data(bytes: pixels, count: count)
        } else {
            result = PixelResampler.thumbnail(pixels, width: scaledWidth, height: scaledHeight, bands: bands,
                                              resizedTo: plan.resizedSourceWidth, plan.resizedSourceHeight,
                                              orientation: orientation, croppedTo: plan.outputWidth, plan.outputHeight)
        }
        return Image(width: plan.outputWidth, height: plan.outputHeight, layout: bands == 1 ? .gray : .rgb,
                     frames: [Image.Frame(pixels: result)], sourceFrameCount: 1, sourceFormat: .jpeg)
    }

    /// The header is read: the final image's plan, then the DCT scale just above it.
    private func start() throws -> Int32 {
        var width: UInt32 = 0, height: UInt32 = 0
        try check(pjpeg_image_size(decoder, &width, &height))
        declaredSize = (Int(width), Int(height))
        orientation = header.withUnsafeBytes { JPEGMarkers($0)?.orientation } ?? 1
        header = Data()
        let plan = TurboJPEGDecoder.Plan(width: Int(width), height: Int(height), orientation: orientation, target: options.thumbnail)
        self.plan = plan
        // Every side of the scaled image stays at or above the resampled one: previews are
        // never enlarged.
        let w = Int(width), h = Int(height)
        let covers: (Int) -> Bool = { d in
            let scaledWidth: Int = (w + d - 1) / d
            let scaledHeight: Int = (h + d - 1) / d
            return scaledWidth >= plan.resizedSourceWidth && scaledHeight >= plan.resizedSourceHeight
        }
        let denominator: Int = [8, 4, 2].first(where: covers) ?? 1
        return pjpeg_start(decoder, UInt32(denominator))
    }

    private func check(_ status: Int32) throws {
        guard status < 0 else { return }
        switch status {
        case Int32(PJPEG_UNSUPPORTED.rawValue):
            throw ImageDecodingError.unsupportedVariant(.jpeg, detail: "no previews of this kind of JPEG")
        case Int32(PJPEG_ETOOLARGE.rawValue):
            throw ImageDecodingError.unsupportedVariant(.jpeg, detail: "more pixels than the decoding limit")
        default:
            throw ImageDecodingError.corrupt(.jpeg, message: String(cString: pjpeg_message(decoder)))
        }
    }
}

extension TurboJPEGDecoder {
    /// Previews for a JPEG (`JPEGPreviews`): a progressive file's scans, and with
    /// ``/PictorCore/ImagePreviewKinds/incremental`` a baseline file's rows so far; `nil` for
    /// another format.
    ///
    /// - Parameters:
    ///   - format: the sniffed format; only ``/PictorCore/ImageFormat/jpeg`` gets previews.
    ///   - options: the final decode's options: its thumbnail is the previews' size, its pixel
    ///     limit theirs.
    ///   - kinds: the kinds of previews wanted.
    public func makePreviewDecoder(
        format: ImageFormat, options: ImageDecodingOptions, kinds: ImagePreviewKinds
    ) -> (any ImagePreviewDecoding)? {
        guard format == .jpeg, options.isValid, !kinds.isEmpty else { return nil }
        return JPEGPreviews(options: options, kinds: kinds)
    }
}
