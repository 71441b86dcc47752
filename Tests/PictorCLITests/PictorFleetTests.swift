import Foundation
import Testing
import Pictor
import PictorTestSupport
import Synchronization

private var corpusAvailable: Bool { FileManager.default.fileExists(atPath: sharedCorpus.appendingPathComponent("MANIFEST.tsv").path) }

/// Several `pictor` processes sharing one Redis, as a fleet of servers would.
@Suite(.serialized, .enabled(if: BinaryRunner.isAvailable && NginxServer.isAvailable && RedisServer.isAvailable && corpusAvailable,
                             "needs the built pictor binary, nginx, redis-server and ../shared/corpus"))
struct PictorFleetTests {
    let temp: URL

    init() throws {
        temp = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-fleet-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
    }

    /// Corpus JPEGs and PNGs that decode, by path.
    func corpusPaths(limit: Int) throws -> [String] {
        let manifest = try String(contentsOf: sharedCorpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        var paths: [String] = []
        for line in manifest.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count > 3, fields[2] == "ok", fields[3] == "jpeg" || fields[3] == "png" else { continue }
            paths.append("/" + fields[0])
            if paths.count == limit { break }
        }
        return paths
    }

    func writeList(_ urls: [URL]) throws -> String {
        let list = temp.appendingPathComponent("urls-\(UUID().uuidString).txt")
        try urls.map(\.absoluteString).joined(separator: "\n").write(to: list, atomically: false, encoding: .utf8)
        return list.path
    }

    /// Runs the argument lists at the same time, each process waited for off the cooperative pool.
    func runTogether(_ runs: [[String]]) async -> [BinaryRunner.Outcome?] {
        await withTaskGroup(of: (Int, BinaryRunner.Outcome?).self) { group in
            for (i, arguments) in runs.enumerated() {
                group.addTask { (i, try? await offPool { try BinaryRunner.runBlocking(arguments) }) }
            }
            var outcomes = [BinaryRunner.Outcome?](repeating: nil, count: runs.count)
            for await (i, outcome) in group { outcomes[i] = outcome }
            return outcomes
        }
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> BinaryRunner.Outcome {
        try await offPool { try BinaryRunner.runBlocking(arguments, environment: environment) }
    }

    @Test(arguments: [false, true]) func fourProcessesDownloadEachURLOnceAndAFifthIsServedWithTheOriginStopped(encrypted: Bool) async throws {
        defer { try? FileManager.default.removeItem(at: temp) }
        let nginx = try await offPool { try NginxServer.start(root: sharedCorpus, extraServerConfig: NginxServer.freshForAnHour) }
        defer { nginx.stop() }
        let redis = try await offPool { try RedisServer() }
        defer { redis.stop() }
        let paths = try corpusPaths(limit: 40)
        let list = try writeList(paths.map { nginx.url($0) })
        var keyArguments: [String] = []
        if encrypted {
            let keyFile = temp.appendingPathComponent("key").path
            #expect(try await run(["cache", "key", "generate", "--out", keyFile]).status == 0)
            keyArguments = ["--key-file", keyFile]
        }

        let outcomes = await runTogether((0..<4).map { i in
            // Timeouts a loaded machine cannot miss: this test is about sharing, not timeouts.
            ["prefetch", list, "--data-only", "--concurrency", "8", "--shared-cache", redis.url + "?command_timeout=10s&connect_timeout=5s",
             "--cache-dir", temp.appendingPathComponent("cache-\(i)").path] + keyArguments
        })
        for outcome in outcomes {
            #expect(outcome?.status == 0, "\(outcome?.stderr ?? "did not run")")
        }
        let requests = try nginx.loggedRequests()
        for path in paths {
            #expect(requests.filter { $0.uri == path }.count == 1, "\(path) was downloaded \(requests.filter { $0.uri == path }.count) times")
        }

        nginx.stop()
        let fifth = try await run(["prefetch", list, "--resize", "64", "--shared-cache", redis.url + "?command_timeout=10s",
                                          "--cache-dir", temp.appendingPathComponent("cache-5").path] + keyArguments)
        #expect(fifth.status == 0, "\(fifth.stderr)")
        #expect(fifth.stdout.contains("shared \(paths.count), network 0"), "\(fifth.stdout)")

        if encrypted {
            guard case .array(let names?) = try redis.command(["KEYS", "*"]) else { Issue.record("KEYS"); return }
            var text = ""
            for case .bulk(let name?) in names {
                text += name
                if case .bulk(let value?) = try redis.command(["DUMP", name]) { text += value }
            }
            // Whole URLs and paths: a needle of 4 letters turns up in megabytes of random
            // ciphertext now and then.
            let needles = ["127.0.0.1:\(nginx.port)"] + paths + paths.map { nginx.url($0).absoluteString }
            for needle in needles {
                #expect(!text.contains(needle), "Redis holds '\(needle)'")
            }
        }

        let stats = try await run(["cache", "stats", "--shared-cache", redis.url,
                                          "--cache-dir", temp.appendingPathComponent("cache-5").path] + keyArguments)
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout.contains("fleet:"), "\(stats.stdout)")
        #expect(stats.stdout.contains("\(paths.count) leases taken"), "\(stats.stdout)")
    }

    @Test func anUnreachableRedisNeverFailsAPrefetchAndIsReportedOnce() async throws {
        defer { try? FileManager.default.removeItem(at: temp) }
        let nginx = try await offPool { try NginxServer.start(root: sharedCorpus, extraServerConfig: NginxServer.freshForAnHour) }
        defer { nginx.stop() }
        let stopped = try await offPool { try RedisServer() }
        stopped.stop()
        let closedPort = stopped.port
        let paths = try corpusPaths(limit: 20)
        let run = try await run(["prefetch", try writeList(paths.map { nginx.url($0) }), "--data-only",
                                        "--shared-cache", "redis://127.0.0.1:\(closedPort)",
                                        "--cache-dir", temp.appendingPathComponent("cache").path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("(\(paths.count) ok, 0 failed)"), "\(run.stdout)")
        let warnings = run.stderr.components(separatedBy: "\n").filter { $0.contains("shared cache unavailable") }
        #expect(warnings.count == 1, "\(run.stderr)")
    }

    @Test func aBadSharedCacheURLIsAUsageError() async throws {
        defer { try? FileManager.default.removeItem(at: temp) }
        for url in ["http://127.0.0.1:6379", "redis://:secret@127.0.0.1:99999", "rediss://127.0.0.1:6379"] {
            let run = try await run(["fetch", "https://example.test/a.jpg", "--shared-cache", url, "--no-cache"])
            #expect(run.status == 64, "\(url): \(run.stderr)")
            #expect(run.stderr.contains("--shared-cache"), "\(run.stderr)")
            #expect(!run.stderr.contains("secret"), "the password is never printed")
        }
        let fromEnvironment = try await run(["fetch", "https://example.test/a.jpg", "--no-cache"],
                                                   environment: ["PICTOR_SHARED_CACHE": "ftp://nope"])
        #expect(fromEnvironment.status == 64, "\(fromEnvironment.stderr)")
        #expect(fromEnvironment.stderr.contains("PICTOR_SHARED_CACHE"), "\(fromEnvironment.stderr)")
    }
}

/// Redis stopped while a prefetch runs.
@Suite(.enabled(if: BinaryRunner.isAvailable && FaultServer.isAvailable && RedisServer.isAvailable))
struct SharedTierOutageTests {
    @Test func redisStoppedMidRunLeavesEveryImageLoadedExit0AndOneWarning() async throws {
        let server = try await offPool { try FaultServer() }
        defer { server.stop() }
        let redis = try await offPool { try RedisServer() }
        defer { redis.stop() }
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-outage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temp) }
        let list = temp.appendingPathComponent("urls.txt")
        try (0..<30).map { server.url("/delay?ms=150&k=outage-\($0)").absoluteString }.joined(separator: "\n")
            .write(to: list, atomically: false, encoding: .utf8)
        let report = temp.appendingPathComponent("report.tsv")
        let run = try BinaryRunner.Running(["prefetch", list.path, "--concurrency", "2", "--data-only", "--cache-dir",
                                            temp.appendingPathComponent("cache").path, "--shared-cache", redis.url, "--report", report.path])
        try await run.whenReport(report, hasLines: 5) { redis.stop() }
        let outcome = try await run.finish()
        let (output, errors) = (outcome.stdout, outcome.stderr)
        #expect(outcome.status == 0, "\(output)\n\(errors)")
        #expect(output.contains("30 (30 ok, 0 failed)"), "\(output)")
        let warnings = errors.components(separatedBy: "\n").filter { $0.contains("shared cache unavailable") }
        #expect(warnings.count == 1, "\(errors)")
    }
}
