import Foundation
import PictorCore
internal import CTurboJPEG

/// The JPEG fast path. Full size: libjpeg-turbo decodes straight to RGB or grey. Thumbnails:
/// libjpeg-turbo decodes at a DCT-scaled size (1/2, 1/4 or 1/8) that leaves at least a 2×
/// reduction for a triangle-filter resample. EXIF orientation is then applied to the result.
///
/// It skips libvips' thread-pool hand-offs (≈ 7 ms per image on 2 vCPUs, performance.md §1.5).
/// It only takes the plain cases and returns `nil` for everything else, which then goes through
/// libvips: CMYK/YCCK, an embedded ICC profile, malformed markers, or any libjpeg warning or
/// error (truncation, corrupt data). Full-size pixels are libjpeg's own (the same library libvips
/// uses); thumbnails match libvips' within a few levels.
enum TurboJPEGDecoder {
    /// The image (a thumbnail when `target` is set) of `raw`, or `nil` when libvips must do it.
    ///
    /// - Throws: ``ImageDecodingError/tooManyPixels(width:height:limit:)`` from the header.
    static func decode(_ raw: UnsafeRawBufferPointer, thumbnail target: ThumbnailOptions?, options: ImageDecodingOptions) throws -> Image? {
        guard let base = raw.baseAddress, let markers = JPEGMarkers(raw), !markers.hasICCProfile else { return nil }
        guard let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        let source = base.assumingMemoryBound(to: UInt8.self)
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colourspace: Int32 = 0
        guard tjDecompressHeader3(handle, source, UInt(raw.count), &width, &height, &subsampling, &colourspace) == 0,
              width > 0, height > 0 else { return nil }
        let gray = colourspace == Int32(TJCS_GRAY.rawValue)
        guard gray || colourspace == Int32(TJCS_YCbCr.rawValue) || colourspace == Int32(TJCS_RGB.rawValue) else { return nil }
        try VipsDecoder.checkPixelCount(width: Int(width), height: Int(height), options: options)

        let plan = Plan(width: Int(width), height: Int(height), orientation: markers.orientation, target: target)
        let bands = gray ? 1 : 3
        let denominator = dctDenominator(shrink: plan.shrink)
        let scaledWidth = (Int(width) + denominator - 1) / denominator
        let scaledHeight = (Int(height) + denominator - 1) / denominator
        let flags = options.allowsTruncatedData ? 0 : TJFLAG_STOPONWARNING
        let format = gray ? TJPF_GRAY : TJPF_RGB
        let layout: Image.PixelLayout = gray ? .gray : .rgb
        if scaledWidth == plan.outputWidth, scaledHeight == plan.outputHeight, markers.orientation == 1 {
            // Nothing to resample, orient or crop: decode straight into the image's buffer.
            // libjpeg writes every byte: the buffer is not cleared first, and becomes the image's without a copy.
            let count = scaledWidth * scaledHeight * bands
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
            let status = tjDecompress2(handle, source, UInt(raw.count), buffer, Int32(scaledWidth), 0, Int32(scaledHeight),
                                       Int32(format.rawValue), flags)
            guard status == 0 else { buffer.deallocate(); return nil }
            let data = Data(bytesNoCopy: buffer, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
            return Image(width: scaledWidth, height: scaledHeight, layout: layout, frames: [Image.Frame(pixels: data)],
                         sourceFrameCount: 1, sourceFormat: .jpeg)
        }
        var status: Int32 = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: scaledWidth * scaledHeight * bands) { out, initialized in
            status = tjDecompress2(handle, source, UInt(raw.count), out.baseAddress, Int32(scaledWidth), 0, Int32(scaledHeight),
                                   Int32(format.rawValue), flags)
            initialized = out.count   // every byte on success; the array is dropped otherwise
        }
        guard status == 0 else { return nil }

        var result = PixelResampler.resample(pixels, width: scaledWidth, height: scaledHeight, bands: bands,
                                             to: plan.resizedSourceWidth, plan.resizedSourceHeight)
        let (oriented, ow, oh) = PixelResampler.orient(result, width: plan.resizedSourceWidth, height: plan.resizedSourceHeight,
                                                       bands: bands, orientation: markers.orientation)
        result = PixelResampler.centreCrop(oriented, width: ow, height: oh, bands: bands, to: plan.outputWidth, plan.outputHeight)
        return Image(width: plan.outputWidth, height: plan.outputHeight, layout: layout,
                     frames: [Image.Frame(pixels: Data(result))], sourceFrameCount: 1, sourceFormat: .jpeg)
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
