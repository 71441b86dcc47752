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
}
