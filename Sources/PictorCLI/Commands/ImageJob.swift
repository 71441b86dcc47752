import Foundation
import Synchronization
import Pictor
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One image through the pipeline, as `fetch` and `prefetch` do it: load (resized at decode time
/// when asked), then optionally encode and write.
struct ImageJob: Sendable {
    enum Status: Sendable, Equatable {
        case ok
        case failed(String)
        /// Stopped in flight by Ctrl-C: neither loaded nor failed.
        case cancelled

        /// Whether the image failed (``cancelled`` is not a failure).
        var isFailure: Bool { if case .failed = self { true } else { false } }
    }

    struct Result: Sendable {
        var url: URL
        var status: Status
        /// The URL's 1-based position in the input list (the job's `index`).
        var index = 1
        /// Seconds from the start of the run to this image's end (set by `prefetch`).
        var finishedAfter: Double = 0
        var layer: String = "-"
        var width = 0
        var height = 0
        /// Bytes of the original (encoded) image as fetched; `nil` when no original was read (a
        /// memory hit, or a kept thumbnail read from disk).
        var bytes: Int64?
        /// Bytes of the written file, when there is one.
        var writtenBytes: Int64 = 0
        /// Whether the load joined work already running for an identical request (no extra
        /// transfer or decode).
        var wasShared = false
        /// Whether a cached copy was served after the server confirmed it (HTTP 304).
        var revalidated = false
        /// Whether the server's answer was stored already stale (`max-age=0`, `no-cache`, an
        /// `Expires` in the past): each later use asks the server first.
        var staleOnArrival = false
        /// Whether the image came from a cache's stale bytes, served at once while the server
        /// was asked in the background (`stale-while-revalidate`).
        var servedStale = false
        /// Whether the image was decoded from data cut short (an animation's complete frames;
        /// ``/PictorCore/Image/isTruncated``): delivered and written, but cached nowhere.
        var truncated = false
        /// Whether it failed because `--offline` found no cached entry.
        var notCached = false
        var seconds: Double = 0
        /// The written file: the output directory as given joined with its name, or the file
        /// as given (`--report` and `--json` show this path).
        var outputPath: String?
        /// The previews delivered and written (`fetch --previews`); `nil` without previews.
        var previews: PreviewFiles.Counts?
        /// What names the written file while it waits under a temporary name at
        /// ``outputPath`` for ``OutputNaming`` to name it in input order; `nil` once named.
        var pendingName: NameTemplate.Values?
    }

    var url: URL
    /// The URL's 1-based position in the input list (`{index}` of `--name`).
    var index = 1
    var resize: ResizeOption?
    var format: ImageFormat?
    var quality: Int
    var dataOnly = false
    /// Request headers (`-H`).
    var headers: [(name: String, value: String)] = []
    /// `--offline`: an `http(s)` URL is served from the caches only, fresh or stale
    /// (``/PictorCore/ImageRequest/Options/returnCacheDataDontLoad``); `file:` and `data:` URLs
    /// are local and read as usual.
    var offline = false
    /// Where previews are written while the image downloads (`fetch --previews DIR`); `nil`
    /// for none.
    var previewDirectory: String?

    func makeRequest() -> ImageRequest {
        var processors: [any ImageProcessing] = []
        if let resize { processors.append(resize.processor) }
        var urlRequest = URLRequest(url: url)
        HeaderOption.apply(headers, to: &urlRequest)
        var options: ImageRequest.Options = []
        if offline, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" {
            options.insert(.returnCacheDataDontLoad)
        }
        return ImageRequest(urlRequest: urlRequest, processors: processors, options: options)
    }

    /// Runs the job; never throws: failures are reported in the result with a reason.
    ///
    /// - Parameter naming: names the file in `output` when it is a directory; a run's jobs
    ///   share one, so that two URLs never write one file.
    func run(pipeline: ImagePipeline, output: String?, outputIsDirectory: Bool, naming: OutputNaming = OutputNaming(template: nil)) async -> Result {
        let previews = previewDirectory.map {
            previewFiles(into: $0, output: output, outputIsDirectory: outputIsDirectory, naming: naming)
        }
        var result = await load(pipeline: pipeline, output: output, outputIsDirectory: outputIsDirectory, naming: naming, previews: previews)
        // After the final file (and its time): at most the one preview write already running.
        if let previews { result.previews = await previews.drained() }
        return result
    }

    /// ``run(pipeline:output:outputIsDirectory:naming:)`` but for the previews' counts: `previews`
    /// writes them, stopped once the final image is there.
    private func load(
        pipeline: ImagePipeline, output: String?, outputIsDirectory: Bool, naming: OutputNaming, previews: PreviewFiles?
    ) async -> Result {
        let start = ContinuousClock.now
        var result = Result(url: url, status: .ok, index: index)
        do {
            if dataOnly {
                // Bytes only, validated as an image and stored on disk; no decode.
                let response = try await pipeline.data(for: makeRequest())
                result.layer = response.cacheLayer.rawValue
                result.revalidated = response.isRevalidated
                result.staleOnArrival = response.isStaleOnArrival
                result.bytes = Int64(response.data.count)
                result.wasShared = response.metrics.wasShared
                result.seconds = (ContinuousClock.now - start).seconds
                return result
            }
            let request = makeRequest()
            let outputPath = outputIsDirectory ? naming.template?.literalExtension.map { "name." + $0 } : output
            let encoded: Data, target: ImageFormat
            if output != nil, let kept = copyable(pipeline.storedVariant(for: request), outputPath: outputPath) {
                // The kept thumbnail is the output, byte for byte: no decode, no encode.
                (encoded, target) = (kept.data, kept.format)
                result.layer = CacheLayer.disk.rawValue
                (result.width, result.height) = (kept.width, kept.height)
            } else {
                let response: ImageResponse
                if let previews {
                    response = try await loadWithPreviews(request, pipeline: pipeline, into: previews)
                } else {
                    response = try await pipeline.image(for: request)
                }
                let image = response.image
                result.layer = response.cacheLayer.rawValue
                result.revalidated = response.isRevalidated
                result.staleOnArrival = response.isStaleOnArrival
                result.servedStale = response.isRevalidatingInBackground
                result.width = image.width
                result.height = image.height
                result.truncated = image.isTruncated
                result.bytes = response.metrics.originalByteCount.map { Int64($0) }
                result.wasShared = response.metrics.wasShared
                guard output != nil else { return finished(result, start) }
                target = OutputFormatOption.resolve(explicit: format, path: outputPath, source: image.sourceFormat)
                // The thumbnail the pipeline has just kept, when it is what this encode would
                // give (same encoder, format and quality): written as it is.
                if let kept = copyable(pipeline.storedVariant(for: request), outputPath: outputPath), kept.format == target,
                   kept.width == image.width, kept.height == image.height {
                    encoded = kept.data
                } else {
                    encoded = try await Self.encode(image, as: target, quality: quality)
                }
            }
            if let output {
                let path: String
                let values = NameTemplate.Values(url: url, index: index, format: target, width: result.width, height: result.height)
                if outputIsDirectory && naming.namesInInputOrder {
                    path = naming.temporaryPath(in: output, index: index)
                    result.pendingName = values
                } else if outputIsDirectory {
                    let name = try naming.name(values)
                    path = (output as NSString).appendingPathComponent(name)
                } else {
                    path = output
                }
                do {
                    try await Self.onOutputQueue { try Self.write(encoded, to: path) }
                } catch {
                    if result.pendingName != nil { unlink(path) }
                    result.pendingName = nil
                    throw error
                }
                result.outputPath = path
                result.writtenBytes = Int64(encoded.count)
            }
        } catch where Self.isNotCached(error) {
            result.notCached = true
            result.status = .failed("not cached (--offline: the network is not used)")
        } catch {
            result.status = Self.isCancellation(error) ? .cancelled : .failed(Self.reason(error))
        }
        return finished(result, start)
    }

    /// Loads `request` as a task that makes previews (every kind: a progressive JPEG's scans,
    /// and a baseline JPEG's or a PNG's rows so far), handed to `previews` as they come, which
    /// is stopped once the final image (or a failure) is there.
    private func loadWithPreviews(_ request: ImageRequest, pipeline: ImagePipeline, into previews: PreviewFiles) async throws -> ImageResponse {
        var request = request
        request.options.insert(.incrementalPreviews)
        let task = pipeline.imageTask(for: request)
        // Taken before the task can finish, so that no preview is missed.
        let stream = task.previews
        let reader = Task {
            for await preview in stream { previews.received(preview.image) }
        }
        do {
            let response = try await task.response
            // The stream ended before the response came: this only takes what it still holds.
            await reader.value
            previews.stop()
            return response
        } catch {
            reader.cancel()
            previews.stop()
            throw error
        }
    }

    /// The writer of this job's previews into `directory`, as `<name>-preview-<nnn>.png`
    /// numbered from `001` in the order written (three digits or more, so that a listing sorts
    /// them in order), where `<name>` is the image's own file name without its extension:
    /// `-o FILE`'s, else the one the run's naming gives (the `--name` template rendered with
    /// the preview's size, or the default name). A preview that cannot be written is skipped
    /// with a warning.
    private func previewFiles(into directory: String, output: String?, outputIsDirectory: Bool, naming: OutputNaming) -> PreviewFiles {
        let url = self.url, index = self.index
        let base: @Sendable (Image) -> String = { image in
            if let output, !outputIsDirectory {
                return ((output as NSString).lastPathComponent as NSString).deletingPathExtension
            }
            let values = NameTemplate.Values(url: url, index: index, format: .png, width: image.width, height: image.height)
            let name = naming.template?.render(values) ?? OutputNaming.defaultName(for: url, format: .png)
            return (name as NSString).deletingPathExtension
        }
        return PreviewFiles { image, number in
            let path = (directory as NSString).appendingPathComponent("\(base(image))-preview-\(Self.previewNumber(number)).png")
            do {
                let png = try await Self.encode(image, as: .png, quality: CLIOption.defaultQuality)
                try await Self.onOutputQueue { try Self.write(png, to: path) }
                return true
            } catch {
                naming.console?.error("pictor: warning: cannot write the preview '\(path)': \(Self.reason(error))")
                return false
            }
        }
    }

    /// `n` zero-padded to three digits (`001`), so that `ls` sorts previews in order.
    static func previewNumber(_ n: Int) -> String {
        let digits = String(n)
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }

    /// `result` with its time since `start`.
    private func finished(_ result: Result, _ start: ContinuousClock.Instant) -> Result {
        var result = result
        result.seconds = (ContinuousClock.now - start).seconds
        return result
    }

    /// `variant` when it can be written as the output: the output's format (resolved as for a
    /// decoded image of the variant's format) and quality. Only a request with a resize has one.
    private func copyable(_ variant: EncodedImage?, outputPath: String?) -> EncodedImage? {
        guard let variant else { return nil }
        let target = OutputFormatOption.resolve(explicit: format, path: outputPath, source: variant.format)
        return variant.matches(format: target, quality: quality) ? variant : nil
    }

    /// The encoder of output files: the one `PipelineStack` gives the kept thumbnails of a run
    /// that writes files, so that a kept thumbnail in the output's format and quality is the
    /// output's bytes.
    static let outputEncoder = VipsEncoder()

    /// Encodes `image` off Swift's cooperative threads (an encode holds a thread for
    /// milliseconds).
    static func encode(_ image: Image, as format: ImageFormat, quality: Int) async throws -> Data {
        try await onOutputQueue { try outputEncoder.encode(image, as: format, quality: quality) }
    }

    /// Runs `work` (an encode, a file write) on the output queue, off Swift's cooperative
    /// threads, which must never block.
    static func onOutputQueue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            outputQueue.async { continuation.resume(with: Swift.Result { try work() }) }
        }
    }

    /// Where output files are encoded and written; its width is bounded by the images a
    /// command keeps in flight.
    private static let outputQueue = DispatchQueue(label: "pictor.output", attributes: .concurrent)

    /// Writes `data` to `path` (mode 0644 before umask), replacing a file there only once the new
    /// one is whole: the bytes go to a hidden temporary file in the same directory, which is
    /// renamed over `path` when complete and removed when a write fails (a full disk, a size
    /// limit). Writing in place truncated the user's file first, and a failed write left it
    /// cut. A device or pipe (`-o /dev/stdout`) cannot be replaced and is written directly.
    /// - Throws: ``CLIError/failure(_:)`` naming `path` and the system's reason.
    static func write(_ data: Data, to path: String) throws {
        func failure(_ code: Int32) -> CLIError { .failure("cannot write '\(path)': \(String(cString: strerror(code)))") }
        var existing = stat()
        if stat(path, &existing) == 0, existing.st_mode & S_IFMT != S_IFREG {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw failure(errno) }
            defer { close(fd) }
            if let code = writeAll(data, to: fd) { throw failure(code) }
            return
        }
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = ((directory.isEmpty ? "." : directory) as NSString)
            .appendingPathComponent(".pictor-\(getpid())-\(temporaryNames.add(1, ordering: .relaxed).newValue).tmp")
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure(errno) }
        let code = writeAll(data, to: fd)
        close(fd)
        if let code {
            unlink(temporary)
            throw failure(code)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw failure(code)
        }
    }

    /// Numbers the temporary files of this process (see ``write(_:to:)``).
    private static let temporaryNames = Atomic<Int>(0)

    /// Writes all of `data` to `fd`; the `errno` of a failed write, or `nil`.
    private static func writeAll(_ data: Data, to fd: Int32) -> Int32? {
        data.withUnsafeBytes { raw -> Int32? in
            var offset = 0
            while offset < raw.count {
                let n = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return nil
        }
    }

    /// Whether the job ended because its task was cancelled (Ctrl-C cancels the images in
    /// flight), rather than failing.
    static func isCancellation(_ error: any Error) -> Bool {
        if Task.isCancelled || error is CancellationError { return true }
        if case .cancelled? = error as? ImagePipeline.Error { return true }
        return false
    }

    /// Whether `error` is a cache-only load that found no entry
    /// (``/PictorCore/DataLoadingError/notCached``).
    static func isNotCached(_ error: any Error) -> Bool {
        guard let error = error as? ImagePipeline.Error, error.kind == .loading,
              let loading = error.underlying as? DataLoadingError else { return false }
        return loading.kind == .notCached
    }

    static func reason(_ error: any Error) -> String {
        String(describing: error)
    }
}
