import Foundation
internal import CWebP

extension WebPDecoder {
    /// A WebP container's canvas and frame rectangles, as libwebpdemux reads them (as
    /// ``WebPDecoder`` and libvips' loader do) before any pixel is decoded.
    package struct ContainerLayout: Sendable {
        /// The canvas in pixels (VP8X's, or the bitstream's for a simple file).
        package var canvasWidth: Int, canvasHeight: Int
        /// Whether the VP8X animation flag is set.
        package var isAnimated: Bool
        /// The frames, in order.
        package var frames: [Frame]

        /// One frame: where it goes on the canvas and where its bitstream is in the file.
        package struct Frame: Sendable {
            /// The frame's rectangle on the canvas, in pixels.
            package var x: Int, y: Int, width: Int, height: Int
            /// Whether the frame's data is all present.
            package var isComplete: Bool
            /// The frame's ALPH and VP8/VP8L chunks: a byte range of the file.
            package var bitstream: Range<Int>
        }
    }

    /// The canvas and frames of `data`; `nil` when libwebpdemux does not read the container
    /// (also when it is shorter than its RIFF size).
    package static func containerLayout(_ data: Data) -> ContainerLayout? {
        data.withUnsafeBytes { raw -> ContainerLayout? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var container = WebPData(bytes: base, size: raw.count)
            guard let demux = WebPDemux(&container) else { return nil }
            defer { WebPDemuxDelete(demux) }
            let flags = WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS)
            var layout = ContainerLayout(canvasWidth: Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH)),
                                         canvasHeight: Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT)),
                                         isAnimated: flags & ANIMATION_FLAG.rawValue != 0, frames: [])
            var frame = WebPIterator()
            guard WebPDemuxGetFrame(demux, 1, &frame) != 0 else { return layout }
            defer { WebPDemuxReleaseIterator(&frame) }
            repeat {
                let start = frame.fragment.bytes.map { $0 - base } ?? 0
                layout.frames.append(ContainerLayout.Frame(
                    x: Int(frame.x_offset), y: Int(frame.y_offset), width: Int(frame.width), height: Int(frame.height),
                    isComplete: frame.complete != 0, bitstream: start..<(start + frame.fragment.size)))
            } while WebPDemuxNextFrame(&frame) != 0
            return layout
        }
    }
}
