import Foundation

/// The benchmark's images: generated once from the corpus photos by `scripts/make_images.py`
/// (Pillow), then reused.
enum TestImages {
    /// Image sets by name (`jpeg1024`, `jpeg3000`, `png1024`, `png3000`, `webp1024`, `webp3000`).
    static let setNames = ["jpeg1024", "jpeg3000", "png1024", "png3000", "webp1024", "webp3000"]

    /// Makes sure the images exist; returns the reason when they cannot be made.
    static func prepare(_ options: Options) -> String? {
        let done = Paths.fixtures.appendingPathComponent("images/done").path
        if FileManager.default.fileExists(atPath: done) { return nil }
        let python = Paths.python(options)
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "no Python with Pillow at \(python) (scripts/bench.sh creates it)"
        }
        guard FileManager.default.fileExists(atPath: Paths.corpus.path) else {
            return "corpus not found at \(Paths.corpus.path)"
        }
        print("generating test images (once) …")
        let script = Paths.benchmarks.appendingPathComponent("scripts/make_images.py").path
        let out = Paths.fixtures.appendingPathComponent("images").path
        guard let result = try? runProcess(python, [script, Paths.corpus.path, out], quiet: false),
              result.status == 0 else { return "make_images.py failed" }
        return nil
    }

    /// The files of one set, sorted.
    static func files(_ set: String) -> [String] {
        let dir = Paths.fixtures.appendingPathComponent("images/\(set)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.sorted().map { dir.appendingPathComponent($0).path }
    }
}
