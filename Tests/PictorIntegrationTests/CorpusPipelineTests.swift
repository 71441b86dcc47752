import Foundation
import Testing
import Pictor
import PictorTestSupport

/// The vertical slice end to end with every layer real: nginx on loopback → DataLoader →
/// DiskCache → libvips → memory cache, checked against the corpus manifest.
@Suite(.serialized, .enabled(if: Corpus.isAvailable && NginxServer.isAvailable, "needs ../shared/corpus and nginx"))
struct CorpusPipelineTests {
    func makeStack(_ directory: URL) throws -> (ImagePipeline, DiskCache) {
        let disk = try DiskCache.standard(directory: directory, logger: .disabled)
        let pipeline = ImagePipeline(configuration: .standard(diskCache: disk, imageCache: ImageCache(), logger: .disabled))
        return (pipeline, disk)
    }

    @Test func everyManifestRowLoadsWithItsSizeOrFailsAndIsNeverCached() async throws {
        let server = try NginxServer.start(root: Corpus.root, extraServerConfig: NginxServer.freshForAnHour)
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-it-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (pipeline, disk) = try makeStack(directory)
        let rows = try Corpus.rows()

        var okCount = 0, errorCount = 0
        for row in rows {
            let url = server.url("/" + row.path)
            let result: Result<ImageResponse, ImagePipeline.Error>
            do { result = .success(try await pipeline.image(for: ImageRequest(url: url))) } catch { result = .failure(error) }
            switch (row.expect, result) {
            case ("ok", .success(let response)):
                #expect(response.image.width == row.width && response.image.height == row.height, "\(row.path)")
                #expect(response.image.sourceFormat?.rawValue == row.format, "\(row.path)")
                #expect(response.cacheLayer == .network, "\(row.path)")
                okCount += 1
            case ("ok", .failure(let error)):
                Issue.record("\(row.path) should decode: \(error)")
            case ("error", .success):
                Issue.record("\(row.path) should fail to decode")
            case ("error", .failure):
                disk.flush()
                #expect(!disk.contains(url.absoluteString), "an undecodable body must not stay cached: \(row.path)")
                errorCount += 1
            default:
                break   // "any": either outcome, never a crash
            }
        }
        #expect(okCount == rows.filter { $0.expect == "ok" }.count)
        #expect(errorCount == rows.filter { $0.expect == "error" }.count)
    }

    @Test func aSecondPipelineOnTheSameDirectoryIsServedFromDiskWithoutRequests() async throws {
        let server = try NginxServer.start(root: Corpus.root, extraServerConfig: NginxServer.freshForAnHour)
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-it-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = try Corpus.rows().filter { $0.expect == "ok" && $0.path.hasPrefix("exif-orientation/") }.map(\.path)
        #expect(paths.count == 18)

        do {
            let (pipeline, disk) = try makeStack(directory)
            for path in paths {
                let response = try await pipeline.image(for: ImageRequest(url: server.url("/" + path), processors: [.resize(width: 256, height: 256)]))
                #expect(response.cacheLayer == .network)
                #expect(max(response.image.width, response.image.height) <= 256)
                // Landscape photos stay wider than tall, portraits taller than wide, whatever the EXIF orientation.
                if path.contains("Landscape") { #expect(response.image.width > response.image.height, "\(path)") }
                if path.contains("Portrait") { #expect(response.image.height > response.image.width, "\(path)") }
            }
            disk.flush()
        }
        let requestsAfterCold = try server.loggedRequests().count

        let (pipeline, _) = try makeStack(directory)
        for path in paths {
            let response = try await pipeline.image(for: ImageRequest(url: server.url("/" + path), processors: [.resize(width: 256, height: 256)]))
            #expect(response.cacheLayer == .disk, "\(path)")
        }
        #expect(try server.loggedRequests().count == requestsAfterCold, "the warm run made network requests")

        // The memory layer answers the third time.
        let again = try await pipeline.image(for: ImageRequest(url: server.url("/" + paths[0]), processors: [.resize(width: 256, height: 256)]))
        #expect(again.cacheLayer == .memory)
    }
}
