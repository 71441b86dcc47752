import Foundation
import PictorCore

/// The shared test-image corpus (`../shared/corpus` next to the package root) and its manifest.
enum Corpus {
    /// `<package root>/../shared/corpus`, computed from this file's path.
    static let root: URL = URL(fileURLWithPath: #filePath, isDirectory: false)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/corpus", isDirectory: true).standardized

    /// Whether the corpus and its manifest are present.
    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("MANIFEST.tsv").path)
    }

    /// One row of `MANIFEST.tsv`.
    struct Row: Sendable, CustomStringConvertible {
        enum Expect: String, Sendable { case ok, error, any }
        var path: String
        var expect: Expect
        var format: String
        var width: Int?
        var height: Int?
        var alpha: Bool
        var frames: Int?
        var signature: [Int]
        var note: String

        var folder: String { String(path.split(separator: "/").first ?? "") }
        var description: String { path }
        var url: URL { Corpus.root.appendingPathComponent(path, isDirectory: false) }
    }

    static func rows() throws -> [Row] {
        let text = try String(contentsOf: root.appendingPathComponent("MANIFEST.tsv", isDirectory: false), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 9, let expect = Row.Expect(rawValue: f[2]) else { return nil }
            return Row(path: f[0], expect: expect, format: f[3], width: Int(f[4]), height: Int(f[5]),
                       alpha: f[6] == "1", frames: Int(f[7]),
                       signature: f[8].split(separator: ",").compactMap { Int($0) },
                       note: f.count > 9 ? f[9] : "")
        }
    }

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(path, isDirectory: false))
    }
}

/// The manifest's 4×4 signature: block means of R, G, B premultiplied by alpha (then A when the
/// image has alpha), row-major; blocks split like NumPy's `array_split` (the first `side % 4` blocks are one pixel
/// larger); sides under 4 px are first repeated (each pixel ⌈4/side⌉ times).
enum Signature {
    /// Block `i` of 4 over `n` pixels; the first `n % 4` blocks are one pixel larger.
    static func split(_ n: Int, _ i: Int) -> (Int, Int) {
        let base = n / 4, extra = n % 4
        let start = i * base + min(i, extra)
        return (start, start + base + (i < extra ? 1 : 0))
    }

    static func of(_ image: Image, alpha: Bool) -> [Int] {
        let rgba = [UInt8](image.rgba8())
        var w = image.width, h = image.height
        var px = rgba
        let rx = w < 4 ? (4 + w - 1) / w : 1, ry = h < 4 ? (4 + h - 1) / h : 1
        if rx > 1 || ry > 1 {
            let nw = w * rx, nh = h * ry
            var out = [UInt8](repeating: 0, count: nw * nh * 4)
            for y in 0..<nh { for x in 0..<nw { for c in 0..<4 { out[(y * nw + x) * 4 + c] = px[((y / ry) * w + x / rx) * 4 + c] } } }
            px = out; w = nw; h = nh
        }
        var result: [Int] = []
        for by in 0..<4 {
            for bx in 0..<4 {
                let (x0, x1) = split(w, bx), (y0, y1) = split(h, by)
                var sums = [Double](repeating: 0, count: 4)
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        let i = (y * w + x) * 4
                        let a = Double(px[i + 3]) / 255
                        sums[0] += Double(px[i]) * a; sums[1] += Double(px[i + 1]) * a; sums[2] += Double(px[i + 2]) * a
                        sums[3] += Double(px[i + 3])
                    }
                }
                let n = Double(max(1, (x1 - x0) * (y1 - y0)))
                result += sums.prefix(alpha ? 4 : 3).map { Int(($0 / n).rounded()) }
            }
        }
        return result
    }
}
