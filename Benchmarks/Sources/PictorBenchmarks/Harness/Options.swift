import Foundation

/// Command-line options of the benchmark executable.
struct Options {
    /// Fewer iterations, shorter batches and the small scales only; finishes in minutes.
    var quick = false
    /// Only benchmarks whose identifier contains one of these substrings (case-insensitive).
    var filters: [String] = []
    /// Where to write the results as JSON (`-` for standard output).
    var jsonPath: String?
    /// Where to write the Markdown report (docs/benchmarks.md).
    var markdownPath: String?
    /// Scratch directory for files, servers and caches; removed at the end.
    var workDirectory = NSTemporaryDirectory() + "pictor-bench-\(getpid())"
    /// Python interpreter with Pillow, for the decoding reference.
    var python: String?
    /// The `pictor` executable for the whole-CLI rows (`scripts/bench.sh` builds and passes it).
    var pictorBinary: String?
    /// thumbor 7.8 for the service rows (default: Benchmarks/.venv-thumbor/bin/thumbor).
    var thumborBinary: String?
    /// Render a JSON results file (from `--json`) as Markdown to `--markdown` and exit.
    var renderPath: String?

    static let usage = """
        usage: PictorBenchmarks [--quick] [--filter SUBSTRING]... [--json PATH|-] [--markdown PATH]
                                [--python PATH] [--pictor PATH] [--thumbor PATH] [--workdir DIR]
                                [--render JSON --markdown PATH]
          --quick       short run (small scales, few iterations); always exits 0
          --filter S    run only benchmarks whose id contains S (repeatable)
          --json P      write results as JSON to P ('-' = stdout)
          --markdown P  write the report table (docs/benchmarks.md format) to P
          --python P    Python with Pillow for the thumbnail reference (default: Benchmarks/.venv)
          --pictor P    the pictor executable for the whole-CLI rows (skipped without it)
          --thumbor P   thumbor 7.8 for the service rows (default: Benchmarks/.venv-thumbor/bin/thumbor)
          --render J    only turn results JSON J into Markdown (with --markdown) and exit
        """

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var it = arguments.makeIterator()
        func value(_ flag: String) -> String {
            guard let v = it.next() else { fail("\(flag) needs a value") }
            return v
        }
        while let arg = it.next() {
            switch arg {
            case "--quick": options.quick = true
            case "--filter": options.filters.append(value(arg).lowercased())
            case "--json": options.jsonPath = value(arg)
            case "--markdown": options.markdownPath = value(arg)
            case "--python": options.python = value(arg)
            case "--pictor": options.pictorBinary = value(arg)
            case "--thumbor": options.thumborBinary = value(arg)
            case "--workdir": options.workDirectory = value(arg)
            case "--render": options.renderPath = value(arg)
            case "-h", "--help": print(usage); exit(0)
            default: fail("unknown argument \(arg)")
            }
        }
        return options
    }

    func selects(_ id: String) -> Bool {
        filters.isEmpty || filters.contains { id.lowercased().contains($0) }
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("PictorBenchmarks: \(message)\n\(usage)\n".utf8))
        exit(2)
    }
}
