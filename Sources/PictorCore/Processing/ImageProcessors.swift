import Foundation

/// Pictor's built-in processors, each with a leading-dot factory:
///
/// ```swift
/// let processors: [any ImageProcessing] = [.resize(width: 256), .roundedCorners(radius: 8)]
/// let key = ImageProcessors.identifier(of: processors)
/// ```
///
/// The pixel work is done by ``ImageProcessingContext/renderer``.
public enum ImageProcessors {
    /// The identifier of a chain of processors: each processor's identifier, length-prefixed as
    /// `<UTF-8 byte count>:<identifier>` and concatenated; `""` for an empty chain.
    ///
    /// Length-prefixing makes the encoding uniquely decodable, so two different chains never
    /// share an identifier, whatever characters user identifiers contain.
    public static func identifier(of processors: [any ImageProcessing]) -> String {
        processors.map { escaped($0.identifier) }.joined()
    }

    /// `<UTF-8 byte count>:<text>`, the form in which free text enters an identifier.
    public static func escaped(_ text: String) -> String {
        "\(text.utf8.count):\(text)"
    }

    /// A canonical decimal form for a `Double` parameter (`2.0`, `0.5`), stable across runs.
    static func number(_ value: Double) -> String {
        value == 0 ? "0.0" : "\(value)"
    }
}
