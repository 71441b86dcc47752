import Foundation
internal import CPNGShim

/// `CPNGShim`'s entry points with Swift types and checked buffer sizes, for callers that reach
/// the shim's inflate and unfilter arithmetic without ``PNGImageData`` or the libspng header
/// checks in front of it (the fuzz target, tests). Each call returns the shim's status; `nil`
/// means the shim returned a code outside `cpng_status`, which is a bug in the shim.
package enum PNGShim {
    /// The shim's result codes (`cpng_status` in `CPNGShim.h`).
    package enum Status: Int32, Sendable {
        /// Decoded or checked.
        case ok = 0
        /// Chunks run past the end, no IDAT, or IDAT chunks that do not follow one another.
        case structure = -1
        /// An IDAT chunk's CRC does not match its bytes.
        case crc = -2
        /// The zlib stream inflates to more than four times the image (decoding only).
        case inflate = -3
        /// A row starts with a filter type other than 0...4.
        case filter = -4
        /// Out of memory, or sizes whose product overflows.
        case memory = -5
        /// The image data ends before the last row.
        case short = -6
        /// The zlib stream is damaged (a bad block, code or Adler-32).
        case zlib = -7
    }

    /// Decodes the pixels of a non-interlaced PNG with 8-bit samples (`cpng_decode_8bit`).
    ///
    /// - Parameters:
    ///   - png: the whole file, signature first; the shim reads only its IDAT chunks.
    ///   - width: pixels per row, as the IHDR says.
    ///   - height: rows, as the IHDR says.
    ///   - channels: samples per pixel, 1...4 (grey, grey + alpha, RGB, RGBA).
    ///   - pixels: the output, exactly `width × height × channels` bytes (a precondition), rows
    ///     packed top to bottom; partly written unless the status is ``Status/ok``.
    /// - Returns: the shim's status.
    package static func decode8Bit(
        _ png: UnsafeRawBufferPointer, width: UInt32, height: UInt32, channels: Int, into pixels: UnsafeMutableRawBufferPointer
    ) -> Status? {
        precondition(pixels.count == Int(width) * Int(height) * channels, "the pixel buffer does not match the image")
        let status = cpng_decode_8bit(png.baseAddress?.assumingMemoryBound(to: UInt8.self), png.count, width, height, Int32(channels),
                                      pixels.baseAddress?.assumingMemoryBound(to: UInt8.self))
        return Status(rawValue: status)
    }

    /// Checks the image data without decoding a pixel (`cpng_check_image_data`): IDAT CRCs,
    /// the zlib stream, that it holds every row (of each Adam7 pass when `interlaced`), and
    /// every filter type.
    ///
    /// - Parameters:
    ///   - png: the whole file, signature first.
    ///   - bitsPerPixel: samples per pixel times the bit depth (1...64).
    ///   - width: pixels per row.
    ///   - height: rows.
    ///   - interlaced: whether the rows are Adam7's seven reduced images.
    /// - Returns: the shim's status.
    package static func checkImageData(
        _ png: UnsafeRawBufferPointer, bitsPerPixel: UInt32, width: UInt32, height: UInt32, interlaced: Bool
    ) -> Status? {
        Status(rawValue: cpng_check_image_data(png.baseAddress?.assumingMemoryBound(to: UInt8.self), png.count, bitsPerPixel,
                                               width, height, interlaced ? 1 : 0))
    }

    /// Checks that the IDAT chunks follow one another, none runs past the end and every CRC
    /// matches (`cpng_check_idat`).
    ///
    /// - Parameter png: the whole file, signature first.
    /// - Returns: the shim's status.
    package static func checkIDAT(_ png: UnsafeRawBufferPointer) -> Status? {
        Status(rawValue: cpng_check_idat(png.baseAddress?.assumingMemoryBound(to: UInt8.self), png.count))
    }

    /// Whether a chunk of `type` (4 ASCII letters) comes before the first IDAT chunk
    /// (`cpng_has_chunk_before_idat`).
    ///
    /// - Parameters:
    ///   - type: the chunk type, exactly 4 ASCII letters (a precondition).
    ///   - png: the whole file, signature first.
    package static func hasChunk(_ type: String, beforeImageDataIn png: UnsafeRawBufferPointer) -> Bool {
        precondition(type.utf8.count == 4, "a chunk type is 4 letters")
        return cpng_has_chunk_before_idat(png.baseAddress?.assumingMemoryBound(to: UInt8.self), png.count, type) != 0
    }
}
