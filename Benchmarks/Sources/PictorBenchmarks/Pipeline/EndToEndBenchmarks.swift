import Foundation
import PictorCore
import PictorCrypto
import PictorVips

/// End to end against other tools (targets E2E-1 throughput, E2E-2 CPU per image, E2E-3 peak
/// RSS): a list of URLs → 256-px JPEG q85 thumbnails written to a folder, originals kept on
/// disk, 8 images at a time, nginx on loopback, each tool run as a whole process from the shell.
/// In one run, in rounds that rotate the order of the tools:
///
/// - Pictor: `pictor prefetch LIST --resize 256 --format jpeg --quality 85 --out DIR
///   --cache-dir CACHE --concurrency 8 -q`. Cold: an empty cache. Warm, twice on that cache:
///   with `--no-cache-thumbnails` (reads and decodes the originals, as the peers do; the goals'
///   row) and as shipped (the cold run also stored the resized images, so it decodes only
///   those; informational).
/// - aiohttp + pyvips on the `pyvips-binary` wheel (libvips 8.18, the build sharp bundles) and
///   aiohttp + Pillow (`draft` + `thumbnail`): `scripts/e2e_pyvips.py`, `scripts/e2e_pillow.py`
///   (driver `scripts/e2e_peer.py`): 8 images in flight, decoding on one thread per core,
///   originals kept under the hex SHA-256 of the URL; warm = the originals are there, nothing
///   is downloaded.
/// - `curl --parallel --parallel-max 8` (cold only), then Debian's `vipsthumbnail` (libvips
///   8.14) over the originals, 2 processes at a time (`scripts/e2e_vipsthumbnail.sh`): the
///   whole pipeline is one process tree.
///
/// Every run is measured under GNU time: wall time (images/s), CPU (user + system of every
/// process of the tree, from `wait4`) and peak RSS (`%M`, which for a process tree is that of
/// its largest single process). After every run its outputs are checked outside the timing:
/// one file per URL, and a sample decoded (every one for the EXIF set): a JPEG fitted inside
/// 256 × 256 with the source's oriented aspect, whose 4×4 block means match the source's (the
/// corpus MANIFEST's for the EXIF photos, so a wrong orientation fails). A peer that fails a
/// check or exits non-zero in any round is not compared (the row says so); Pictor failing is
/// marked in its cell. Each row compares Pictor with the best peer for that figure: the ratio
/// is the median of the per-round ratios, with the ratio of the medians beside it.
struct EndToEndBenchmarks {
    let options: Options
    let report: Report

    static let concurrency = 8
    static let box = 256
    static let quality = 85
    /// Outputs decoded per check (evenly spaced); the EXIF set checks all of its outputs.
    static let sample = 12
    /// Largest mean absolute difference (0…255) between an output's 4×4 block means and its
    /// source's: a right thumbnail lands within about 1, a flipped or rotated one 25 or more away.
    static let signatureTolerance = 8.0

    var rounds: Int { options.quick ? 1 : 5 }

    // MARK: Sets

    /// One source image: its size after EXIF orientation, and its 4×4 block means.
    struct Source {
        let path: String
        let width: Int
        let height: Int
        var signature: [Double]?
    }

    /// The URLs of one row group: `count` names on the site, each a symbolic link to a source.
    struct ImageSet {
        let name: String
        let label: String
        let ext: String
        var sources: [Source]
        let count: Int
        /// With several names for one source, names say which (`2-Landscape_5.jpg`).
        let stems: [String]?

        func entry(_ i: Int) -> (name: String, source: Source) {
            let source = sources[i % sources.count]
            if let stems { return ("\(i / sources.count)-\(stems[i % sources.count]).\(ext)", source) }
            return ("\(i).\(ext)", source)
        }

        var ids: [String] { EndToEndBenchmarks.ids(of: name) }
    }

    static let setNames = ["jpeg1024", "jpeg3000", "png1024", "webp1024", "exif"]

    /// Row ids of one set: throughput, CPU and RSS, for each phase.
    static func ids(of set: String) -> [String] {
        ["cold", "warm-originals", "warm-thumbnails"].flatMap { phase in
            ["", ".cpu", ".rss"].map { "e2e.\(set).\(phase)\($0)" }
        }
    }

    func imageSets() throws -> [ImageSet] {
        let quick = options.quick
        var sets: [ImageSet] = []
        for (name, count, label, ext, w, h) in [
            ("jpeg1024", quick ? 60 : 1_000, "1024×768 JPEGs", "jpg", 1024, 768),
            ("jpeg3000", quick ? 20 : 200, "3000×2000 JPEGs", "jpg", 3000, 2000),
            ("png1024", quick ? 20 : 200, "1024×768 PNGs", "png", 1024, 768),
            ("webp1024", quick ? 20 : 200, "1024×768 WebPs", "webp", 1024, 768),
        ] {
            let files = TestImages.files(name)
            guard !files.isEmpty else { throw BenchError("no \(name) test images") }
            sets.append(ImageSet(name: name, label: "\(count) \(label) (\(files.count) distinct files)", ext: ext,
                                 sources: files.map { Source(path: $0, width: w, height: h) }, count: count, stems: nil))
        }
        // The corpus photos with EXIF orientations 0–8: all 18, each under 4 names; in quick
        // mode one landscape and one portrait of each orientation 1–8, once.
        let manifest = try Self.exifManifest()
        let chosen = quick
            ? ["Landscape_1", "Landscape_2", "Landscape_3", "Landscape_4", "Portrait_5", "Portrait_6", "Portrait_7", "Portrait_8"]
            : manifest.keys.sorted()
        let sources = try chosen.map { stem -> Source in
            guard let source = manifest[stem] else { throw BenchError("\(stem).jpg not in the corpus MANIFEST") }
            return source
        }
        let copies = quick ? 1 : 4
        sets.append(ImageSet(
            name: "exif",
            label: "\(sources.count * copies) 1800×1200 photos with EXIF orientations (corpus exif-orientation, \(sources.count) distinct\(copies > 1 ? ", each under \(copies) names" : ""))",
            ext: "jpg", sources: sources, count: sources.count * copies, stems: chosen))
        return sets
    }

    /// The corpus's EXIF photos by stem, with the oriented size and block means the MANIFEST gives.
    static func exifManifest() throws -> [String: Source] {
        let path = Paths.corpus.appendingPathComponent("MANIFEST.tsv").path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw BenchError("cannot read \(path)") }
        var lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { throw BenchError("empty \(path)") }
        lines.removeFirst()
        func column(_ name: String) throws -> Int {
            guard let i = header.firstIndex(of: name) else { throw BenchError("no \(name) column in \(path)") }
            return i
        }
        let (p, w, h, s) = (try column("path"), try column("width"), try column("height"), try column("signature"))
        var sources: [String: Source] = [:]
        for fields in lines where fields.count > s && fields[p].hasPrefix("exif-orientation/") && fields[p].hasSuffix(".jpg") {
            let file = Paths.corpus.appendingPathComponent(fields[p]).path
            let stem = ((fields[p] as NSString).lastPathComponent as NSString).deletingPathExtension
            guard let width = Int(fields[w]), let height = Int(fields[h]) else { continue }
            sources[stem] = Source(path: file, width: width, height: height,
                                   signature: fields[s].split(separator: ",").compactMap { Double($0) })
        }
        guard !sources.isEmpty else { throw BenchError("no exif-orientation photos in \(path)") }
        return sources
    }

    // MARK: Tools

    /// Where one tool's run of one set reads and writes.
    struct RunPaths {
        let list: String
        let curlConfig: String
        /// Pictor's cache directory, or a peer's folder of originals.
        let state: String
        let out: String
        let stdout: String
        let count: Int
    }

    /// One tool: how to run each of its phases, and how it names the output of URL i.
    struct Contender {
        let key: String
        let name: String
        /// Cold first, then the warm ones (Pictor: "warm-originals", "warm-thumbnails"; peers: "warm").
        let phases: [String]
        let command: (_ phase: String, _ paths: RunPaths) -> (path: String, arguments: [String])
        let outputName: (_ index: Int, _ url: String) -> String
        var isPictor: Bool { key == "pictor" }
    }

    /// One measured run and what was found wrong with it.
    struct Outcome {
        var run: MeasuredRun
        /// Exit status or output check failure: the run is not a valid comparison.
        var problem: String?
        /// Requests nginx logged during the run.
        var requests: Int
    }

    /// The tools that can run here, and the names of the peers that cannot (each with a note
    /// in the report saying why).
    func contenders() -> (tools: [Contender], missing: [String]) {
        var all: [Contender] = []
        var missing: [String] = []
        if let pictor = options.pictorBinary {
            all.append(Contender(
                key: "pictor", name: "pictor", phases: ["cold", "warm-originals", "warm-thumbnails"],
                command: { phase, p in
                    (pictor, ["prefetch", p.list, "--resize", "\(Self.box)", "--format", "jpeg", "--quality", "\(Self.quality)",
                              "--out", p.out, "--name", "{index}.jpg", "--cache-dir", p.state,
                              "--concurrency", "\(Self.concurrency)", "--size-limit", "4GiB", "-q"]
                        + (phase == "warm-originals" ? ["--no-cache-thumbnails"] : []))
                },
                outputName: { index, _ in "\(index + 1).jpg" }))
        }
        let python = Paths.python(options)
        for (key, script, label) in [("pyvips", "e2e_pyvips.py", "aiohttp + pyvips"), ("pillow", "e2e_pillow.py", "aiohttp + Pillow")] {
            let path = Paths.benchmarks.appendingPathComponent("scripts/\(script)").path
            guard FileManager.default.isExecutableFile(atPath: python) else {
                report.note("e2e: peer \(label) not measured: no Python at \(python) (scripts/bench.sh creates Benchmarks/.venv)")
                missing.append(label)
                continue
            }
            let check = Self.capture(python, [path, "--check"])
            guard check.status == 0, let version = check.output.split(separator: "\n").last.map(String.init) else {
                let why = check.output.split(separator: "\n").last.map(String.init) ?? "exit \(check.status)"
                report.note("e2e: peer \(label) not measured: it does not import (\(why)); scripts/bench.sh installs it "
                            + "from PyPI into Benchmarks/.venv, which needs PyPI to be reachable")
                missing.append(label)
                continue
            }
            var name = "\(label) (\(version.replacingOccurrences(of: " (API mode)", with: "")))"
            if key == "pyvips" {
                name = "aiohttp + pyvips (libvips \(Self.words(after: "libvips", in: version) ?? "?"))"
                if let v = Self.words(after: "libvips", in: version), v.compare("8.18", options: .numeric) == .orderedAscending {
                    report.note("e2e: pyvips runs on libvips \(v), not the 8.18 of the pyvips-binary wheel (\(version))")
                }
            } else if key == "pillow", let v = Self.words(after: "Pillow", in: version) {
                name = "aiohttp + Pillow \(v)"
            }
            all.append(Contender(
                key: key, name: name, phases: ["cold", "warm"],
                command: { _, p in
                    (python, [path, p.list, "--originals", p.state, "--out", p.out, "--size", "\(Self.box)",
                              "--quality", "\(Self.quality)", "--concurrency", "\(Self.concurrency)"])
                },
                outputName: { index, _ in "\(index + 1).jpg" }))
        }
        if let bash = which("bash"), which("curl") != nil, which("xargs") != nil, let vipsthumbnail = which("vipsthumbnail") {
            let script = Paths.benchmarks.appendingPathComponent("scripts/e2e_vipsthumbnail.sh").path
            let version = Self.capture(vipsthumbnail, ["--vips-version"]).output
                .split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
            all.append(Contender(
                key: "vipsthumbnail", name: "curl + vipsthumbnail \(version) ×2", phases: ["cold", "warm"],
                command: { phase, p in
                    // About 8 vipsthumbnail processes per set (at most 64 files each), 2 at a time.
                    let per = max(1, min(64, (p.count + 7) / 8))
                    return (bash, [script, phase, p.curlConfig, p.state, p.out, "\(Self.box)", "\(Self.quality)", "\(per)"])
                },
                outputName: { _, url in SHA256KeyHashing().digest(for: url) + ".jpg" }))
        } else {
            report.note("e2e: peer curl + vipsthumbnail not measured: needs bash, curl, xargs and vipsthumbnail (Debian's libvips-tools)")
            missing.append("curl + vipsthumbnail")
        }
        return (all, missing)
    }

    // MARK: Run

    func run() {
        let selected = Self.setNames.filter { Self.ids(of: $0).contains(where: options.selects) }
        guard !selected.isEmpty else { return }
        print("end to end: URL list → 256-px JPEG thumbnails, pictor vs aiohttp + pyvips, aiohttp + Pillow, curl + vipsthumbnail")
        func skipAll(_ reason: String) { for set in selected { report.skip("e2e.\(set).*", reason) } }
        guard options.pictorBinary != nil else { return skipAll("the pictor binary was not given (scripts/bench.sh passes --pictor)") }
        if let reason = TestImages.prepare(options) { return skipAll(reason) }
        let sets: [ImageSet]
        do { sets = try imageSets() } catch { return skipAll("set-up failed: \(error)") }
        let (tools, missing) = contenders()
        guard tools.count > 1 else { return skipAll("no peer could run (see the notes)") }
        let work = URL(fileURLWithPath: options.workDirectory, isDirectory: true).appendingPathComponent("e2e")
        let fm = FileManager.default
        try? fm.removeItem(at: work)
        do {
            // One nginx for every set: site/<set>/<name> → the source.
            let site = work.appendingPathComponent("site")
            for set in sets {
                try fm.createDirectory(at: site.appendingPathComponent(set.name), withIntermediateDirectories: true)
                for i in 0..<set.count {
                    let entry = set.entry(i)
                    try fm.createSymbolicLink(atPath: site.appendingPathComponent("\(set.name)/\(entry.name)").path,
                                              withDestinationPath: entry.source.path)
                }
            }
            let nginx = try Nginx(root: site, runDirectory: work.appendingPathComponent("nginx"))
            defer { nginx.stop() }
            for var set in sets where set.ids.contains(where: options.selects) {
                let started = nowNanoseconds()
                let measured = try measure(&set, tools: tools, missing: missing, nginx: nginx, work: work.appendingPathComponent(set.name))
                print(String(format: "  (%@: %.0f s, of which the measured runs %.0f s)",
                             set.name, Double(nowNanoseconds() - started) / 1e9, measured / 1e9))
            }
        } catch {
            skipAll("set-up failed: \(error)")
        }
        try? fm.removeItem(at: work)
    }

    /// Runs every round of one set and adds its rows; returns the wall time of the measured
    /// runs alone (the rest is set-up, checks and `sync`), nanoseconds.
    private func measure(_ set: inout ImageSet, tools: [Contender], missing: [String], nginx: Nginx, work: URL) throws -> Double {
        let fm = FileManager.default
        try fm.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: work) }
        let decoder = ImageDecoderRegistry.vips
        // Block means of the generated sources (the EXIF photos have the MANIFEST's).
        for i in set.sources.indices where set.sources[i].signature == nil {
            guard let data = fm.contents(atPath: set.sources[i].path),
                  let image = try? decoder.decode(data, options: ImageDecodingOptions()) else {
                throw BenchError("cannot decode \(set.sources[i].path)")
            }
            set.sources[i].signature = Self.signature(image)
        }
        let urls = (0..<set.count).map { "http://127.0.0.1:\(nginx.port)/\(set.name)/\(set.entry($0).name)" }
        let list = work.appendingPathComponent("urls.txt").path
        try (urls.joined(separator: "\n") + "\n").write(toFile: list, atomically: false, encoding: .utf8)
        var totalBytes = 0
        for i in 0..<min(set.count, set.sources.count) {
            totalBytes += (try? fm.attributesOfItem(atPath: set.sources[i].path)[.size] as? Int) ?? 0
        }
        let meanKB = totalBytes / max(1, min(set.count, set.sources.count)) / 1_000
        // Every URL once to /dev/null, so that nginx serves the sources from the page cache.
        let prime = work.appendingPathComponent("prime.curl").path
        try urls.map { "url = \"\($0)\"\noutput = \"/dev/null\"\n" }.joined().write(toFile: prime, atomically: false, encoding: .utf8)
        if let curl = which("curl") { _ = try? runProcess(curl, ["--parallel", "--parallel-max", "\(Self.concurrency)", "-s", "-K", prime]) }

        print("  \(set.name): \(set.count) URLs, \(rounds) round\(rounds == 1 ? "" : "s"), \(tools.map(\.key).joined(separator: ", "))")
        var outcomes: [String: [String: [Outcome]]] = [:]
        for round in 0..<rounds {
            // Rotate the order of the tools, so that each goes first in turn.
            let order = (0..<tools.count).map { tools[($0 + round) % tools.count] }
            for tool in order {
                let root = work.appendingPathComponent(tool.key)
                try? fm.removeItem(at: root)
                try fm.createDirectory(at: root, withIntermediateDirectories: true)
                let state = root.appendingPathComponent(tool.isPictor ? "cache" : "originals").path
                let curlConfig = root.appendingPathComponent("download.curl").path
                try urls.map { "url = \"\($0)\"\noutput = \"\(state)/\(SHA256KeyHashing().digest(for: $0))\"\n" }.joined()
                    .write(toFile: curlConfig, atomically: false, encoding: .utf8)
                var phases = tool.phases
                // Pictor's two warm runs swap places every other round.
                if phases.count == 3 && round % 2 == 1 { phases.swapAt(1, 2) }
                for phase in phases {
                    let out = root.appendingPathComponent("out-\(phase)")
                    let paths = RunPaths(list: list, curlConfig: curlConfig, state: state, out: out.path,
                                         stdout: root.appendingPathComponent("stdout-\(phase).txt").path, count: set.count)
                    let (path, arguments) = tool.command(phase, paths)
                    let before = nginx.requestCount
                    let run = try MeasuredRun.run(path, arguments, output: paths.stdout)
                    sync()   // written files go to disk before the next run, outside its timing
                    var outcome = Outcome(run: run, problem: nil, requests: nginx.requestCount - before)
                    if run.status != 0 {
                        let said = (try? String(contentsOfFile: paths.stdout, encoding: .utf8))?
                            .split(separator: "\n").last.map(String.init) ?? ""
                        outcome.problem = "exited \(run.status)" + (said.isEmpty ? "" : " (\(said.prefix(120)))")
                    } else {
                        let names = urls.enumerated().map { tool.outputName($0.offset, $0.element) }
                        outcome.problem = check(out, names: names, set: set, decoder: decoder)
                    }
                    if let problem = outcome.problem { print("    \(tool.key) \(phase) round \(round + 1): \(problem)") }
                    outcomes[tool.key, default: [:]][phase, default: []].append(outcome)
                    try? fm.removeItem(at: out)
                }
                try? fm.removeItem(at: root)
            }
        }
        addRows(set: set, meanKB: meanKB, tools: tools, missing: missing, outcomes: outcomes)
        return outcomes.values.flatMap(\.values).joined().map(\.run.wallNanoseconds).reduce(0, +)
    }

    // MARK: Output checks

    /// `nil` when `directory` holds exactly the expected files and a sample of them (all of them
    /// for the EXIF set) are JPEG thumbnails of the right size, orientation and content.
    private func check(_ directory: URL, names: [String], set: ImageSet, decoder: ImageDecoderRegistry) -> String? {
        let present = Set(((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { !$0.hasPrefix(".") })
        let missing = names.filter { !present.contains($0) }
        if present.count != names.count || !missing.isEmpty {
            return "\(present.count) output files for \(names.count) URLs" + (missing.first.map { " (missing \(missing.count), e.g. \($0))" } ?? "")
        }
        let indices = set.name == "exif" || names.count <= Self.sample
            ? Array(names.indices)
            : (0..<Self.sample).map { $0 * (names.count - 1) / (Self.sample - 1) }
        var wrong: [String] = []
        for i in indices {
            let source = set.entry(i).source
            let file = directory.appendingPathComponent(names[i]).path
            guard let data = FileManager.default.contents(atPath: file),
                  let image = try? decoder.decode(data, options: ImageDecodingOptions()) else {
                wrong.append("\(names[i]) does not decode"); continue
            }
            let scale = Double(Self.box) / Double(max(source.width, source.height))
            let w = Int((Double(source.width) * scale).rounded()), h = Int((Double(source.height) * scale).rounded())
            if image.sourceFormat != .jpeg {
                wrong.append("\(names[i]) is \(image.sourceFormat?.rawValue ?? "?"), not JPEG")
            } else if max(image.width, image.height) != Self.box || abs(image.width - w) > 1 || abs(image.height - h) > 1 {
                wrong.append("\(names[i]) is \(image.width)×\(image.height), expected \(w)×\(h) (\(set.entry(i).name))")
            } else if let expected = source.signature {
                let got = Self.signature(image)
                let distance = zip(got, expected).map { abs($0 - $1) }.reduce(0, +) / Double(max(1, expected.count))
                if expected.count != got.count || distance > Self.signatureTolerance {
                    wrong.append(String(format: "%@ differs from its source %@ (block means %.0f apart: flipped or rotated?)",
                                        names[i], set.entry(i).name, distance))
                }
            }
        }
        return wrong.isEmpty ? nil : "\(wrong.count) of \(indices.count) checked outputs wrong, e.g. \(wrong[0])"
    }

    /// Means of R, G and B over a 4 × 4 grid of blocks, row-major (the corpus MANIFEST's
    /// `signature` for an opaque image; grey counts as R = G = B).
    static func signature(_ image: Image) -> [Double] {
        let w = image.width, h = image.height, bands = image.layout.bands
        var out: [Double] = []
        out.reserveCapacity(48)
        image.frames[0].pixels.withUnsafeBytes { raw in
            let p = raw.bindMemory(to: UInt8.self)
            for by in 0..<4 {
                let y0 = by * h / 4, y1 = max(y0 + 1, (by + 1) * h / 4)
                for bx in 0..<4 {
                    let x0 = bx * w / 4, x1 = max(x0 + 1, (bx + 1) * w / 4)
                    var r = 0, g = 0, b = 0
                    for y in y0..<min(y1, h) {
                        var o = (y * w + x0) * bands
                        for _ in x0..<min(x1, w) {
                            if bands >= 3 { r += Int(p[o]); g += Int(p[o + 1]); b += Int(p[o + 2]) }
                            else { r += Int(p[o]); g += Int(p[o]); b += Int(p[o]) }
                            o += bands
                        }
                    }
                    let n = Double(max(1, (min(y1, h) - y0) * (min(x1, w) - x0)))
                    out += [Double(r) / n, Double(g) / n, Double(b) / n]
                }
            }
        }
        return out
    }

    // MARK: Rows

    /// One figure of a run, and how it is compared.
    private struct Metric {
        let suffix: String
        let target: String
        let caption: String
        let kind: String
        let higherIsBetter: Bool
        let value: (Outcome) -> Double
        let format: (Double) -> String
        let goal: Goal
    }

    private func addRows(set: ImageSet, meanKB: Int, tools: [Contender], missing: [String], outcomes: [String: [String: [Outcome]]]) {
        let n = Double(set.count)
        let metrics = [
            Metric(suffix: "", target: "E2E-1", caption: "images/s, whole process (start-up included)", kind: "throughput",
                   higherIsBetter: true, value: { n / ($0.run.wallNanoseconds / 1e9) },
                   format: { String(format: "%.0f img/s", $0) }, goal: .speedupAtLeast(1.0)),
            Metric(suffix: ".cpu", target: "E2E-2", caption: "… CPU per image (user + system of the whole process tree)", kind: "time",
                   higherIsBetter: false, value: { $0.run.cpuNanoseconds / n / 1e6 },
                   format: { String(format: "%.2f ms", $0) }, goal: .timeAtMost(1.0)),
            Metric(suffix: ".rss", target: "E2E-3", caption: "… peak RSS (GNU time; of the largest process for curl + vipsthumbnail)",
                   kind: "scale", higherIsBetter: false, value: { $0.run.peakRSSBytes / 1e6 },
                   format: { String(format: "%.0f MB", $0) }, goal: .valueAtMost(1.5)),
        ]
        let phases: [(pictor: String, peers: String, label: String, goals: Bool)] = [
            ("cold", "cold", "cold (empty caches: download, keep, decode, encode, write)", true),
            ("warm-originals", "warm", "warm, originals on disk, every tool decodes them (pictor --no-cache-thumbnails)", true),
            ("warm-thumbnails", "warm", "warm, pictor as shipped: it reads the 256-px images its cold run cached and decodes no original; the peers decode their originals (informational)", false),
        ]
        let peers = tools.filter { !$0.isPictor }
        for phase in phases {
            guard let pictorRuns = outcomes["pictor"]?[phase.pictor], !pictorRuns.isEmpty else { continue }
            // A peer that failed in any round is not compared.
            var valid: [(tool: Contender, runs: [Outcome])] = []
            var excluded: [String] = []
            for peer in peers {
                let runs = outcomes[peer.key]?[phase.peers] ?? []
                if let bad = runs.first(where: { $0.problem != nil }) {
                    excluded.append("\(peer.name): \(bad.problem!)")
                } else if runs.count == pictorRuns.count {
                    valid.append((peer, runs))
                }
            }
            var pictorMarks: [String] = []
            if let bad = pictorRuns.first(where: { $0.problem != nil }) {
                pictorMarks.append("**outputs failed the check: \(bad.problem!)**")
            }
            let requests = pictorRuns.map(\.requests).max() ?? 0
            if phase.pictor != "cold" && requests > 0 { pictorMarks.append("\(requests) requests to nginx in a warm run") }
            let peerRequests = valid.filter { phase.peers != "cold" && ($0.runs.map(\.requests).max() ?? 0) > 0 }
                .map { "\($0.tool.name) made \($0.runs.map(\.requests).max()!) requests in a warm run" }

            for metric in metrics {
                let id = "e2e.\(set.name).\(phase.pictor)\(metric.suffix)"
                guard options.selects(id) else { continue }
                let pictorValues = pictorRuns.map(metric.value)
                if pictorValues.contains(where: { !$0.isFinite }) { report.skip(id, "not measured (GNU time missing?)"); continue }
                let p = Summary(pictorValues)
                var figure = metric.caption
                if metric.suffix.isEmpty {
                    figure = "URL list → \(Self.box)-px JPEG q\(Self.quality) thumbnails in a folder, originals kept on disk, "
                        + "\(Self.concurrency) at a time, nginx on loopback: \(set.label), \(meanKB) kB mean; \(phase.label): " + metric.caption
                }
                var pictorCell = "\(metric.format(p.median)) (\(metric.format(p.min))–\(metric.format(p.max)))"
                if !pictorMarks.isEmpty { pictorCell += "; " + pictorMarks.joined(separator: "; ") }
                let ranked = valid.map { (tool: $0.tool, values: $0.runs.map(metric.value)) }
                    .filter { $0.values.allSatisfy(\.isFinite) }
                    .sorted { a, b in
                        let ma = Summary(a.values).median, mb = Summary(b.values).median
                        return metric.higherIsBetter ? ma > mb : ma < mb
                    }
                var notes = excluded.map { "not compared: \($0)" } + peerRequests
                if !missing.isEmpty { notes.append("not measured: \(missing.joined(separator: ", ")) (see the notes)") }
                guard let best = ranked.first else {
                    report.add(Row(id: id, targetID: metric.target, figure: figure, pictor: pictorCell,
                                   reference: (["no peer passed its checks"] + notes).joined(separator: "; "),
                                   ratio: nil, ratioKind: metric.kind, goal: phase.goals ? metric.goal : .none,
                                   pictorValue: p.median, referenceValue: nil))
                    continue
                }
                let b = Summary(best.values)
                // Throughput: Pictor's images/s ÷ the peer's; CPU and RSS: Pictor's ÷ the peer's.
                let paired = Summary(zip(pictorValues, best.values).map { $0 / $1 }).median
                let ofMedians = p.median / b.median
                var reference = "\(best.tool.name): \(metric.format(b.median)); ratio of medians \(String(format: "%.2f×", ofMedians))"
                let others = ranked.dropFirst().map { "\($0.tool.name) \(metric.format(Summary($0.values).median))" }
                if !others.isEmpty { reference += "; others: " + others.joined(separator: ", ") }
                if !notes.isEmpty { reference += "; " + notes.joined(separator: "; ") }
                report.add(Row(id: id, targetID: metric.target, figure: figure, pictor: pictorCell, reference: reference,
                               ratio: paired, ratioKind: metric.kind, goal: phase.goals ? metric.goal : .none,
                               pictorValue: p.median, referenceValue: b.median))
            }
        }
    }

    // MARK: Helpers

    /// Runs a program and returns its status and its standard output and error together.
    static func capture(_ path: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path, isDirectory: false)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return (-1, "cannot start \(path): \(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The word after `word` in `text` ("libvips 8.18.7" → "8.18.7").
    static func words(after word: String, in text: String) -> String? {
        let parts = text.split(separator: " ")
        guard let i = parts.firstIndex(where: { $0 == word }), i + 1 < parts.count else { return nil }
        return String(parts[i + 1])
    }
}
