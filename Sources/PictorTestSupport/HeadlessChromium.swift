import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Screenshots of local HTML pages with headless Chromium (Debian's `chromium` package), for
/// tests that check what a page really shows: sizes, colours, what is visible at all.
///
/// Each screenshot runs one browser process with a fresh profile in a temporary directory, so
/// it never reads or writes `~/.config/chromium` and never hands the page to a browser that is
/// already running. The flags make it work as root and in containers: `--no-sandbox` (Chromium
/// refuses to start as root with its sandbox, and containers rarely allow the user namespaces
/// it needs), `--disable-dev-shm-usage` (a container's `/dev/shm` is often too small),
/// `--disable-gpu`. Pixels are exact: the device scale factor is 1 and colours are sRGB, so a
/// `#ff0000` box is `(255, 0, 0)` in the PNG.
///
/// ```swift
/// @Test(.enabled(if: HeadlessChromium.isAvailable, "needs chromium")) func pageShowsTheBox() async throws {
///     let png = try await offPool { try HeadlessChromium.screenshot(of: page, width: 800, height: 600) }
///     // decode png and look at its pixels
/// }
/// ```
public enum HeadlessChromium {
    /// The browser: `$PICTOR_CHROMIUM` when set, else the first of `chromium`,
    /// `chromium-browser` and `google-chrome` on `PATH`.
    public static var executablePath: String? {
        if let path = ProcessInfo.processInfo.environment["PICTOR_CHROMIUM"], !path.isEmpty {
            return LoopbackHTTP.which(path)
        }
        return ["chromium", "chromium-browser", "google-chrome"].lazy.compactMap(LoopbackHTTP.which).first
    }

    /// Why a screenshot could not be taken.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, with the end of the browser's output when there is one.
        public let description: String
    }

    /// Whether a browser was found; use with `.enabled(if:)`.
    public static var isAvailable: Bool { executablePath != nil }

    /// The command-line flags of a screenshot, before `--screenshot`, `--window-size`,
    /// `--user-data-dir` and the page's URL.
    public static let flags = [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
        "--force-device-scale-factor=1", "--force-color-profile=srgb", "--no-first-run", "--no-default-browser-check",
        "--disable-extensions", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--mute-audio",
    ]

    /// Renders `page` in a `width` × `height` window and returns the screenshot's PNG bytes.
    ///
    /// Blocking: call it through ``offPool(_:)`` from an `async` test.
    ///
    /// - Parameters:
    ///   - page: a `file:` URL (or any URL the browser can open without a network).
    ///   - width: the window's width in CSS pixels (and the PNG's width).
    ///   - height: the window's height in CSS pixels (and the PNG's height); content below it is
    ///     not captured.
    ///   - timeout: seconds before the browser is killed and the screenshot fails.
    /// - Returns: the PNG file's bytes.
    /// - Throws: ``Failure`` when no browser is found, or when it cannot be started, exits
    ///   without a screenshot or runs out of time (with the end of its output).
    public static func screenshot(of page: URL, width: Int, height: Int, timeout: Double = 60) throws -> Data {
        guard let browser = executablePath else { throw Failure(description: "no chromium found (Debian: apt-get install chromium)") }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-chromium-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let png = work.appendingPathComponent("screenshot.png")
        let log = work.appendingPathComponent("chromium.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: log)
        defer { try? logHandle.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        process.arguments = flags + [
            "--user-data-dir=\(work.appendingPathComponent("profile").path)",
            "--screenshot=\(png.path)", "--window-size=\(width),\(height)", page.absoluteString,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = work.path   // nothing of the user's (crash reports, caches) is touched
        process.environment = environment
        // Both streams to a file: its logging is chatty (D-Bus is absent on servers), and a pipe
        // nobody reads would block it once full.
        process.standardOutput = logHandle
        process.standardError = logHandle
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw Failure(description: "\(browser) did not start: \(error)") }

        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        let timedOut = process.isRunning
        let status: Int32 = timedOut ? -1 : LoopbackHTTP.waitForExit(process)
        if timedOut { LoopbackHTTP.kill(process) }
        func tail() -> String {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").suffix(8).joined(separator: "\n")
        }
        if timedOut { throw Failure(description: "\(browser) took more than \(timeout) s:\n\(tail())") }
        guard status == 0, let data = FileManager.default.contents(atPath: png.path), !data.isEmpty else {
            throw Failure(description: "\(browser) exited with \(status) and no screenshot:\n\(tail())")
        }
        return data
    }
}
