import Foundation

/// What the integration tests need from the machine, in one list: on a developer's machine a
/// test whose server or tool is missing is skipped (`.enabled(if:)`), but in CI a failed install
/// would then turn into a green run that tested less. With `CI=true` in the environment,
/// `CIRequirementsTests` fails naming every entry here that is missing, and `.ci/run` prints
/// how many tests ran beside how many were declared, naming each one skipped.
///
/// ```swift
/// for missing in TestRequirements.all where !missing.isMet() { print(missing.name) }
/// ```
public enum TestRequirements {
    /// One thing a group of tests needs.
    public struct Requirement: Sendable {
        /// What is needed, as an operator would look for it: `redis-server`, `nginx`, ….
        public var name: String
        /// How to get it (the `scripts/bootstrap.sh` group that installs it, or the path).
        public var hint: String
        /// Whether this machine has it now.
        public var isMet: @Sendable () -> Bool

        public init(name: String, hint: String, isMet: @escaping @Sendable () -> Bool) {
            self.name = name
            self.hint = hint
            self.isMet = isMet
        }
    }

    /// Whether the suite runs in CI: the environment's `CI` is `true` (or `1`), as CI services
    /// set it and `.ci/run` asks for.
    public static var isCI: Bool {
        ["true", "1"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "")
    }

    /// `../shared/corpus` beside the package (the public test images and their manifest).
    public static var sharedCorpus: URL {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }   // TestRequirements.swift, PictorTestSupport, Sources, package
        return url.appendingPathComponent("shared/corpus", isDirectory: true)
    }

    /// Every tool, server and file that some test is enabled by, except those that depend on
    /// privileges rather than on installation (mounting a tmpfs needs root and a container
    /// that allows it; permission tests need a user other than root): those are named in the
    /// run's list of skipped tests instead.
    public static let all: [Requirement] = [
        Requirement(name: "redis-server", hint: "bootstrap.sh test (redis-server)") { RedisServer.isAvailable },
        Requirement(name: "redis-cli", hint: "bootstrap.sh test (redis-tools)") { FileManager.default.isExecutableFile(atPath: RedisCluster.cliBinary) },
        Requirement(name: "nginx", hint: "bootstrap.sh test (nginx-light)") { NginxServer.isAvailable },
        Requirement(name: "openssl", hint: "bootstrap.sh test (openssl)") { TestCertificateAuthority.isAvailable },
        Requirement(name: "python3 and Tests/Servers/fault_server.py", hint: "bootstrap.sh test (python3)") { FaultServer.isAvailable },
        Requirement(name: "chromium", hint: "bootstrap.sh test (chromium)") { HeadlessChromium.isAvailable },
        Requirement(name: "../shared/corpus/MANIFEST.tsv", hint: "the shared corpus beside the package") {
            FileManager.default.fileExists(atPath: sharedCorpus.appendingPathComponent("MANIFEST.tsv").path)
        },
    ]

    /// The requirements this machine does not meet.
    public static var missing: [Requirement] { all.filter { !$0.isMet() } }
}
