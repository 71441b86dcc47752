import Foundation

/// A decoded image: 8-bit interleaved pixels in sRGB, already in display orientation (EXIF
/// orientation applied), with every decoded frame of an animation.
///
/// `Image` is a value type and `Sendable`; its pixel buffers are immutable `Data` values shared
/// between copies. It is what the memory cache stores and what ``ImagePipeline`` delivers.
public struct Image: Sendable, Hashable {
    /// The channel layout of each pixel; every sample is one byte (0...255).
    public enum PixelLayout: Int, Sendable, Hashable, Codable {
        /// One band: grey.
        case gray = 1
        /// Two bands: grey, alpha (straight, not premultiplied).
        case grayAlpha = 2
        /// Three bands: red, green, blue.
        case rgb = 3
        /// Four bands: red, green, blue, alpha (straight, not premultiplied).
        case rgba = 4

        /// Number of bytes per pixel (1...4).
        public var bands: Int { rawValue }
        /// Whether the layout has an alpha band.
        public var hasAlpha: Bool { self == .grayAlpha || self == .rgba }
    }

    /// One frame of an image: its pixels and, for animations, how long it is shown.
    public struct Frame: Sendable, Hashable {
        /// Row-major pixels, `bytesPerRow × height` bytes.
        public var pixels: Data
        /// Display time in seconds; `nil` for still images or when the file gives none.
        public var duration: Double?

        /// Creates a frame from its pixels and optional display time in seconds.
        public init(pixels: Data, duration: Double? = nil) {
            self.pixels = pixels
            self.duration = duration
        }
    }

    /// Width in pixels, after orientation.
    public var width: Int
    /// Height in pixels, after orientation.
    public var height: Int
    /// Channel layout shared by all frames.
    public var layout: PixelLayout
    /// The decoded frames; a still image has exactly one. Animated images carry only their first
    /// frame unless every frame was requested when decoding.
    public var frames: [Frame]
    /// Number of times an animation repeats (`0` means forever, the GIF/WebP convention); `nil`
    /// for still images.
    public var loopCount: Int?
    /// Number of frames the source declares (can exceed `frames.count` when only the first frame
    /// was decoded); `1` for still images.
    public var sourceFrameCount: Int
    /// The format the image was decoded from, `nil` for images made in memory.
    public var sourceFormat: ImageFormat?
    /// Whether the data ended before the image did. Only a decode whose
    /// ``ImageDecodingOptions/truncatedData`` accepts the cut returns such an image (by default,
    /// an animation cut after a complete frame): an animation then
    /// holds only the frames the data held completely (``sourceFrameCount`` is that count too,
    /// the file's own count being unknown), a still image has its missing rows filled by the
    /// decoder. Default `false`.
    public var isTruncated: Bool

    /// Creates an image.
    ///
    /// - Precondition: every frame holds exactly `width × layout.bands × height` bytes, and
    ///   `frames` is not empty.
    public init(
        width: Int, height: Int, layout: PixelLayout, frames: [Frame],
        loopCount: Int? = nil, sourceFrameCount: Int? = nil, sourceFormat: ImageFormat? = nil, isTruncated: Bool = false
    ) {
        precondition(width > 0 && height > 0, "an image has at least one pixel")
        precondition(!frames.isEmpty, "an image has at least one frame")
        precondition(frames.allSatisfy { $0.pixels.count == width * layout.bands * height },
                     "frame size does not match width × bands × height")
        self.width = width
        self.height = height
        self.layout = layout
        self.frames = frames
        self.loopCount = loopCount
        self.sourceFrameCount = sourceFrameCount ?? frames.count
        self.sourceFormat = sourceFormat
        self.isTruncated = isTruncated
    }

    /// Creates a still image from one buffer of pixels.
    public init(width: Int, height: Int, layout: PixelLayout, pixels: Data, sourceFormat: ImageFormat? = nil) {
        self.init(width: width, height: height, layout: layout, frames: [Frame(pixels: pixels)], sourceFormat: sourceFormat)
    }

    /// Number of bytes per pixel (1...4).
    public var bands: Int { layout.bands }
    /// Whether the pixels carry an alpha band.
    public var hasAlpha: Bool { layout.hasAlpha }
    /// Bytes per row of one frame: `width × bands` (rows are tightly packed).
    public var bytesPerRow: Int { width * layout.bands }
    /// The first frame's pixels.
    public var pixels: Data { frames[0].pixels }
    /// Whether more than one frame was decoded.
    public var isAnimated: Bool { frames.count > 1 }

    /// The memory this image holds, in bytes: bytes per row × height × decoded frames. This is
    /// the cost the memory cache charges for it.
    public var cost: Int { bytesPerRow * height * frames.count }

    /// One frame's pixels as RGBA, 8 bits per sample, straight alpha (opaque `255` where the
    /// image has no alpha), `width × 4 × height` bytes. Grey is copied into red, green and blue;
    /// an image that is already ``PixelLayout/rgba`` returns the frame's own buffer, uncopied.
    ///
    /// - Parameter index: which of ``frames`` to convert; the first (`0`) by default.
    /// - Precondition: `index` is in `0..<frames.count`.
    public func rgba8(frame index: Int = 0) -> Data {
        let src = frames[index].pixels
        if layout == .rgba { return src }
        let count = width * height
        var out = Data(count: count * 4)
        src.withUnsafeBytes { s in
            out.withUnsafeMutableBytes { d in
                let s = s.bindMemory(to: UInt8.self), d = d.bindMemory(to: UInt8.self)
                for i in 0..<count {
                    switch layout {
                    case .gray:
                        let g = s[i]; d[4 * i] = g; d[4 * i + 1] = g; d[4 * i + 2] = g; d[4 * i + 3] = 255
                    case .grayAlpha:
                        let g = s[2 * i]; d[4 * i] = g; d[4 * i + 1] = g; d[4 * i + 2] = g; d[4 * i + 3] = s[2 * i + 1]
                    case .rgb:
                        d[4 * i] = s[3 * i]; d[4 * i + 1] = s[3 * i + 1]; d[4 * i + 2] = s[3 * i + 2]; d[4 * i + 3] = 255
                    case .rgba:
                        break
                    }
                }
            }
        }
        return out
    }
}
