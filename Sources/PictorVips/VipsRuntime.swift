import Foundation
import PictorCore
import Synchronization
internal import CVips
internal import CVipsShim

/// Process-wide libvips set-up: loaded (`dlopen`) and started once, on first use, its operation
/// cache off, its warnings routed to a ``/PictorCore/PictorLog`` instead of standard error.
///
/// Every PictorVips type calls ``start()`` itself; applications only call ``setLog(_:)`` when they
/// want libvips' warnings (for example "Premature end of JPEG file" on an accepted truncated
/// file).
public enum VipsRuntime {
    /// Where libvips' warnings go; ``PictorLog/disabled`` until ``setLog(_:)`` is called.
    private static let log = Mutex<PictorLog>(.disabled)

    /// `nil` once libvips is loaded and started, else why it could not be: the library is
    /// opened on first use (not linked), so processes that never reach it never pay for loading
    /// it and its dependencies.
    private static let failure: String? = {
        var error = [CChar](repeating: 0, count: 512)
        guard cvs_start("pictor", &error, error.count) == 0 else {
            return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        cvs_set_log_callback { level, message in
            let text = message.map { String(cString: $0) } ?? ""
            let logLevel: PictorLog.Level = level == 0 ? .debug : (level == 1 ? .warning : .error)
            let log = VipsRuntime.log.withLock { $0 }
            log.log(logLevel, "libvips: \(text)")
        }
        return nil
    }()

    /// Starts libvips if it is not started yet; safe to call from any thread, any number of times.
    ///
    /// - Throws: ``VipsError`` (operation `vips_init`) when libvips cannot be loaded (the shared
    ///   library `libvips.so.42` of Debian's `libvips42` is missing) or failed to start; every
    ///   later call throws the same.
    public static func start() throws(VipsError) {
        if let failure { throw VipsError(operation: "vips_init", message: failure) }
    }

    /// Routes libvips' GLib log messages (domain `VIPS`) to `log`: warnings at
    /// ``/PictorCore/PictorLog/Level/warning``, criticals at ``/PictorCore/PictorLog/Level/error``, info at
    /// ``/PictorCore/PictorLog/Level/debug``. Default: dropped (``/PictorCore/PictorLog/disabled``).
    ///
    /// - Parameter log: where libvips' messages go from now on.
    public static func setLog(_ log: PictorLog) {
        Self.log.withLock { $0 = log }
    }

    /// The libvips version string, for example `8.14.1`; `nil` when libvips cannot be loaded.
    /// Reading it loads libvips.
    public static var version: String? {
        guard failure == nil, let text = cvs_version_string() else { return nil }
        return String(cString: text)
    }
}
