/// Where one caller of a shared job takes previews: the job above it, or an ``ImageTask``. A
/// protocol over the caller itself rather than closures, so that passing it down the stages
/// allocates nothing.
protocol PreviewTarget: AnyObject, Sendable {
    /// Hands a preview of `kind` on (to the job's own subscribers, or to the task's streams);
    /// a caller that did not ask for `kind` drops it.
    func deliverPreview(_ preview: Image, kind: ImagePreviewKinds)
    /// The kinds of previews that anyone at or above this caller still takes (empty for none):
    /// a fetch whose callers take none makes none.
    var wantedPreviews: ImagePreviewKinds { get }
}
