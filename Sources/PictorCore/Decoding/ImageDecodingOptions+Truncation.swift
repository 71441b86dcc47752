import Foundation

extension ImageDecodingOptions.TruncatedData {
    /// Whether this policy accepts `data`, which visibly ends before the image does
    /// (``FileStructure/isTruncated(_:format:)``), sniffed as `format`: never for ``fail``,
    /// always for ``anyPart``, and for ``completeFrames`` only a GIF or animated WebP that holds
    /// at least one complete frame (``AnimationStructure``).
    ///
    /// The one rule both the decoders and the pipeline's check of undecoded bytes follow, so a
    /// data request and an image request for the same cut file agree.
    package func accepts(cut data: Data, format: ImageFormat) -> Bool {
        switch self {
        case .fail: false
        case .anyPart: true
        case .completeFrames: AnimationStructure.scan(data, format: format).map { $0.isTruncated && $0.repaired != nil } ?? false
        }
    }
}
