import Foundation

extension ImagePipeline {
    /// Why a request failed: the stage that failed (``kind``), wrapping the stage's own error
    /// (``underlying``), or, for an encoded result (``ImagePipeline/encodedResult(for:)``), the
    /// limit or part that stopped it.
    ///
    /// A struct rather than an enum, so that a new kind of failure is not a breaking change:
    /// switch over ``kind`` (a stage), compare with `==` (`error == .cancelled`), and read the
    /// cause from ``underlying``, ``dataLoadingError`` or ``decodingError``.
    ///
    /// Two errors are equal when they have the same stage, processor and an equal cause: causes
    /// that are `Equatable` are compared with `==`, others by type and description.
    public struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
        /// The failure and its cause; private so that a new kind is not a breaking change.
        private enum Code: Sendable {
            case loadingFailed(any Swift.Error)
            case decodingFailed(any Swift.Error)
            case processingFailed(processor: String, underlying: any Swift.Error)
            case encodingFailed(any Swift.Error)
            case resultTooLarge(width: Int, height: Int, limit: Int)
            case noEncoder
            case cancelled
        }

        private let code: Code
        private init(_ code: Code) { self.code = code }

        /// Fetching the bytes failed; the cause is usually a ``DataLoadingError`` (for example
        /// ``DataLoadingError/notCached`` for a cache-only miss).
        public static func loadingFailed(_ underlying: any Swift.Error) -> Error { .init(.loadingFailed(underlying)) }
        /// Decoding failed; the cause is usually an ``ImageDecodingError``.
        public static func decodingFailed(_ underlying: any Swift.Error) -> Error { .init(.decodingFailed(underlying)) }
        /// A processor failed; `processor` is its identifier, the cause usually an
        /// ``ImageProcessingError``.
        public static func processingFailed(processor: String, underlying: any Swift.Error) -> Error {
            .init(.processingFailed(processor: processor, underlying: underlying))
        }
        /// Encoding a result failed; the cause is usually an ``ImageEncodingError``.
        public static func encodingFailed(_ underlying: any Swift.Error) -> Error { .init(.encodingFailed(underlying)) }
        /// The image to encode is `width` × `height` pixels, over `limit` pixels on a side
        /// (``EncodedResultRequest/maximumDimension``); nothing was encoded.
        public static func resultTooLarge(width: Int, height: Int, limit: Int) -> Error {
            .init(.resultTooLarge(width: width, height: height, limit: limit))
        }
        /// A result was to be encoded, but ``Configuration/encoder`` is `nil`.
        public static let noEncoder = Error(.noEncoder)
        /// The request was cancelled.
        public static let cancelled = Error(.cancelled)

        /// The stage that failed, or what stopped an encoded result. ``ImagePipeline/image(for:)-(ImageRequest)``
        /// and ``ImagePipeline/data(for:)-(ImageRequest)`` throw the first four kinds only;
        /// ``ImagePipeline/encodedResult(for:)`` throws any.
        public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
            /// Fetching the bytes (disk or network).
            case loading
            /// Decoding the bytes.
            case decoding
            /// Running a processor.
            case processing
            /// Cancellation by the caller.
            case cancelled
            /// Encoding a result (``ImagePipeline/Error/encodingFailed(_:)``).
            case encoding
            /// A result over its caller's size limit (``ImagePipeline/Error/resultTooLarge(width:height:limit:)``).
            case resultTooLarge
            /// No encoder configured (``ImagePipeline/Error/noEncoder``).
            case noEncoder
        }

        /// The stage that failed, or what stopped an encoded result.
        public var kind: Kind {
            switch code {
            case .loadingFailed: .loading
            case .decodingFailed: .decoding
            case .processingFailed: .processing
            case .encodingFailed: .encoding
            case .resultTooLarge: .resultTooLarge
            case .noEncoder: .noEncoder
            case .cancelled: .cancelled
            }
        }

        /// The wrapped cause; `nil` for ``cancelled``, ``noEncoder`` and
        /// ``Kind/resultTooLarge``.
        public var underlying: (any Swift.Error)? {
            switch code {
            case .loadingFailed(let e), .decodingFailed(let e), .encodingFailed(let e): e
            case .processingFailed(_, let e): e
            case .resultTooLarge, .noEncoder, .cancelled: nil
            }
        }

        /// The identifier of the processor that failed, for ``Kind/processing``; `nil` otherwise.
        public var processor: String? {
            if case .processingFailed(let processor, _) = code { return processor }
            return nil
        }

        /// The cause as a ``DataLoadingError``, when loading failed with one.
        public var dataLoadingError: DataLoadingError? {
            if case .loadingFailed(let e) = code { return e as? DataLoadingError }
            return nil
        }

        /// The cause as an ``ImageDecodingError``, when decoding failed with one.
        public var decodingError: ImageDecodingError? {
            if case .decodingFailed(let e) = code { return e as? ImageDecodingError }
            return nil
        }

        /// The cause as an ``ImageEncodingError``, when encoding a result failed with one.
        public var encodingError: ImageEncodingError? {
            if case .encodingFailed(let e) = code { return e as? ImageEncodingError }
            return nil
        }

        /// For ``Kind/resultTooLarge``: the size of the image that was not encoded, in pixels,
        /// and the limit on either side; `nil` for other kinds.
        public var resultSize: (width: Int, height: Int, limit: Int)? {
            if case .resultTooLarge(let width, let height, let limit) = code { return (width, height, limit) }
            return nil
        }

        /// A one-line message; never contains a URL.
        public var description: String {
            switch code {
            case .loadingFailed(let e): "loading failed: \(e)"
            case .decodingFailed(let e): "decoding failed: \(e)"
            case .processingFailed(let p, let e): "processing failed (\(p)): \(e)"
            case .encodingFailed(let e): "encoding failed: \(e)"
            case .resultTooLarge(let w, let h, let limit): "result too large: \(w)x\(h) pixels, over the limit of \(limit) a side"
            case .noEncoder: "no image encoder is configured"
            case .cancelled: "cancelled"
            }
        }

        /// The same text as ``description``, so that `localizedDescription` logs it.
        public var errorDescription: String? { description }

        /// Whether `value` is this error: lets `catch ImagePipeline.Error.cancelled` match an error thrown as
        /// `any Error`, as it did when the type was an enum.
        public static func ~= (pattern: Error, value: any Swift.Error) -> Bool { (value as? Error) == pattern }

        /// Same stage, same processor, same sizes, equal causes.
        public static func == (lhs: Error, rhs: Error) -> Bool {
            guard lhs.kind == rhs.kind, lhs.processor == rhs.processor else { return false }
            if let l = lhs.resultSize, let r = rhs.resultSize { return l == r }
            switch (lhs.underlying, rhs.underlying) {
            case (nil, nil): return true
            case (let a?, let b?): return sameCause(a, b)
            default: return false
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

/// Whether two causes are equal: `==` when they are `Equatable` (and of one type), else the same
/// type and description.
private func sameCause(_ a: any Error, _ b: any Error) -> Bool {
    func equal<T: Equatable>(_ a: T) -> Bool { (b as? T) == a }
    if let a = (a as Any) as? any Equatable { return equal(a) }
    return ObjectIdentifier(type(of: a)) == ObjectIdentifier(type(of: b)) && String(describing: a) == String(describing: b)
}
