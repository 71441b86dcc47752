import Foundation

/// Where the benchmark suite finds its scripts, fixtures and the test corpus.
enum Paths {
    /// `Benchmarks/` (this package's root), from this file's location.
    static let benchmarks: URL = URL(fileURLWithPath: #filePath, isDirectory: false)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// The Pictor repository root.
    static var repository: URL { benchmarks.deletingLastPathComponent() }
    /// `../shared/corpus` beside the repository.
    static var corpus: URL { repository.deletingLastPathComponent().appendingPathComponent("shared/corpus") }
    /// Generated images, kept between runs (ignored by git with the rest of `.build`).
    static var fixtures: URL { benchmarks.appendingPathComponent(".build/fixtures") }
    /// The Python of the virtual environment `scripts/bench.sh` creates, with Pillow.
    static func python(_ options: Options) -> String {
        options.python ?? benchmarks.appendingPathComponent(".venv/bin/python").path
    }
}

/// Runs a program to completion and returns its exit status and standard output.
@discardableResult
func runProcess(
    _ path: String, _ arguments: [String], quiet: Bool = true, captureOutput: Bool = true
) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path, isDirectory: false)
    process.arguments = arguments
    // A daemon (nginx) keeps inherited pipes open forever: give it no pipe to wait on.
    let pipe = captureOutput ? Pipe() : nil
    process.standardOutput = pipe ?? FileHandle.nullDevice
    if quiet { process.standardError = FileHandle.nullDevice }
    try process.run()
    let data = pipe?.fileHandleForReading.readDataToEndOfFile() ?? Data()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Finds a program on the PATH (or the usual sbin directories).
func which(_ name: String) -> String? {
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/sbin:/sbin:/usr/local/sbin"
    for dir in path.split(separator: ":") {
        let candidate = "\(dir)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}

/// A free TCP port on 127.0.0.1 (bound, read and released; a race with another process is
/// possible but harmless for benchmarks).
func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
    }
    _ = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
    }
    return Int(UInt16(bigEndian: addr.sin_port))
}
