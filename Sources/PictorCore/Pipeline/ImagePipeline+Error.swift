import Foundation

extension ImagePipeline {
    /// Why a request failed: one case per stage, wrapping the stage's own error.
    public enum Error: Swift.Error, Sendable, CustomStringConvertible {
        /// Fetching the bytes failed; the cause is usually a ``DataLoadingError`` (for example
        /// ``DataLoadingError/notCached`` for a cache-only miss).
        case loadingFailed(_ underlying: any Swift.Error)
        /// Decoding failed; the cause is usually an ``ImageDecodingError``.
        case decodingFailed(_ underlying: any Swift.Error)
        /// A processor failed; `processor` is its identifier, the cause usually an
        /// ``ImageProcessingError``.
        case processingFailed(processor: String, underlying: any Swift.Error)
        /// The request was cancelled.
        case cancelled

        /// The stage that failed.
        public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
            /// Fetching the bytes (disk or network).
            case loading
            /// Decoding the bytes.
            case decoding
            /// Running a processor.
            case processing
            /// Cancellation by the caller.
            case cancelled
        }

        /// The stage that failed.
        public var kind: Kind {
            switch self {
            case .loadingFailed: .loading
            case .decodingFailed: .decoding
            case .processingFailed: .processing
            case .cancelled: .cancelled
            }
        }

        /// The wrapped cause, `nil` for ``cancelled``.
        public var underlying: (any Swift.Error)? {
            switch self {
            case .loadingFailed(let e), .decodingFailed(let e): e
            case .processingFailed(_, let e): e
            case .cancelled: nil
            }
        }

        /// The cause as a ``DataLoadingError``, when loading failed with one.
        public var dataLoadingError: DataLoadingError? {
            if case .loadingFailed(let e) = self { return e as? DataLoadingError }
            return nil
        }

        /// The cause as an ``ImageDecodingError``, when decoding failed with one.
        public var decodingError: ImageDecodingError? {
            if case .decodingFailed(let e) = self { return e as? ImageDecodingError }
            return nil
        }

        /// A one-line message; never contains a URL.
        public var description: String {
            switch self {
            case .loadingFailed(let e): "loading failed: \(e)"
            case .decodingFailed(let e): "decoding failed: \(e)"
            case .processingFailed(let p, let e): "processing failed (\(p)): \(e)"
            case .cancelled: "cancelled"
            }
        }

        /// Wraps an error raised inside the pipeline: pipeline errors pass through, a
        /// `CancellationError` becomes ``cancelled``, anything else is a loading failure.
        init(_ error: any Swift.Error) {
            switch error {
            case let e as ImagePipeline.Error: self = e
            case is CancellationError: self = .cancelled
            default: self = .loadingFailed(error)
            }
        }
    }
}
