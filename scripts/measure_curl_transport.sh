#!/usr/bin/env bash
# A quick, rough measurement (not a benchmark row): N files of about 100 kB from a local nginx,
# K at a time, through CurlTransport and through URLSessionDataLoader, against
# `curl --parallel --parallel-max K -o /dev/null`, as interleaved pairs (curl, CurlTransport,
# URLSession, repeated). Prints wall time and CPU time (user + system) of each run; curl's is its
# own process's, the Swift clients' is the measuring process's, nginx's is in neither.
#
# It writes a throw-away package in a temporary directory that depends on this one, builds it in
# release mode and runs it. Usage: scripts/measure_curl_transport.sh [files] [concurrency] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$(pwd)"
FILES="${1:-600}"
CONCURRENCY="${2:-8}"
ROUNDS="${3:-5}"
WORK="$(mktemp -d /tmp/pictor-curl-measure-XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

mkdir -p "$WORK/Sources/Measure" "$WORK/root"
python3 - "$WORK/root" "$FILES" <<'EOF'
import os, random, sys
root, count = sys.argv[1], int(sys.argv[2])
rng = random.Random(1)
for i in range(count):
    size = rng.randint(80_000, 120_000)
    with open(os.path.join(root, "img%04d.jpg" % i), "wb") as f:
        f.write(b"\xff\xd8\xff\xe0" + rng.randbytes(size - 4))
EOF

cat > "$WORK/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "Measure",
    dependencies: [.package(name: "Pictor", path: "$REPO")],
    targets: [.executableTarget(name: "Measure", dependencies: [
        .product(name: "PictorCurl", package: "Pictor"),
        .product(name: "PictorCore", package: "Pictor"),
        .product(name: "PictorTestSupport", package: "Pictor"),
    ])]
)
EOF

cat > "$WORK/Sources/Measure/main.swift" <<'EOF'
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Glibc
import PictorCore
import PictorCurl
import PictorTestSupport

let arguments = CommandLine.arguments
let root = URL(fileURLWithPath: arguments[1])
let concurrency = Int(arguments[2])!
let rounds = Int(arguments[3])!
let names = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".jpg") }.sorted()
let totalBytes = try names.reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent($1).path)[.size] as! Int) }
let server = try NginxServer.start(root: root)
defer { server.stop() }
let urls = names.map { server.url("/" + $0) }

func cpu(_ who: __rusage_who) -> Double {
    var usage = rusage()
    getrusage(who.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func runCurl() throws -> (Double, Double) {
    let config = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID()).cfg")
    try urls.map { "url = \"\($0.absoluteString)\"\noutput = \"/dev/null\"\n" }.joined().write(to: config, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: config) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = ["-s", "--no-progress-meter", "--parallel", "--parallel-max", "\(concurrency)", "-K", config.path]
    let before = cpu(RUSAGE_CHILDREN), start = Date()
    try process.run()
    process.waitUntilExit()
    return (Date().timeIntervalSince(start), cpu(RUSAGE_CHILDREN) - before)
}

func runSwift(_ load: @escaping @Sendable (URL) async throws -> Int) async throws -> (Double, Double) {
    let before = cpu(RUSAGE_SELF), start = Date()
    let bytes = try await withThrowingTaskGroup(of: Int.self) { group in
        var next = 0, bytes = 0
        while next < min(concurrency, urls.count) { let url = urls[next]; group.addTask { try await load(url) }; next += 1 }
        while let size = try await group.next() {
            bytes += size
            if next < urls.count { let url = urls[next]; group.addTask { try await load(url) }; next += 1 }
        }
        return bytes
    }
    precondition(bytes == totalBytes, "got \(bytes) of \(totalBytes) bytes")
    return (Date().timeIntervalSince(start), cpu(RUSAGE_SELF) - before)
}

let curlTransport = CurlTransport()
let session = URLSessionDataLoader()
let clients: [(String, () async throws -> (Double, Double))] = [
    ("curl --parallel", { try runCurl() }),
    ("CurlTransport", { try await runSwift { url in try await curlTransport.send(TransportRequest(urlRequest: URLRequest(url: url))).body.count } }),
    ("URLSessionDataLoader", { try await runSwift { url in try await session.data(for: URLRequest(url: url)).0.count } }),
]
print("\(urls.count) files, \(totalBytes / urls.count) bytes on average, \(concurrency) at a time; \(CurlTransport.libcurlVersion)")
for (_, run) in clients { _ = try await run() }   // warm-up: page cache, connections, code
var results: [String: [(Double, Double)]] = [:]
for _ in 0..<rounds {
    for (name, run) in clients { results[name, default: []].append(try await run()) }
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let reference = results["curl --parallel"]!
for (name, _) in clients {
    let rows = results[name]!
    let wall = median(rows.map(\.0)), time = median(rows.map(\.1))
    let wallRatios = zip(rows, reference).map { $0.0 / $1.0 }, cpuRatios = zip(rows, reference).map { $0.1 / $1.1 }
    print(String(format: "%-22@ wall %.3f s (%.0f files/s, %.2fx curl's throughput)  CPU %.3f s (%.0f us/file, %.2fx curl's)",
                 name as NSString, wall, Double(urls.count) / wall, 1 / median(wallRatios), time, time / Double(urls.count) * 1e6, median(cpuRatios)))
}
EOF

swift build -c release --package-path "$WORK" 2>&1 | grep -E "error|Compiling Measure|Build complete" || true
"$WORK/.build/release/Measure" "$WORK/root" "$CONCURRENCY" "$ROUNDS"
