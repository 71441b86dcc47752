import Foundation
import PictorCore
internal import CWebP

/// The WebP fast path: still images, lossy (VP8) or lossless (VP8L), with or without alpha
/// (ALPH), decoded by libwebp straight into a buffer Pictor owns. Thumbnails use libwebp's
/// scaled decode at the resized size, libvips' shrink-on-load for WebP (its loader's `scale`),
/// so the decode itself gives the thumbnail; ``PixelResampler`` then only orients and crops.
///
/// The container is read with libwebpdemux and the frame decoded with the options libvips 8.14's
/// loader uses (RGBA, fancy upsampling) and at the size it asks for, so full-size pixels and
/// fitted or filled thumbnails are libvips' own. A stretch is decoded at its own two scales
/// (libvips decodes at the smaller shrink and resizes the other axis without premultiplying
/// alpha); it matches within a few levels. It skips libvips' per-image thread pool and its
/// full-size RGBA frame buffer. Alpha follows the container's alpha flag, as libvips does; EXIF orientation is
/// applied. Everything else goes to libvips: animations, an embedded ICC profile (libvips
/// converts it to sRGB), a thumbnail larger than the image, a file shorter than its RIFF size
/// (truncation has its own rules there), and any container libwebpdemux rejects.
enum WebPDecoder {
    /// The image (a thumbnail when `target` is set) of the WebP in `raw`, or `nil` when libvips must do it.
    ///
    /// - Throws: ``ImageDecodingError/tooManyPixels(width:height:limit:)`` from the header,
    ///   before any pixel buffer is allocated; ``ImageDecodingError/corrupt(_:message:)`` for a
    ///   bitstream libwebp cannot decode (``failure(_:)``).
    static func decode(_ raw: UnsafeRawBufferPointer, thumbnail target: ThumbnailOptions?, options: ImageDecodingOptions) throws -> Image? {
        guard let base = raw.baseAddress else { return nil }
        var container = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: raw.count)
        guard let demux = WebPDemux(&container) else { return nil }
        defer { WebPDemuxDelete(demux) }
        let flags = WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS)
        guard flags & ANIMATION_FLAG.rawValue == 0, flags & ICCP_FLAG.rawValue == 0 else { return nil }
        let width = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH)), height = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT))
        guard width > 0, height > 0 else { return nil }
        try VipsDecoder.checkPixelCount(width: width, height: height, options: options)

        var frame = WebPIterator()
        guard WebPDemuxGetFrame(demux, 1, &frame) != 0 else { return nil }
        defer { WebPDemuxReleaseIterator(&frame) }
        // The frame's ALPH and VP8/VP8L chunks: one still image covering the canvas.
        var features = WebPBitstreamFeatures()
        guard let bitstream = frame.fragment.bytes, WebPGetFeatures(bitstream, frame.fragment.size, &features) == VP8_STATUS_OK,
              features.has_animation == 0, Int(features.width) == width, Int(features.height) == height else { return nil }
        let orientation = flags & EXIF_FLAG.rawValue != 0 ? exifOrientation(demux) : 1

        let plan = TurboJPEGDecoder.Plan(width: width, height: height, orientation: orientation, target: target)
        // Enlarging is libvips' (its interpolator, not libwebp's rescaler, shapes the edges).
        guard plan.resizedSourceWidth <= width, plan.resizedSourceHeight <= height else { return nil }
        let layout: Image.PixelLayout = flags & ALPHA_FLAG.rawValue != 0 ? .rgba : .rgb
        let decodedWidth = plan.resizedSourceWidth, decodedHeight = plan.resizedSourceHeight
        let count = decodedWidth * decodedHeight * layout.bands
        guard let memory = malloc(max(1, count)) else { return nil }
        var owner: UnsafeMutableRawPointer? = memory
        defer { free(owner) }
        let pixels = memory.bindMemory(to: UInt8.self, capacity: count)
        let status = decodeFrame(bitstream, frame.fragment.size, into: pixels, count: count, width: decodedWidth,
                                 height: decodedHeight, layout: layout, scaled: decodedWidth != width || decodedHeight != height)
        guard status == VP8_STATUS_OK else {
            if let error = failure(status) { throw error }
            return nil
        }

        if plan.outputWidth == decodedWidth, plan.outputHeight == decodedHeight, orientation == 1 {
            // Nothing to orient or crop: libwebp's buffer becomes the image's, without a copy.
            owner = nil
            let data = Data(bytesNoCopy: memory, count: count, deallocator: .free)
            return Image(width: decodedWidth, height: decodedHeight, layout: layout, frames: [Image.Frame(pixels: data)],
                         sourceFrameCount: 1, sourceFormat: .webp)
        }
        let result = PixelResampler.thumbnail(pixels, width: decodedWidth, height: decodedHeight, bands: layout.bands,
                                              resizedTo: decodedWidth, decodedHeight,
                                              orientation: orientation, croppedTo: plan.outputWidth, plan.outputHeight)
        return Image(width: plan.outputWidth, height: plan.outputHeight, layout: layout,
                     frames: [Image.Frame(pixels: result)], sourceFrameCount: 1, sourceFormat: .webp)
    }

    /// Decodes one frame's bitstream into `pixels` (`width × height`, packed RGB or RGBA), scaled
    /// by libwebp's rescaler when `scaled`.
    private static func decodeFrame(_ bitstream: UnsafePointer<UInt8>, _ length: Int, into pixels: UnsafeMutablePointer<UInt8>,
                                    count: Int, width: Int, height: Int, layout: Image.PixelLayout, scaled: Bool) -> VP8StatusCode {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { return VP8_STATUS_INVALID_PARAM }
        if scaled {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(width)
            config.options.scaled_height = Int32(height)
        }
        // libvips decodes RGBA and drops a solid alpha; RGB straight away gives the same samples
        // (the same YUV conversion) and no copy.
        config.output.colorspace = layout == .rgba ? MODE_RGBA : MODE_RGB
        config.output.is_external_memory = 1
        config.output.width = Int32(width)
        config.output.height = Int32(height)
        config.output.u.RGBA.rgba = pixels
        config.output.u.RGBA.stride = Int32(width * layout.bands)
        config.output.u.RGBA.size = count
        defer { WebPFreeDecBuffer(&config.output) }
        return WebPDecode(bitstream, length, &config)
    }

    /// The decode error for a libwebp status, or `nil` for a status that says nothing about the
    /// file (memory, parameters): that file is left to libvips.
    ///
    /// Every failure of the data is ``ImageDecodingError/corrupt(_:message:)``, as libvips
    /// reports it: files shorter than their RIFF size never get here, so data that ends early
    /// lies about its own chunk sizes.
    static func failure(_ status: VP8StatusCode) -> ImageDecodingError? {
        switch status {
        case VP8_STATUS_BITSTREAM_ERROR: .corrupt(.webp, message: "the compressed image data is damaged")
        case VP8_STATUS_NOT_ENOUGH_DATA: .corrupt(.webp, message: "the image data ends before the image does")
        case VP8_STATUS_UNSUPPORTED_FEATURE: .corrupt(.webp, message: "the bitstream uses a feature libwebp does not decode")
        default: nil
        }
    }

    /// The orientation in the EXIF chunk (1 when there is none or it is malformed).
    private static func exifOrientation(_ demux: OpaquePointer) -> Int {
        var chunk = WebPChunkIterator()
        defer { WebPDemuxReleaseChunkIterator(&chunk) }
        guard WebPDemuxGetChunk(demux, "EXIF", 1, &chunk) != 0, let bytes = chunk.chunk.bytes else { return 1 }
        return EXIFOrientation.value(exif: UnsafeRawBufferPointer(start: bytes, count: chunk.chunk.size)) ?? 1
    }
}
