import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import Testing

/// "Not an image" says what the body looked like and what the server claimed, without
/// contradicting itself.
@Suite struct NotAnImageMessageTests {
    @Test(arguments: [
        ("<!DOCTYPE html><html><body>Not found</body></html>", "HTML"),
        ("  \n<html lang=\"en\">", "HTML"),
        ("{\"error\": \"forbidden\"}", "JSON"),
        ("<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code></Error>", "XML"),
        ("%PDF-1.7\n", "PDF"),
        ("Just some words", "text"),
    ])
    func theSignatureIsNamed(body: String, guess: String) {
        let signature = ByteSignature(Data(body.utf8))
        #expect(signature.guess == guess)
        #expect(signature.hex == Array(body.utf8.prefix(8)).map { String(format: "%02X", $0) }.joined(separator: " "))
    }

    @Test func binaryAndEmptyBodies() {
        #expect(ByteSignature(Data([0x1F, 0x8B, 0x08, 0x00])).guess == "gzip data")
        #expect(ByteSignature(Data([0x50, 0x4B, 0x03, 0x04, 0x14])).guess == "a ZIP archive")
        #expect(ByteSignature(Data([0x00, 0x01, 0xFE, 0x99, 0x42])).guess == nil)
        #expect(ByteSignature(Data()).hex == "")
        // Not text: bytes that are not UTF-8, such as a PNG signature's first byte.
        #expect(ByteSignature(Data([0x89, 0x41, 0x42, 0x0A, 0x43])).guess == nil)
    }

    /// A body cut inside an image's signature is named as that, not as text.
    @Test func aBodyCutInsideAnImageSignatureIsNamed() {
        #expect(ByteSignature(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A])).guess == "the first 6 bytes of a PNG signature: cut short")
        #expect(ByteSignature(Data([0xFF, 0xD8])).guess == "the first 2 bytes of a JPEG signature: cut short")
        #expect(ByteSignature(Data("GIF8".utf8)).guess == "the first 4 bytes of a GIF signature: cut short")
        #expect(ByteSignature(Data("GI".utf8)).guess == "the first 2 bytes of a GIF signature: cut short")
    }

    @Test func theMessageNamesWhatWasSeenAndWhatTheServerSaid() throws {
        let html = Data("<!DOCTYPE html><p>".utf8)
        let response = HTTPURLResponse(url: URL(string: "https://example.test/a.png")!, statusCode: 200, httpVersion: "HTTP/1.1",
                                       headerFields: ["Content-Type": "image/png"])!
        #expect(throws: DataLoadingError.notAnImage(contentType: "image/png", signature: ByteSignature(html))) {
            try ResponseValidation.checkBody(html, head: HTTPResponseHead(response), limit: nil)
        }
        let text = DataLoadingError.notAnImage(contentType: "image/png", signature: ByteSignature(html)).description
        #expect(text == "body is not an image format Pictor reads: it starts with 3C 21 44 4F 43 54 59 50 (HTML), though the server's Content-Type says image/png")
        let untyped = DataLoadingError.notAnImage(contentType: nil, signature: ByteSignature(Data([0, 1, 2]))).description
        #expect(untyped == "body is not an image format Pictor reads: it starts with 00 01 02 (an unknown format); the server sent no Content-Type")
        let html2 = DataLoadingError.notAnImage(contentType: "text/html; charset=utf-8", signature: ByteSignature(html)).description
        #expect(html2 == "body is not an image format Pictor reads: it starts with 3C 21 44 4F 43 54 59 50 (HTML), and the server's Content-Type says text/html; charset=utf-8")
    }

    /// A local file or a `data:` URL has no server and no `Content-Type`: the error says what
    /// the bytes are and where they came from, never what "the server" sent.
    @Test(arguments: ["file", "data"])
    func localBytesThatAreNotAnImageAreNotBlamedOnAServer(scheme: String) async throws {
        let text = Data("hello, not an image\n".utf8)
        let url: URL
        if scheme == "file" {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-not-an-image-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            url = directory.appendingPathComponent("notes.png")
            try text.write(to: url)
            try await check(url)
        } else {
            url = URL(string: "data:text/plain;base64," + text.base64EncodedString())!
            try await check(url)
        }
        func check(_ url: URL) async throws {
            let loader = DataLoader(transport: nil)
            await #expect(throws: DataLoadingError.localNotAnImage(scheme: scheme, signature: ByteSignature(text))) {
                _ = try await loader.data(for: URLRequest(url: url))
            }
        }
        let message = DataLoadingError.localNotAnImage(scheme: scheme, signature: ByteSignature(text)).description
        let source = scheme == "file" ? "the file" : "the data: URL"
        #expect(message == "\(source) is not an image format Pictor reads: it starts with 68 65 6C 6C 6F 2C 20 6E (text)")
        #expect(!message.contains("server"))
    }
}
