import Foundation

/// Decodes previews of one image while its bytes arrive: made by
/// ``ImageDecoding/makePreviewDecoder(format:options:kinds:)`` for one download, fed every byte of
/// the file in order, and asked for a preview now and then (the pipeline throttles it,
/// ``ImagePipeline/Configuration/previewInterval``).
///
/// The pipeline calls it from one decoding-queue thread at a time, never concurrently, and
/// drops it when the download ends; an implementation that wraps a C decoder frees it in
/// `deinit`.
public protocol ImagePreviewDecoding: AnyObject, Sendable {
    /// Takes the bytes that arrived since the last call (the first call gets the file's start)
    /// and returns a preview when they complete more of the image than the last preview showed
    /// (for a progressive JPEG: another scan), else `nil`.
    ///
    /// - Parameter bytes: the next bytes of the file; may be empty.
    /// - Returns: a preview at the decoder's preview size, or `nil` when nothing new is ready.
    /// - Throws: when these bytes cannot make previews (damaged, or a variant the decoder does
    ///   not preview): the pipeline then stops asking for this download. The final decode is
    ///   not affected.
    func preview(appending bytes: Data) throws -> Image?

    /// The kind of the previews this decoder makes, read by the pipeline after each preview it
    /// returns (a JPEG's kind is known once its header has arrived): exactly one of
    /// ``ImagePreviewKinds/progressive`` or ``ImagePreviewKinds/incremental``, and only one
    /// that ``ImageDecoding/makePreviewDecoder(format:options:kinds:)`` was asked for. Tasks
    /// sharing a download take only the kinds they asked for. ``ImagePreviewKinds/progressive``
    /// by default.
    var kind: ImagePreviewKinds { get }
}

extension ImagePreviewDecoding {
    /// ``ImagePreviewKinds/progressive``: a decoder of incremental previews says so itself.
    public var kind: ImagePreviewKinds { .progressive }
}

/// Which previews a caller wants while an image downloads (``ImageTask/previews``): an option
/// set; empty means none.
public struct ImagePreviewKinds: OptionSet, Sendable, Hashable {
    /// The option bits.
    public let rawValue: UInt8
    /// Creates kinds from their raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A whole, coarse image each time more of a progressive file has arrived: one per
    /// completed scan of a progressive JPEG. What
    /// ``ImagePipeline/Configuration/isProgressiveDecodingEnabled`` and
    /// ``ImageRequest/Options/progressivePreviews`` ask for.
    public static let progressive = ImagePreviewKinds(rawValue: 1 << 0)
    /// The rows decoded so far of a file stored top to bottom, the rows not received yet
    /// left as a neutral fill (mid-grey, transparent where the image has alpha): a baseline
    /// (sequential) JPEG or a non-interlaced PNG, as browsers paint them; and one whole coarse
    /// image per completed Adam7 pass of an interlaced PNG. What
    /// ``ImagePipeline/Configuration/isIncrementalDecodingEnabled`` and
    /// ``ImageRequest/Options/incrementalPreviews`` ask for (with the progressive kind).
    public static let incremental = ImagePreviewKinds(rawValue: 1 << 1)
}

extension ImageDecoding {
    /// No previews: a decoder that makes them implements
    /// ``ImageDecoding/makePreviewDecoder(format:options:kinds:)`` itself.
    public func makePreviewDecoder(
        format: ImageFormat, options: ImageDecodingOptions, kinds: ImagePreviewKinds
    ) -> (any ImagePreviewDecoding)? { nil }
}
