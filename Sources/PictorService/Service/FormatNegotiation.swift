import Foundation
import PictorCore

/// Picks an output format from a request's `Accept` field (RFC 9110 §12.5.1).
enum FormatNegotiation {
    /// The first of `candidates` whose media type `accept` names explicitly with a `q` above 0
    /// (`image/avif`, `image/avif;q=0.8`), or `nil`. Wildcards (`image/*`, `*/*`) do not count:
    /// browsers send them for every image, including those that cannot show AVIF.
    static func choose(_ candidates: [ImageFormat], accept: String?) -> ImageFormat? {
        guard let accept, !candidates.isEmpty else { return nil }
        var accepted: Set<String> = []
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first, !type.isEmpty else { continue }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if q > 0 { accepted.insert(type) }
        }
        return candidates.first { accepted.contains($0.mimeType) }
    }
}
