import Foundation
import PictorCore
import Testing

@Suite("ImageDecoderRegistry")
struct ImageDecoderRegistryTests {
    /// Returns a 1×1 grey image whose value names the decoder.
    struct TaggedDecoder: ImageDecoding {
        var tag: UInt8
        func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
            Image(width: 1, height: 1, layout: .gray, pixels: Data([tag]))
        }
    }

    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 24))
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 28))

    @Test func firstRegisteredMatchWins() throws {
        var registry = ImageDecoderRegistry()
        registry.register(TaggedDecoder(tag: 1), for: [.png])
        registry.register(TaggedDecoder(tag: 2), for: [.png, .jpeg])
        #expect(try registry.decode(Self.png, options: .init()).pixels == Data([1]))
        #expect(try registry.decode(Self.jpeg, options: .init()).pixels == Data([2]))
        #expect(registry.entries.count == 2)
    }

    /// Tells which entry point it was called through: `1` when handed the sniffed format.
    struct FormatAwareDecoder: ImageDecoding {
        func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
            Image(width: 1, height: 1, layout: .gray, pixels: Data([0]))
        }
        func decode(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) throws -> Image {
            Image(width: 1, height: 1, layout: .gray, pixels: Data([format == .png ? 1 : 2]))
        }
    }

    @Test func theRegistryHandsTheSniffedFormatOnSoItIsSniffedOnce() throws {
        let registry = ImageDecoderRegistry(FormatAwareDecoder(), for: [.png])
        #expect(try registry.decode(Self.png, options: .init()).pixels == Data([1]))
        // A decoder without the format-aware entry point is called as before.
        #expect(try ImageDecoderRegistry(TaggedDecoder(tag: 7), for: [.png]).decode(Self.png, options: .init()).pixels == Data([7]))
    }

    @Test func typedErrors() {
        var registry = ImageDecoderRegistry()
        registry.register(TaggedDecoder(tag: 1), for: [.png])
        #expect(throws: ImageDecodingError.emptyData) { try registry.decode(Data(), options: .init()) }
        #expect(throws: ImageDecodingError.unknownFormat) { try registry.decode(Data("<html/>".utf8), options: .init()) }
        #expect(throws: ImageDecodingError.unsupportedFormat(.jpeg)) { try registry.decode(Self.jpeg, options: .init()) }
        #expect(registry.decoder(for: .gif) == nil)
    }

    /// Accepts only when `eligible`; decodes to its tag, or throws `error` when one is set.
    /// Counts its calls, so that a test sees which decoders were asked and which decoded.
    final class FakeDecoder: ImageDecoding, @unchecked Sendable {
        let tag: UInt8, eligible: Bool, error: ImageDecodingError?
        private let lock = NSLock()
        private var asked = 0, decoded = 0
        init(tag: UInt8, eligible: Bool = true, error: ImageDecodingError? = nil) {
            self.tag = tag; self.eligible = eligible; self.error = error
        }
        var calls: (asked: Int, decoded: Int) { lock.withLock { (asked, decoded) } }
        func accepts(_ data: Data, format: ImageFormat, options: ImageDecodingOptions) -> Bool {
            lock.withLock { asked += 1 }
            return eligible
        }
        func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
            lock.withLock { decoded += 1 }
            if let error { throw error }
            return Image(width: 1, height: 1, layout: .gray, pixels: Data([tag]))
        }
    }

    @Test func theFirstEligibleDecoderWins() throws {
        let first = FakeDecoder(tag: 1), second = FakeDecoder(tag: 2)
        var registry = ImageDecoderRegistry()
        registry.register(first, for: [.png])
        registry.register(second, for: [.png])
        #expect(try registry.decode(Self.png, options: .init()).pixels == Data([1]))
        #expect(first.calls == (1, 1) && second.calls == (0, 0), "a later decoder is not even asked")
    }

    @Test func anIneligibleDecoderIsSkippedBeforeDecoding() throws {
        let fast = FakeDecoder(tag: 1, eligible: false), broad = FakeDecoder(tag: 2)
        var registry = ImageDecoderRegistry()
        registry.register(fast, for: [.png])
        registry.register(broad, for: [.png, .jpeg])
        #expect(try registry.decode(Self.png, options: .init()).pixels == Data([2]))
        #expect(fast.calls == (1, 0) && broad.calls == (1, 1))
        // A decoder registered for other formats is never asked.
        #expect(try registry.decode(Self.jpeg, options: .init()).pixels == Data([2]))
        #expect(fast.calls == (1, 0))
        #expect(registry.decoder(for: Self.png, format: .png, options: .init()) as? FakeDecoder === broad)
    }

    @Test func theErrorOfAnEligibleDecoderIsFinal() throws {
        let failing = FakeDecoder(tag: 1, error: .corrupt(.png, message: "bad data")), fallback = FakeDecoder(tag: 2)
        var registry = ImageDecoderRegistry()
        registry.register(failing, for: [.png])
        registry.register(fallback, for: [.png])
        #expect(throws: ImageDecodingError.corrupt(.png, message: "bad data")) { try registry.decode(Self.png, options: .init()) }
        #expect(failing.calls == (1, 1) && fallback.calls == (0, 0), "no other decoder is tried once one started")
    }

    @Test func aFileNoDecoderAcceptsIsAnUnsupportedVariant() {
        let registry = ImageDecoderRegistry(FakeDecoder(tag: 1, eligible: false), for: [.png])
        #expect(throws: ImageDecodingError.unsupportedVariant(.png, detail: "no registered decoder accepts this file")) {
            try registry.decode(Self.png, options: .init())
        }
        #expect(!registry.accepts(Self.png, format: .png, options: .init()))
        #expect(registry.decoder(for: .png) != nil, "the first registered, eligible or not")
    }

    /// Invalid options are refused before any decoder is asked, so eligibility checks see valid ones.
    @Test func invalidOptionsAreRefusedBeforeAnyDecoderIsAsked() {
        let decoder = FakeDecoder(tag: 1)
        let registry = ImageDecoderRegistry(decoder, for: [.png])
        for thumbnail in [ThumbnailOptions(width: 0), ThumbnailOptions(width: 10, height: -1)] {
            #expect(throws: ImageDecodingError.self) { try registry.decode(Self.png, options: .init(thumbnail: thumbnail)) }
        }
        #expect(decoder.calls == (0, 0))
        #expect(throws: ImageDecodingError.invalidOptions(detail: "thumbnail size must be positive, got 0×auto")) {
            try ImageDecodingOptions(thumbnail: .init(width: 0)).validate()
        }
    }

    /// A registry inside a registry: its eligibility is that of its decoders.
    @Test func aRegistryAcceptsWhatOneOfItsDecodersAccepts() throws {
        let inner = ImageDecoderRegistry(FakeDecoder(tag: 1, eligible: false), for: [.png])
        var outer = ImageDecoderRegistry(inner, for: [.png])
        outer.register(FakeDecoder(tag: 3), for: [.png])
        #expect(try outer.decode(Self.png, options: .init()).pixels == Data([3]))
    }
}
