import Foundation
import PictorCore
internal import CVips
internal import CVipsShim

/// Brings any decoded libvips image to the core ``Image`` shape: 8-bit samples, sRGB or grey,
/// 1...4 bands.
enum VipsColour {
    /// Converts colour (CMYK, ICC, Lab, 16-bit) to 8-bit sRGB / grey. An embedded profile that
    /// does not fit the pixels (``ICCProfileCheck``) is ignored: the image is read as if it had none.
    static func normalize(_ input: VipsImageHandle) throws(VipsError) -> VipsImageHandle {
        var image = input
        let interpretation = image.interpretation
        let fits = image.hasFittingICCProfile
        if interpretation == VIPS_INTERPRETATION_CMYK {
            // Adobe (inverted) CMYK and YCCK are undone by the JPEG loader; the profile does the
            // rest: the embedded one when it is a CMYK profile, else libvips' own.
            image = try image.apply("icc_transform") { cvs_icc_to_srgb($0, "cmyk", fits ? 1 : 0, $1) }
        } else if fits {
            // A profile that fits but does not load (bad tags) is ignored rather than failing the decode.
            if let converted = try? image.apply("icc_transform", { cvs_icc_to_srgb($0, "srgb", 1, $1) }) {
                image = converted
            }
        }
        switch image.interpretation {
        case VIPS_INTERPRETATION_sRGB, VIPS_INTERPRETATION_B_W, VIPS_INTERPRETATION_MULTIBAND:
            break
        case VIPS_INTERPRETATION_GREY16:
            image = try image.apply("colourspace") { cvs_colourspace($0, VIPS_INTERPRETATION_B_W, $1) }
        default:
            if image.bands >= 3 {
                image = try image.apply("colourspace") { cvs_colourspace($0, VIPS_INTERPRETATION_sRGB, $1) }
            } else if image.bandFormat == VIPS_FORMAT_USHORT {
                image = try image.apply("colourspace") { cvs_colourspace($0, VIPS_INTERPRETATION_B_W, $1) }
            }
        }
        if image.bandFormat != VIPS_FORMAT_UCHAR {
            if image.bandFormat == VIPS_FORMAT_USHORT {
                // 16-bit samples are scaled (65535 → 255), never clipped.
                image = try image.apply("colourspace") {
                    cvs_colourspace($0, $0.pointee.Bands >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W, $1)
                }
            }
            if image.bandFormat != VIPS_FORMAT_UCHAR {
                image = try image.apply("cast") { cvs_cast_uchar($0, $1) }
            }
        }
        if image.bands > 4 {
            image = try image.apply("extract_band") { cvs_extract_bands($0, 0, 4, $1) }
        }
        return image
    }

    /// Splits an evaluated (possibly multi-page) image into ``Image`` frames.
    static func image(
        from handle: VipsImageHandle, pixels: Data, pageHeight: Int, delays: [Int], loop: Int?,
        declaredFrames: Int, format: ImageFormat?
    ) throws(VipsError) -> Image {
        let width = handle.width, height = handle.height
        guard let layout = Image.PixelLayout(rawValue: handle.bands), width > 0, height > 0 else {
            throw VipsError(operation: "decode", message: "unexpected \(handle.bands)-band result")
        }
        let frameHeight = pageHeight > 0 && pageHeight <= height && height % pageHeight == 0 ? pageHeight : height
        let frameCount = height / frameHeight
        let frameBytes = width * layout.bands * frameHeight
        guard pixels.count == frameBytes * frameCount else {
            throw VipsError(operation: "decode", message: "pixel buffer size mismatch")
        }
        var frames: [Image.Frame] = []
        frames.reserveCapacity(frameCount)
        if frameCount == 1 {
            frames.append(Image.Frame(pixels: pixels, duration: delays.first.flatMap { declaredFrames > 1 ? Double($0) / 1000 : nil }))
        } else {
            for index in 0..<frameCount {
                let start = index * frameBytes
                let delay = index < delays.count ? Double(delays[index]) / 1000 : nil
                frames.append(Image.Frame(pixels: Data(pixels[start..<start + frameBytes]), duration: delay))
            }
        }
        return Image(width: width, height: frameHeight, layout: layout, frames: frames,
                     loopCount: loop, sourceFrameCount: max(declaredFrames, frameCount), sourceFormat: format)
    }
}

/// Whether an embedded ICC profile can be used for an image, read from the profile's header
/// (ICC.1:2010 §7.2) before Little CMS sees it: a profile of another colour space than the
/// pixels' (a grey profile on RGB data would turn it into grey plus two extra bands), a
/// truncated one, or one that is not an input profile at all is not used.
enum ICCProfileCheck {
    /// Whether `profile` describes pixels of `bands` bands (alpha included), CMYK or not.
    static func fits(_ profile: UnsafeRawBufferPointer, bands: Int, isCMYK: Bool) -> Bool {
        guard profile.count >= 132 else { return false }
        func u32(_ i: Int) -> Int { Int(profile[i]) << 24 | Int(profile[i + 1]) << 16 | Int(profile[i + 2]) << 8 | Int(profile[i + 3]) }
        func tag(_ i: Int) -> String { String(decoding: profile[i..<(i + 4)], as: UTF8.self) }
        let size = u32(0), tags = u32(128)
        guard size >= 132, size <= profile.count, tag(36) == "acsp", tags > 0, 132 + 12 * tags <= size else { return false }
        guard ["mntr", "scnr", "prtr", "spac"].contains(tag(12)) else { return false }
        switch tag(16) {
        case "GRAY": return !isCMYK && bands <= 2
        case "RGB ": return !isCMYK && bands >= 3
        case "CMYK": return isCMYK
        default: return false
        }
    }
}
