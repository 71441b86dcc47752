/// Where one caller of a shared job takes previews: the job above it, or an ``ImageTask``. A
/// protocol over the caller itself rather than closures, so that passing it down the stages
/// allocates nothing.
protocol PreviewTarget: AnyObject, Sendable {
    /// Hands a preview on (to the job's own subscribers, or to the task's streams).
    func deliverPreview(_ preview: Image)
    /// Whether anyone at or above this caller still takes previews: a fetch whose callers take
    /// none makes none.
    var wantsPreviews: Bool { get }
}
