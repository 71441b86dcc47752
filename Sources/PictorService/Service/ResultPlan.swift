import Foundation
import PictorCore

/// What one request asks the pipeline for: the image request (thumbnail and processors), the
/// output format and quality, and whether the answer depends on `Accept`.
///
/// Options not carried out yet are refused with ``ServiceError/Kind/unsupportedOption`` (400,
/// naming the option) rather than ignored, so a client never gets an image that silently
/// differs from its URL:
/// - `extend`/`ex` enabled (padding to the requested size);
/// - `gravity:sm` (smart crop) on a resize that crops (`fill`, `fill-down`, `auto`);
/// - `background`/`bg` (flattening alpha onto a colour);
/// - `strip_metadata:0` (results are encoded from pixels, so metadata is never kept).
///
/// Carried out: `resize`/`size`/`width`/`height`/`resizing_type` (all five types), `enlarge`,
/// `dpr`, `gravity` (compass points with offsets, focus point) for crops, `quality`, `format`,
/// `cachebuster` (in the cache key only), `preset`.
struct ResultPlan: Sendable {
    var request: ImageRequest
    /// The format asked for (`f:`, the extension, or negotiated); `nil` for the source's own.
    var format: ImageFormat?
    /// The encoder quality, 1...100.
    var quality: Int
    /// Whether the format was left to `Accept` (the response then carries `Vary: Accept`).
    var variesByAccept: Bool

    /// A pixel size larger than any result, for a fit that bounds one side only (libvips'
    /// coordinates stop at 10,000,000).
    static let unbounded = 1 << 20

    init(_ url: ProcessingURL, source: URL, accept: String?, configuration: ImageService.Configuration) throws(ServiceError) {
        let o = url.options
        try Self.refuseUnsupported(o)
        let w = Int((Double(o.width) * o.dpr).rounded()), h = Int((Double(o.height) * o.dpr).rounded())
        let limit = configuration.maxResultDimension
        guard w <= limit, h <= limit else {
            throw ServiceError(.resultTooLarge, reason: "the requested size \(w)x\(h) is over the limit of \(limit) pixels a side")
        }
        let (pixels, overflow) = w.multipliedReportingOverflow(by: h)
        guard !overflow, pixels <= configuration.maxResultPixels else {
            throw ServiceError(
                .resultTooLarge,
                reason: "the requested size \(w)x\(h) (\(overflow ? "too many" : "\(pixels)") pixels) is over the limit of \(configuration.maxResultPixels) pixels")
        }
        if let format = o.format {
            guard configuration.outputFormats.contains(format) else {
                throw ServiceError(.unsupportedOutputFormat, reason: "output format '\(format.rawValue)' is not supported")
            }
            self.format = format
            variesByAccept = false
        } else {
            variesByAccept = !configuration.autoFormats.isEmpty
            self.format = FormatNegotiation.choose(configuration.autoFormats.filter(configuration.outputFormats.contains), accept: accept)
        }
        quality = o.quality == 0 ? configuration.defaultQuality : o.quality

        var gravity = o.gravity
        if gravity.kind != .focusPoint {
            // Pixel offsets scale with the device pixel ratio; fractions do not.
            if abs(gravity.xOffset) >= 1 { gravity.xOffset *= o.dpr }
            if abs(gravity.yOffset) >= 1 { gravity.yOffset *= o.dpr }
        }
        var thumbnail: ThumbnailOptions?
        var processors: [any ImageProcessing] = []
        let centred = gravity.kind == .center && gravity.xOffset == 0 && gravity.yOffset == 0
        let oneSide = w == 0 || h == 0
        let type = o.resizingType
        if w == 0 && h == 0 {
            // No size: the source's own.
        } else if type == .fit || (oneSide && (type == .fill || type == .fillDown)) {
            thumbnail = ThumbnailOptions(width: w > 0 ? w : Self.unbounded, height: h > 0 ? h : nil, contentMode: .aspectFit, allowsUpscaling: o.enlarge)
        } else if type == .fill, centred {
            thumbnail = ThumbnailOptions(width: w, height: h, contentMode: .aspectFill, allowsUpscaling: o.enlarge)
        } else if type == .force, !oneSide {
            thumbnail = ThumbnailOptions(width: w, height: h, contentMode: .stretch, allowsUpscaling: o.enlarge)
        } else {
            processors.append(ServiceResize(width: w, height: h, type: type, enlarge: o.enlarge, gravity: gravity))
        }
        // Format and quality are left out of the tag: the encoded key names them, and without
        // them one decoded, processed image serves every format and quality asked of it.
        var processing = o
        processing.format = nil
        processing.quality = 0
        processors.append(OptionsTag(canonical: processing.canonicalString))
        request = ImageRequest(url: source, processors: processors, thumbnail: thumbnail)
    }

    private static func refuseUnsupported(_ o: ProcessingOptions) throws(ServiceError) {
        func refuse(_ option: String, _ why: String) -> ServiceError {
            ServiceError(.unsupportedOption, reason: "option '\(option)' is not supported yet (\(why))")
        }
        if o.extend.enabled { throw refuse("extend", "results are never padded") }
        if o.gravity.kind == .smart, [.fill, .fillDown, .auto].contains(o.resizingType) {
            throw refuse("gravity:sm", "no smart crop; use a compass point or fp")
        }
        if o.background != nil { throw refuse("background", "alpha is not flattened onto a colour") }
        if !o.stripMetadata { throw refuse("strip_metadata", "results never keep the source's metadata") }
    }
}

/// A request's plan and its result key, as ``ImageService`` keeps them for the next request
/// with the same path and `Accept`.
struct PreparedPlan: Sendable {
    var plan: ResultPlan
    var key: String
}
