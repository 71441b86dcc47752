import Foundation
import Testing
@testable import PictorCLI
import Pictor
import PictorTestSupport

/// `scripts/contact_sheet.py`, the demo's contact sheet, fed with reports written by the CLI's own
/// `ReportWriter`, and looked at in a real browser.
@Suite(.enabled(if: ContactSheet.python != nil && HeadlessChromium.isAvailable,
                "needs python3 and chromium (Debian: apt-get install chromium; scripts/bootstrap.sh test installs it)"))
struct ContactSheetTests {
    /// A tiny image, a failure with markup in its reason, a normal thumbnail and a very wide one
    /// that is larger than the cell, in the HTML and on screen.
    @Test func showsTheSummaryFailuresAndTinyImagesInABrowser() async throws {
        let clock = ContinuousClock.now
        let dir = try makeTemporaryDirectory("sheet")
        defer { try? FileManager.default.removeItem(at: dir) }
        let images: [(name: String, output: String, width: Int, height: Int, rgb: [UInt8])] = [
            ("red.png", "red-1x1.png", 1, 1, [255, 0, 0]),
            ("blue.png", "blue-8x8.png", 8, 8, [0, 0, 255]),
            // An output file name that must be percent-encoded in `src` to load at all.
            ("photo.png", "photo & 'x' #1.png", 200, 120, [0, 160, 0]),
            ("banner.png", "banner.png", 1024, 16, [255, 200, 0]),
        ]
        var cold: [ImageJob.Result] = [], warm: [ImageJob.Result] = []
        for folder in ["thumbs-cold", "thumbs-warm"] {
            try FileManager.default.createDirectory(at: dir.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        for (position, image) in images.enumerated() {
            let pixels = Data((0..<(image.width * image.height)).flatMap { _ in image.rgb })
            let png = try VipsEncoder().encode(Image(width: image.width, height: image.height, layout: .rgb, pixels: pixels), as: .png)
            for folder in ["thumbs-cold", "thumbs-warm"] {
                try png.write(to: dir.appendingPathComponent(folder).appendingPathComponent(image.output))
            }
            var result = ImageJob.Result(url: URL(string: "http://127.0.0.1:8080/images/\(image.name)")!, status: .ok,
                                         index: position < 2 ? position + 1 : position + 2)
            result.layer = "network"
            result.width = image.width
            result.height = image.height
            result.bytes = 1000
            result.seconds = 0.010
            result.outputPath = dir.appendingPathComponent("thumbs-cold").appendingPathComponent(image.output).path
            result.writtenBytes = Int64(png.count)
            cold.append(result)
            result.layer = "disk"
            result.seconds = 0.002
            warm.append(result)
        }
        // Third in the input: a URL whose file name and reason hold markup, quotes and '&'.
        let failed = ImageJob.Result(
            url: URL(string: "http://127.0.0.1:8080/images/a%20%26%20%3Cb%3E%22q%22.png")!,
            status: .failed(#"HTTP 404 <script>alert("pwned")</script> & 'more'"#), index: 3)
        cold.insert(failed, at: 2)
        warm.insert(failed, at: 2)
        for (name, results, seconds) in [("cold", cold, 0.5), ("warm", warm, 0.1)] {
            let report = try ReportWriter(path: dir.appendingPathComponent("\(name).tsv").path)
            // Written in another order than the input's, as a real run finishes them.
            for (i, result) in results.reversed().enumerated() {
                report.append(result, finishedAfter: seconds * Double(i + 1) / Double(results.count))
            }
            report.close()
        }

        let page = try await offPool { try ContactSheet.write(for: dir) }
        let html = try String(contentsOf: page, encoding: .utf8)

        // The summary: totals and each run's figures.
        #expect(html.contains("Pictor demo: contact sheet"))
        #expect(html.contains("<b>5 images</b>: <span class=\"good\">4 ok</span>, <span class=\"bad\">1 failed</span>"), "\(html)")
        let rows = html.components(separatedBy: "<tr>").filter { $0.hasPrefix("<th scope=\"row\">") }
        #expect(rows.count == 2)
        let coldRow = try #require(rows.first { $0.contains(">cold<") }), warmRow = try #require(rows.first { $0.contains(">warm<") })
        #expect(coldRow.contains("<td>4 <small>(100%)</small></td><td><b>0%</b></td>"), "network 4 of 4 ok, no cache hits: \(coldRow)")
        #expect(coldRow.contains("<td>3.9 KiB</td><td>0.50 s</td><td>10.0</td>"), "downloaded, time, images/s: \(coldRow)")
        #expect(warmRow.contains("<td><b>100%</b></td>"), "\(warmRow)")
        #expect(warmRow.contains("<td>0 B</td><td>0.10 s</td><td>50.0</td>"), "\(warmRow)")
        // Input order, not the reports' order.
        let names = ["red.png", "blue.png", "a &amp; &lt;b&gt;&quot;q&quot;.png", "photo.png", "banner.png"]
        let positions = names.compactMap { html.range(of: "<b class=\"name\">\($0)</b>")?.lowerBound }
        #expect(positions.count == names.count && positions == positions.sorted(), "file names, escaped, in input order")

        // Escaped everywhere, and nothing fetched from elsewhere.
        #expect(!html.lowercased().contains("<script"), "markup from a report reached the page")
        #expect(html.contains("HTTP 404 &lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; &amp; &#x27;more&#x27;"))
        #expect(html.contains(#"src="thumbs-warm/photo%20%26%20%27x%27%20%231.png""#))
        #expect(html.range(of: #"(src|href)\s*=\s*"?(https?:)?//"#, options: .regularExpression) == nil)
        #expect(!html.contains("<link") && !html.contains("@import") && !html.contains("url("))
        #expect(html.contains("1×1 px <small>(shown ×64)</small>") && html.contains("8×8 px <small>(shown ×8)</small>"))
        #expect(html.contains("image-rendering:pixelated"))

        // On screen: one row of five cells.
        let shot = try await offPool { try HeadlessChromium.screenshot(of: page, width: 1600, height: 800) }
        // Kept with the results when the run saves attachments (`swift test --attachments-path DIR`).
        Attachment.record(shot, named: "contact-sheet.png")
        let screen = try Census(ImageDecoderRegistry.vips.decode(shot, options: ImageDecodingOptions()))
        #expect(screen.width == 1600 && screen.height == 800)
        let red = screen.count[.red, default: 0]
        #expect(screen.largestSquare[.red, default: 0] >= 48, "the 1×1 red image is not a visible square (\(red) red pixels)")
        #expect((48 * 48...80 * 80).contains(red), "the 1×1 image is enlarged about ×64: \(red) red pixels")
        #expect(screen.largestSquare[.blue, default: 0] >= 48, "the 8×8 blue image is not a visible square")
        #expect(screen.largestSquare[.green, default: 0] >= 100, "the photo, whose file name needs escaping in its URL, is not shown")
        // The failure: a red frame around a pink box.
        #expect(screen.count[.frame, default: 0] >= 3 * 4 * 240, "the failure box's red frame: \(screen.count[.frame, default: 0]) pixels")
        #expect(screen.largestSquare[.pink, default: 0] >= 120, "the failure box's background is missing")
        // The banner, 1024 px wide in its report, is shrunk into its 256 px cell.
        let banner = screen.columns[.yellow]
        #expect(banner != nil, "the banner is not on screen")
        #expect((banner?.count ?? 0) <= 256, "the banner spans columns \(String(describing: banner))")
        print("ContactSheetTests: sheet, screenshot and checks in \(ContinuousClock.now - clock)")
    }
}

/// Runs `scripts/contact_sheet.py`.
enum ContactSheet {
    static var script: URL { BinaryRunner.packageRoot.appendingPathComponent("scripts/contact_sheet.py") }

    static var python: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map(String.init) + ["/usr/bin"]).map { $0 + "/python3" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Writes `dir/index.html` from the reports in `dir` and returns its URL.
    static func write(for dir: URL) throws -> URL {
        let page = dir.appendingPathComponent("index.html")
        _ = FileManager.default.createFile(atPath: page.path, contents: nil)
        let output = try FileHandle(forWritingTo: page)
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python!)
        process.arguments = [script.path, dir.path]
        process.standardOutput = output
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        let status = LoopbackHTTP.waitForExit(process)
        guard status == 0 else {
            throw CLIError.failure("contact_sheet.py exited with \(status): \(String(decoding: message, as: UTF8.self))")
        }
        return page
    }
}

/// The colours the test looks for in a screenshot: how many pixels of each, the side of the
/// largest square of one colour, and the columns each spans. Two passes over the pixels, so that
/// a debug build takes a fraction of a second for a whole screen.
struct Census {
    enum Colour: Hashable {
        case red, blue, green, frame, pink, yellow

        /// The colour of an sRGB pixel, `nil` for any other.
        init?(r: Int, g: Int, b: Int) {
            switch (r, g, b) {
            case (240..., ...16, ...16): self = .red                           // #ff0000
            case (...16, ...16, 240...): self = .blue                          // #0000ff
            case (...16, 150...170, ...16): self = .green                      // the photo, (0, 160, 0)
            case (198...210, ...10, ...10): self = .frame                      // the failure box's #cc0000
            case (250..., 222...234, 222...234): self = .pink                  // its #ffe4e4
            case (240..., 188...212, ...16): self = .yellow                    // the banner, (255, 200, 0)
            default: return nil
            }
        }
    }

    let width: Int, height: Int
    private(set) var count: [Colour: Int] = [:]
    private(set) var largestSquare: [Colour: Int] = [:]
    private(set) var columns: [Colour: ClosedRange<Int>] = [:]

    init(_ image: Image) {
        width = image.width
        height = image.height
        let rgba = image.rgba8()
        var colours = [Colour?](repeating: nil, count: width * height)
        rgba.withUnsafeBytes { p in
            for i in 0..<(width * height) {
                guard let c = Colour(r: Int(p[4 * i]), g: Int(p[4 * i + 1]), b: Int(p[4 * i + 2])) else { continue }
                colours[i] = c
                count[c, default: 0] += 1
                let x = i % width
                columns[c] = columns[c].map { min($0.lowerBound, x)...max($0.upperBound, x) } ?? x...x
            }
        }
        // side[i]: the largest square of one colour whose bottom-right pixel is i.
        var side = [Int](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let i = y * width + x
                guard let c = colours[i] else { continue }
                var s = 1
                if x > 0, y > 0, colours[i - 1] == c, colours[i - width] == c, colours[i - width - 1] == c {
                    s = min(side[i - 1], side[i - width], side[i - width - 1]) + 1
                }
                side[i] = s
                if s > largestSquare[c, default: 0] { largestSquare[c] = s }
            }
        }
    }
}
