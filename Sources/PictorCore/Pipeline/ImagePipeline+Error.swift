import Foundation

extension ImagePipeline {
    /// Why a request failed: the stage that failed (``kind``), wrapping the stage's own error
    /// (``underlying``).
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
        /// The request was cancelled.
        public static let cancelled = Error(.cancelled)

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
            switch code {
            case .loadingFailed: .loading
            case .decodingFailed: .decoding
            case .processingFailed: .processing
            case .cancelled: .cancelled
            }
        }

        /// The wrapped cause, `nil` for ``cancelled``.
        public var underlying: (any Swift.Error)? {
            switch code {
            case .loadingFailed(let e), .decodingFailed(let e): e
            case .processingFailed(_, let e): e
            case .cancelled: nil
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

        /// A one-line message; never contains a URL.
        public var description: String {
            switch code {
            case .loadingFailed(let e): "loading failed: \(e)"
            case .decodingFailed(let e): "decoding failed: \(e)"
            case .processingFailed(let p, let e): "processing failed (\(p)): \(e)"
            case .cancelled: "cancelled"
            }
        }

        /// The same text as ``description``, so that `localizedDescription` logs it.
        public var errorDescription: String? { description }

        /// Whether `value` is this error: lets `catch ImagePipeline.Error.cancelled` match an error thrown as
        /// `any Error`, as it did when the type was an enum.
        public static func ~= (pattern: Error, value: any Swift.Error) -> Bool { (value as? Error) == pattern }

        /// Same stage, same processor, equal causes.
        public static func == (lhs: Error, rhs: Error) -> Bool {
            guard lhs.kind == rhs.kind, lhs.processor == rhs.processor else { return false }
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
