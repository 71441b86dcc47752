import Foundation

extension ImageProcessors {
    /// Several processors applied in order, as one.
    public struct Composition: ImageProcessing {
        /// The processors, first applied first.
        public var processors: [any ImageProcessing]

        /// Creates a composition of `processors`.
        public init(_ processors: [any ImageProcessing]) { self.processors = processors }

        /// `composition(<chain identifier>)`, where the chain is
        /// ``ImageProcessors/identifier(of:)`` (length-prefixed and namespaced, so unambiguous).
        public var identifier: String { "composition(\(ImageProcessors.identifier(of: processors)))" }

        /// The first processor's decode-time thumbnail when the composition has only that one.
        public var decodeTimeThumbnail: ThumbnailOptions? {
            processors.count == 1 ? processors[0].decodeTimeThumbnail : nil
        }

        /// Applies each processor in turn.
        ///
        /// - Throws: the first processor's error.
        public func process(_ image: Image, context: ImageProcessingContext) throws -> Image {
            try processors.reduce(image) { try $1.process($0, context: context) }
        }
    }

    /// A user processor given as a closure with an explicit identifier.
    ///
    /// Two instances with the same ``userIdentifier`` must produce the same pixels: the
    /// identifier is what the caches see.
    public struct Anonymous: ImageProcessing {
        /// The caller's identifier, as given.
        public let userIdentifier: String
        private let closure: @Sendable (Image, ImageProcessingContext) throws -> Image

        /// Creates a processor from `closure`, known to the caches by `identifier` (as
        /// `pictor.custom(<length>:<identifier>)`, see ``ImageProcessors/cacheIdentifier(of:)``).
        public init(identifier: String, _ closure: @escaping @Sendable (Image, ImageProcessingContext) throws -> Image) {
            self.userIdentifier = identifier
            self.closure = closure
        }

        /// `custom(<byte count>:<identifier>)`; the prefix keeps user text from imitating a
        /// built-in processor or a chain separator.
        public var identifier: String { "custom(\(ImageProcessors.escaped(userIdentifier)))" }

        /// Runs the closure.
        ///
        /// - Throws: whatever the closure throws.
        public func process(_ image: Image, context: ImageProcessingContext) throws -> Image {
            try closure(image, context)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Composition {
    /// Applies `processors` in order, as one processor.
    ///
    /// - Parameter processors: the processors, applied in order.
    public static func composition(_ processors: [any ImageProcessing]) -> ImageProcessors.Composition {
        ImageProcessors.Composition(processors)
    }
}

extension ImageProcessing where Self == ImageProcessors.Anonymous {
    /// A user processor: `closure` does the work, `identifier` names it in cache keys.
    ///
    /// - Parameters:
    ///   - identifier: names the processor in cache keys: give each different operation its own.
    ///   - closure: does the work, with the context's renderer at hand.
    public static func custom(
        identifier: String, _ closure: @escaping @Sendable (Image, ImageProcessingContext) throws -> Image
    ) -> ImageProcessors.Anonymous {
        ImageProcessors.Anonymous(identifier: identifier, closure)
    }
}
