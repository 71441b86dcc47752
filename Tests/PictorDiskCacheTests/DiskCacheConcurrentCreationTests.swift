import Foundation
import PictorCore
import PictorTestSupport
import Testing
@testable import PictorDiskCache

/// Several processes creating one cache directory at the same moment all succeed.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct DiskCacheConcurrentCreationTests {
    @Test func fourProcessesCreatingOneNewDirectoryAllSucceed() throws {
        for round in 0..<3 {
            // Given a directory that does not exist yet
            let directory = TestDirectory()
            // When four processes open it (creating it) and write at once
            let writers = try (0..<4).map { try CrashWriter(["write", directory.path + "/cache", "p\($0)", "20"]) }
            // Then all of them finish, and every entry reads back here
            for writer in writers {
                #expect(writer.readLines(1) == "done", "round \(round)")
                #expect(LoopbackHTTP.waitForExit(writer.process) == 0, "round \(round)")
            }
            let cache = try DiskCache(configuration: DiskCache.Configuration(directory: directory.url.appendingPathComponent("cache")))
            for p in 0..<4 {
                for i in 0..<20 { #expect(cache.data(for: "p\(p)-\(i)") != nil, "round \(round) p\(p)-\(i)") }
            }
            #expect(cache.count == 80)
        }
    }
}
