import Foundation
import PictorCore
import Synchronization
internal import CVips
internal import CVipsShim

/// Process-wide libvips set-up: started once, its operation cache off, its warnings routed to a
/// ``/PictorCore/PictorLog`` instead of standard error.
///
/// Every PictorVips type calls ``start()`` itself; applications only call ``setLog(_:)`` when they
/// want libvips' warnings (for example "Premature end of JPEG file" on an accepted truncated
/// file).
public enum VipsRuntime {
    /// Where libvips' warnings go; ``PictorLog/disabled`` until ``setLog(_:)`` is called.
    private static let log = Mutex<PictorLog>(.disabled)

    private static let started: Bool = {
        let ok = cvs_init("pictor") == 0
        // A caching library must not hide a second cache inside libvips, and benchmarks must be real.
        vips_cache_set_max(0)
        cvs_set_log_callback { level, message in
            let text = message.map { String(cString: $0) } ?? ""
            let logLevel: PictorLog.Level = level == 0 ? .debug : (level == 1 ? .warning : .error)
            let log = VipsRuntime.log.withLock { $0 }
            log.log(logLevel, "libvips: \(text)")
        }
        return ok
    }()

    /// Starts libvips if it is not started yet; safe to call from any thread, any number of times.
    ///
    /// - Throws: ``VipsError`` when `vips_init` failed (the library is unusable).
    public static func start() throws(VipsError) {
        guard started else { throw VipsError(operation: "vips_init", message: "libvips failed to start") }
    }

    /// Routes libvips' GLib log messages (domain `VIPS`) to `log`: warnings at
    /// ``/PictorCore/PictorLog/Level/warning``, criticals at ``/PictorCore/PictorLog/Level/error``, info at
    /// ``/PictorCore/PictorLog/Level/debug``. Default: dropped (``/PictorCore/PictorLog/disabled``).
    ///
    /// - Parameter log: where libvips' messages go from now on.
    public static func setLog(_ log: PictorLog) {
        _ = started
        Self.log.withLock { $0 = log }
    }

    /// The libvips version string, for example `8.14.1`.
    public static var version: String {
        _ = started
        return String(cString: vips_version_string())
    }
}
