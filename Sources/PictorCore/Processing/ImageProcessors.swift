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
    /// The identifier of a chain of processors, as the cache keys hold it: each processor's
    /// ``cacheIdentifier(of:)``, length-prefixed as `<UTF-8 byte count>:<cache identifier>` and
    /// concatenated; `""` for an empty chain. For example `[.grayscale, .circle]` is
    /// `16:pictor.grayscale13:pictor.circle`.
    ///
    /// Length-prefixing makes the encoding uniquely decodable, so two different chains never
    /// share an identifier, whatever characters user identifiers contain.
    public static func identifier(of processors: [any ImageProcessing]) -> String {
        processors.map { escaped(cacheIdentifier(of: $0)) }.joined()
    }

    /// The name under which the caches (memory, disk variants) and the pipeline's shared
    /// processing jobs know `processor`: its ``ImageProcessing/identifier`` in a namespace that
    /// says whose processor it is.
    ///
    /// - Pictor's own processors (``Resize``, ``Crop``, ``RoundedCorners``, ``Circle``,
    ///   ``GaussianBlur``, ``Grayscale``, ``Composition``, ``Anonymous``): `pictor.` followed by
    ///   the identifier, e.g. `pictor.grayscale`.
    /// - Every other type, that is every processor written outside Pictor: `user:` followed by
    ///   the identifier, e.g. `user:grayscale`.
    ///
    /// Which prefix a processor gets depends on its type, never on its text, and the two
    /// prefixes differ in their first byte; so no identifier a user picks, `"grayscale"` or
    /// `"pictor.grayscale"` alike, can name a built-in processor's entries or join its work.
    /// Two of a user's own types with the same identifier do share entries: an identifier must
    /// name every parameter that changes the pixels.
    public static func cacheIdentifier(of processor: any ImageProcessing) -> String {
        (processor is any BuiltInImageProcessor ? "pictor." : "user:") + processor.identifier
    }

    /// A user processor: `closure` does the work, `identifier` names it in cache keys
    /// (as ``ImageProcessing/custom(identifier:_:)`` does, spelled on this namespace:
    /// `ImageProcessors.custom(identifier: "sepia") { image, context in … }`).
    ///
    /// - Parameters:
    ///   - identifier: names the processor in cache keys: give each different operation its own.
    ///   - closure: does the work, with the context's renderer at hand.
    /// - Returns: an ``Anonymous`` processor, known to the caches as
    ///   `pictor.custom(<byte count>:<identifier>)`.
    public static func custom(
        identifier: String, _ closure: @escaping @Sendable (Image, ImageProcessingContext) throws -> Image
    ) -> Anonymous {
        Anonymous(identifier: identifier, closure)
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

// Pictor's own processors, listed in one place: their cache identifiers are `pictor.…`.
extension ImageProcessors.Resize: BuiltInImageProcessor {}
extension ImageProcessors.Crop: BuiltInImageProcessor {}
extension ImageProcessors.RoundedCorners: BuiltInImageProcessor {}
extension ImageProcessors.Circle: BuiltInImageProcessor {}
extension ImageProcessors.GaussianBlur: BuiltInImageProcessor {}
extension ImageProcessors.Grayscale: BuiltInImageProcessor {}
extension ImageProcessors.Composition: BuiltInImageProcessor {}
extension ImageProcessors.Anonymous: BuiltInImageProcessor {}
