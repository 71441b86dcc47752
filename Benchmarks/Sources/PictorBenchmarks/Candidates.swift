import Foundation
import PictorCore
import PictorVips

/// The Pictor implementations under test that live outside PictorCore. Each returns `nil` while
/// its module's API has not landed on main; its benchmarks are then listed as not measured.
enum Candidates {
    /// The decoder the default pipeline uses: the libvips registry (PictorVips), which sniffs
    /// the format and takes the TurboJPEG fast path where it applies.
    static func decoder() -> (any ImageDecoding)? { ImageDecoderRegistry.vips }
}
