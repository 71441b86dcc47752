import Foundation
import Pictor
import PictorTestSupport
import Testing
@testable import PictorCLI

/// Two URLs that want one name: the one listed first gets it, whichever finishes first.
@Suite(.enabled(if: FaultServer.isAvailable), .timeLimit(.minutes(5)))
struct OutputNameOrderTests {
    @Test(arguments: [true, false])
    func theEarlierURLGetsThePlainNameWhateverFinishesFirst(firstIsSlow: Bool) async throws {
        let server = try await offPool { try FaultServer() }
        defer { server.stop() }
        let out = try makeTemporaryDirectory("name-order")
        defer { try? FileManager.default.removeItem(at: out) }
        let tag = UUID().uuidString
        // Both are named "delay-<w>x<h>.png"; the sizes are known only once each is loaded.
        let first = server.url("/delay?ms=\(firstIsSlow ? 1500 : 0)&k=\(tag)-first")
        let second = server.url("/delay?ms=\(firstIsSlow ? 0 : 1500)&k=\(tag)-second")
        let (code, console) = await runPictor(["prefetch", first.absoluteString, second.absoluteString, "--concurrency", "2",
                                               "--no-cache", "-q", "--json", "--out", out.path, "--name", "{stem}-{w}x{h}.{ext}"])
        #expect(code == 0, "\(console.errors)")
        let records = try console.output.split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["type"] as? String == "image" }
        var outputs: [String: String] = [:]
        for record in records { outputs[record["url"] as? String ?? ""] = (record["output"] as? String).map { ($0 as NSString).lastPathComponent } }
        let plain = try #require(outputs[first.absoluteString] ?? nil, "\(outputs)")
        #expect(plain.hasPrefix("delay-") && !plain.contains(OutputNaming.tag(first, 8)), "\(outputs)")
        #expect(outputs[second.absoluteString] == OutputNaming.suffixed(plain, with: OutputNaming.tag(second, 8)), "\(outputs)")
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: out.path)) == Set(outputs.values), "nothing else is left in the directory")
        #expect(console.errors.contains(second.absoluteString), "the warning names the URL that was renamed: \(console.errors)")
    }

    @Test func afterAnInterruptionTheFinishedAreNamedInOrderAroundTheGaps() throws {
        let dir = try makeTemporaryDirectory("name-order-gap")
        defer { try? FileManager.default.removeItem(at: dir) }
        let naming = OutputNaming(template: try NameTemplate.parse("same.{ext}"), namesInInputOrder: true)
        func finished(_ index: Int) throws -> ImageJob.Result {
            let url = URL(string: "https://example.org/\(index).png")!
            let path = naming.temporaryPath(in: dir.path, index: index)
            try Data("\(index)".utf8).write(to: URL(fileURLWithPath: path))
            var result = ImageJob.Result(url: url, status: .ok, index: index)
            result.outputPath = path
            result.pendingName = .init(url: url, index: index, format: .png, width: 1, height: 1)
            return result
        }
        var emitted: [Int] = []
        // 1 never finished (Ctrl-C); 3 finished before 2
        naming.complete(try finished(3)) { emitted.append($0.index) }
        naming.complete(try finished(2)) { emitted.append($0.index) }
        #expect(emitted.isEmpty, "both wait for 1")
        let all = naming.finish { emitted.append($0.index) }
        #expect(emitted == [2, 3])
        let second = URL(string: "https://example.org/3.png")!
        let names = all.map { $0.outputPath.map { ($0 as NSString).lastPathComponent } }
        #expect(names == ["same.png", OutputNaming.suffixed("same.png", with: OutputNaming.tag(second, 8))])
        #expect(all.allSatisfy { $0.outputPath?.hasPrefix(dir.path + "/") == true })
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(Set(files) == Set(names.compactMap { $0 }), "no temporary file is left: \(files)")
        #expect(try String(contentsOfFile: dir.appendingPathComponent("same.png").path, encoding: .utf8) == "2")
    }
}
