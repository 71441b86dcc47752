import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore
import PictorTestSupport
import Testing

/// A `file:` URL that cannot be read fails for good: an app that retries on
/// ``DataLoadingError/isTransient`` must not retry a file that does not exist.
@Suite struct LocalFileErrorTests {
    let loader = DataLoader(transport: MockTransport())

    func failure(_ url: URL) async -> DataLoadingError? {
        do {
            _ = try await loader.data(for: URLRequest(url: url))
            Issue.record("\(url) loaded")
            return nil
        } catch {
            return error as? DataLoadingError
        }
    }

    func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-local-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func aMissingFileIsNotTransient() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = try #require(await failure(directory.appendingPathComponent("missing.png")))
        #expect(error.kind == .fileNotFound, "\(error)")
        #expect(error.transportCode == URLError.fileDoesNotExist.rawValue)
        #expect(error.description == "file does not exist (URLError -1100)")
        #expect(!error.isTransient, "\(error)")
    }

    @Test func aDirectoryIsNotTransient() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = try #require(await failure(directory))
        #expect(error.kind == .notARegularFile, "\(error)")
        #expect(!error.isTransient, "\(error)")
    }

    // root reads a mode-000 file anyway: there is nothing unreadable to test then.
    @Test(.enabled(if: getuid() != 0)) func anUnreadableFileIsNotTransient() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("locked.png")
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: file.path)
        let error = try #require(await failure(file))
        #expect(error.kind == .fileNotReadable, "\(error)")
        #expect(!error.isTransient, "\(error)")
    }
}
