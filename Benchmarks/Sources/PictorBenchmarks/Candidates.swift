import Foundation
import PictorCore

/// The Pictor implementations under test that live outside PictorCore. Each returns `nil` while
/// its module's API has not landed on main; its benchmarks are then listed as not measured.
enum Candidates {
    /// The libvips decoder (PictorVips).
    static func decoder() -> (any ImageDecoding)? { nil }
    /// The HTTP loader used by the pipeline by default.
    static func loader() -> (any DataLoading)? { nil }
}
