import Foundation
import Pictor

/// `--resize` and `--fit`: the thumbnail box, in the grammar of vipsthumbnail and ImageMagick,
/// and how the image fills it (sharp's and imgproxy's words).
///
/// - `W`: inside a W×W box; `WxH`: inside W×H; `Wx`: W wide, any height; `xH`: H high, any width.
/// - `--fit inside` (default) keeps the aspect ratio inside the box; `cover` fills the box and
///   crops the centre; `fill` stretches to the box exactly.
package struct ResizeOption: Equatable {
    package enum Fit: String, CaseIterable {
        case inside, cover, fill

        var contentMode: ThumbnailOptions.ContentMode {
            switch self {
            case .inside: .aspectFit
            case .cover: .aspectFill
            case .fill: .stretch
            }
        }
    }

    /// Width in pixels; `nil` for `xH` (any width).
    package var width: Int?
    /// Height in pixels; `nil` for `Wx` (any height).
    package var height: Int?
    package var fit: Fit = .inside

    /// - Throws: ``CLIError/usage(_:)`` naming the bad value.
    package static func parse(_ text: String?, fit fitText: String? = nil) throws -> ResizeOption? {
        let fit = try fitText.map { name in
            guard let fit = Fit(rawValue: name.lowercased()) else {
                throw CLIError.usage("invalid value '\(name)' for '--fit': expected inside, cover or fill")
            }
            return fit
        } ?? .inside
        guard let text else {
            if fitText != nil { throw CLIError.usage("'--fit' needs '--resize'") }
            return nil
        }
        let invalid = CLIError.usage("invalid value '\(text)' for '--resize': expected W, WxH, Wx or xH in pixels (1...65535)")
        func value(_ s: Substring) -> Int? { Int(s).flatMap { (1...65_535).contains($0) ? $0 : nil } }
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        var option: ResizeOption
        switch parts.count {
        case 1:
            guard let w = value(parts[0]) else { throw invalid }
            option = ResizeOption(width: w, height: w)
        case 2 where parts[0].isEmpty:
            guard let h = value(parts[1]) else { throw invalid }
            option = ResizeOption(width: nil, height: h)
        case 2 where parts[1].isEmpty:
            guard let w = value(parts[0]) else { throw invalid }
            option = ResizeOption(width: w, height: nil)
        case 2:
            guard let w = value(parts[0]), let h = value(parts[1]) else { throw invalid }
            option = ResizeOption(width: w, height: h)
        default:
            throw invalid
        }
        option.fit = fit
        if fit != .inside, option.width == nil || option.height == nil {
            throw CLIError.usage("'--fit \(fit.rawValue)' needs a box with both sides: --resize W or WxH")
        }
        return option
    }

    /// The processor: a box side left open is as large as an image can be, so only the other
    /// side constrains it.
    var processor: ImageProcessors.Resize {
        .resize(width: width ?? Self.openSide, height: height, contentMode: fit.contentMode)
    }

    /// The width of a box whose width is left open (`xH`): 10,000,000 pixels, the largest side
    /// libvips gives an image (`VIPS_MAX_COORD`). A smaller stand-in squeezed wider images: a
    /// 70,000-pixel-wide PNG at `x5` came out 65,535 wide.
    static let openSide = 10_000_000
}
