import Foundation

/// The shared test corpus (`../shared/corpus` beside the package) and its manifest.
enum Corpus {
    struct Row: Sendable {
        var path: String
        var expect: String
        var format: String
        var width: Int
        var height: Int
        var alpha: Bool
        var frames: Int
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var root: URL { packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus", isDirectory: true) }

    static var isAvailable: Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent("MANIFEST.tsv").path) }

    static func rows() throws -> [Row] {
        let text = try String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 8 else { return nil }
            return Row(path: f[0], expect: f[2], format: f[3], width: Int(f[4]) ?? 0, height: Int(f[5]) ?? 0,
                       alpha: f[6] == "1", frames: Int(f[7]) ?? 1)
        }
    }
}
