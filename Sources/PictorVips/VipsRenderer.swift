import Foundation
import PictorCore
internal import CVips
internal import CVipsShim

/// The libvips pixel engine behind Pictor's built-in processors.
///
/// Each operation runs on every decoded frame of an animation and keeps frame durations and the
/// loop count. Sizes are in pixels.
///
/// - Important: thread-safe; a value type with no state.
public struct VipsRenderer: ImageRendering {
    /// Creates the renderer (libvips starts on first use).
    public init() {}

    /// Resizes following `options`: fit inside, fill and centre-crop, or stretch; never larger
    /// than the source unless ``/PictorCore/ThumbnailOptions/allowsUpscaling``. Alpha is premultiplied
    /// while resampling, down or up (libvips `thumbnail_image`, on frames marked sRGB or grey
    /// so that it knows the last band is alpha), so fully transparent pixels never bleed their
    /// colour into visible ones.
    ///
    /// - Throws: ``/PictorCore/ImageProcessingError/invalidParameter(processor:message:)`` for a size ≤ 0;
    ///   ``/PictorCore/ImageProcessingError/failed(processor:message:)`` with libvips' text.
    public func resize(_ image: Image, to options: ThumbnailOptions) throws -> Image {
        guard options.width > 0, (options.height ?? 1) > 0 else {
            throw ImageProcessingError.invalidParameter(processor: "resize", message: "width and height must be > 0")
        }
        let size: VipsSize = options.contentMode == .stretch && options.height != nil
            ? VIPS_SIZE_FORCE : (options.allowsUpscaling ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN)
        let crop: Int32 = options.contentMode == .aspectFill && options.height != nil ? 1 : 0
        return try map(image, "resize") { frame throws(VipsError) in
            try frame.apply("thumbnail_image") {
                cvs_thumbnail_image($0, Int32(options.width), Int32(options.height ?? 0), Int32(size.rawValue), crop, $1)
            }
        }
    }

    /// Cuts out `x, y, width, height`, clamped to the image.
    ///
    /// - Throws: ``/PictorCore/ImageProcessingError/invalidParameter(processor:message:)`` when the clamped
    ///   rectangle is empty.
    public func crop(_ image: Image, x: Int, y: Int, width: Int, height: Int) throws -> Image {
        let left = max(0, x), top = max(0, y)
        let right = min(image.width, x &+ max(0, width)), bottom = min(image.height, y &+ max(0, height))
        guard right > left, bottom > top else {
            throw ImageProcessingError.invalidParameter(processor: "crop", message: "rectangle \(x),\(y) \(width)x\(height) is outside the \(image.width)x\(image.height) image")
        }
        if left == 0, top == 0, right == image.width, bottom == image.height { return image }
        return try map(image, "crop") { frame throws(VipsError) in
            try frame.apply("extract_area") {
                cvs_extract_area($0, Int32(left), Int32(top), Int32(right - left), Int32(bottom - top), $1)
            }
        }
    }

    /// Makes the corners transparent outside quarter circles of `radius` pixels (anti-aliased
    /// over one pixel); adds an alpha band when the image has none.
    ///
    /// - Throws: ``/PictorCore/ImageProcessingError/invalidParameter(processor:message:)`` for a negative or
    ///   non-finite radius.
    public func roundCorners(_ image: Image, radius: Double) throws -> Image {
        guard radius.isFinite, radius >= 0 else {
            throw ImageProcessingError.invalidParameter(processor: "roundedCorners", message: "radius must be ≥ 0")
        }
        return CornerMask.apply(to: image, radius: min(radius, Double(min(image.width, image.height)) / 2))
    }

    /// Centre-crops to a square of the shorter side and clears everything outside the inscribed
    /// circle; the result has alpha.
    public func circle(_ image: Image) throws -> Image {
        let side = min(image.width, image.height)
        let square = try crop(image, x: (image.width - side) / 2, y: (image.height - side) / 2, width: side, height: side)
        return CornerMask.apply(to: square, radius: Double(side) / 2)
    }

    /// Gaussian blur with standard deviation `sigma` pixels; alpha is premultiplied while
    /// blurring so transparent pixels do not bleed colour.
    ///
    /// - Throws: ``/PictorCore/ImageProcessingError/invalidParameter(processor:message:)`` for `sigma ≤ 0`.
    public func gaussianBlur(_ image: Image, sigma: Double) throws -> Image {
        guard sigma.isFinite, sigma > 0 else {
            throw ImageProcessingError.invalidParameter(processor: "gaussianBlur", message: "sigma must be > 0")
        }
        let alpha = image.hasAlpha
        return try map(image, "gaussianBlur") { frame throws(VipsError) in
            if !alpha { return try frame.apply("gaussblur") { cvs_gaussblur($0, sigma, $1) } }
            let blurred = try frame.apply("premultiply") { cvs_premultiply($0, $1) }
                .apply("gaussblur") { cvs_gaussblur($0, sigma, $1) }
                .apply("unpremultiply") { cvs_unpremultiply($0, $1) }
            return try blurred.apply("cast") { cvs_cast_uchar($0, $1) }
        }
    }

    /// Converts to grey (Rec. 709 luminance as libvips computes it), keeping alpha.
    public func grayscale(_ image: Image) throws -> Image {
        if image.layout == .gray || image.layout == .grayAlpha { return image }
        return try map(image, "grayscale") { frame throws(VipsError) in
            try frame.apply("colourspace") { cvs_colourspace($0, VIPS_INTERPRETATION_B_W, $1) }
                .apply("cast") { cvs_cast_uchar($0, $1) }
        }
    }

    /// Runs `body` on every frame and rebuilds the image with the same timing.
    private func map(
        _ image: Image, _ processor: String, _ body: (VipsImageHandle) throws(VipsError) -> VipsImageHandle
    ) throws -> Image {
        do {
            try VipsRuntime.start()
            // libvips' error buffer is process-wide: text left by an earlier call (a decode's
            // warnings) would otherwise be reported as this operation's reason.
            cvs_error_clear()
            var frames: [Image.Frame] = []
            var shape: (width: Int, height: Int, layout: Image.PixelLayout)? = nil
            for index in image.frames.indices {
                let output = try body(try VipsImageHandle.from(image, frame: index))
                guard let layout = Image.PixelLayout(rawValue: output.bands), output.bandFormat == VIPS_FORMAT_UCHAR else {
                    throw VipsError(operation: processor, message: "unexpected \(output.bands)-band result")
                }
                let pixels = try output.pixels()
                shape = (output.width, output.height, layout)
                frames.append(Image.Frame(pixels: pixels, duration: image.frames[index].duration))
            }
            guard let shape else { return image }
            return Image(width: shape.width, height: shape.height, layout: shape.layout, frames: frames,
                         loopCount: image.loopCount, sourceFrameCount: image.sourceFrameCount, sourceFormat: image.sourceFormat,
                         isTruncated: image.isTruncated)
        } catch let error as VipsError {
            throw ImageProcessingError.failed(processor: processor, message: error.description)
        }
    }
}
