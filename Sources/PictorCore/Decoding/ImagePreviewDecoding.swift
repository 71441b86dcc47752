import Foundation

/// Decodes previews of one image while its bytes arrive: made by
/// ``ImageDecoding/makePreviewDecoder(format:options:)`` for one download, fed every byte of
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
}

extension ImageDecoding {
    /// No previews: a decoder that makes them implements
    /// ``ImageDecoding/makePreviewDecoder(format:options:)`` itself.
    public func makePreviewDecoder(format: ImageFormat, options: ImageDecodingOptions) -> (any ImagePreviewDecoding)? { nil }
}
