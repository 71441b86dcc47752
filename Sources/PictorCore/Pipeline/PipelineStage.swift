/// A stage of the pipeline's work, as ``ImagePipeline/Configuration/stageObserver`` is told of
/// it: each time the stage runs, once, with how long it took.
public enum PipelineStage: String, Sendable, Hashable, CaseIterable {
    /// Waiting for a slot of the decoding queue (before a decode) or the processing queue
    /// (before a processor or an encode): ``ImagePipeline/Configuration/decodingQueueWidth``
    /// and ``ImagePipeline/Configuration/processingQueueWidth`` at work. Reported once per
    /// slot taken, `0` when one was free.
    case queue
    /// One exchange with the origin through the data loader (a download, or a revalidation
    /// answered 304), retries included; a failed one too, a cancelled one not. Disk and
    /// fleet-tier reads are not downloads.
    case download
    /// One decode of original bytes (or of a processed variant read from disk).
    case decode
    /// One processor applied to an image.
    case process
    /// One encode: a result of ``ImagePipeline/encodedResult(for:)``, or a processed variant
    /// for the disk cache.
    case encode
}
