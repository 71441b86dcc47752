import Foundation
import PictorCore
internal import CVips
internal import CVipsShim

/// Owns one reference to a `VipsImage` and releases it on deinit. Used only inside one call; never
/// shared between threads.
final class VipsImageHandle {
    let pointer: UnsafeMutablePointer<VipsImage>

    init(_ pointer: UnsafeMutablePointer<VipsImage>) { self.pointer = pointer }
    deinit { cvs_unref(pointer) }

    /// Runs a vips call that writes a new image into an out-parameter.
    static func make(
        _ operation: String, _ body: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws(VipsError) -> VipsImageHandle {
        var out: UnsafeMutablePointer<VipsImage>? = nil
        let result = body(&out)
        guard result == 0, let image = out else {
            if let image = out { cvs_unref(image) }
            throw VipsError.last(operation)
        }
        return VipsImageHandle(image)
    }

    /// Applies a one-input operation to this image.
    func apply(
        _ operation: String, _ body: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws(VipsError) -> VipsImageHandle {
        try Self.make(operation) { body(pointer, $0) }
    }

    var width: Int { Int(cvs_width(pointer)) }
    var height: Int { Int(cvs_height(pointer)) }
    var bands: Int { Int(cvs_bands(pointer)) }
    var bandFormat: VipsBandFormat { cvs_format(pointer) }
    var interpretation: VipsInterpretation { cvs_interpretation(pointer) }
    var hasICCProfile: Bool { cvs_has_icc(pointer) != 0 }

    /// Whether the image carries an ICC profile that can describe its pixels
    /// (``ICCProfileCheck``): libvips would apply a grey profile to the first band of RGB data
    /// and keep the others as extra bands.
    var hasFittingICCProfile: Bool {
        var length = 0
        guard let blob = cvs_icc_blob(pointer, &length), length > 0 else { return false }
        return ICCProfileCheck.fits(UnsafeRawBufferPointer(start: blob, count: length), bands: bands,
                                    isCMYK: interpretation == VIPS_INTERPRETATION_CMYK)
    }

    func int(_ name: String, default fallback: Int) -> Int {
        Int(cvs_get_int(pointer, name, Int32(clamping: fallback)))
    }

    func ints(_ name: String, capacity: Int) -> [Int] {
        var buffer = [Int32](repeating: 0, count: max(capacity, 1))
        let count = Int(cvs_get_int_array(pointer, name, &buffer, Int32(clamping: capacity)))
        return buffer.prefix(count).map(Int.init)
    }

    /// Evaluates the whole pipeline into one tightly packed buffer. Decode errors surface here.
    func pixels() throws(VipsError) -> Data {
        var size = 0
        guard let memory = cvs_write_to_memory(pointer, &size) else {
            throw VipsError.last("write_to_memory")
        }
        return Data(bytesNoCopy: memory, count: size, deallocator: .custom { pointer, _ in cvs_free(pointer) })
    }

    /// Wraps every frame of `image` as one tall strip with libvips' animation metadata:
    /// `page-height`, `delay` (milliseconds; 100 where a frame has no duration) and `loop`
    /// (`0`, forever, when the image has no loop count); marked sRGB or grey like ``from(_:frame:)``.
    static func animation(_ image: Image) throws(VipsError) -> VipsImageHandle {
        var strip = Data(capacity: image.cost)
        for frame in image.frames { strip.append(frame.pixels) }
        let pointer: UnsafeMutablePointer<VipsImage>? = strip.withUnsafeBytes { raw in
            cvs_new_from_memory_copy(raw.baseAddress, raw.count, Int32(image.width), Int32(image.height * image.frames.count),
                                            Int32(image.bands))
        }
        guard let pointer else { throw VipsError.last("new_from_memory_copy") }
        cvs_set_interpretation(pointer, Int32(image.bands))
        var delays = image.frames.map { Int32(clamping: Int((($0.duration ?? 0.1) * 1000).rounded())) }
        cvs_set_int(pointer, "page-height", Int32(image.height))
        cvs_set_int_array(pointer, "delay", &delays, Int32(delays.count))
        cvs_set_int(pointer, "loop", Int32(clamping: image.loopCount ?? 0))
        return VipsImageHandle(pointer)
    }

    /// Wraps the pixels of one frame of `image` (copied into libvips memory), marked sRGB or grey
    /// so that libvips knows the last band of a 2- or 4-band image is alpha (a bare memory image
    /// is "multiband", and would be resampled with straight alpha).
    static func from(_ image: Image, frame: Int = 0) throws(VipsError) -> VipsImageHandle {
        let pixels = image.frames[frame].pixels
        let handle: UnsafeMutablePointer<VipsImage>? = pixels.withUnsafeBytes { raw in
            cvs_new_from_memory_copy(raw.baseAddress, raw.count, Int32(image.width), Int32(image.height),
                                            Int32(image.bands))
        }
        guard let handle else { throw VipsError.last("new_from_memory_copy") }
        cvs_set_interpretation(handle, Int32(image.bands))
        return VipsImageHandle(handle)
    }
}
