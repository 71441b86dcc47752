import Foundation
import Testing
@testable import PictorCLI

/// The default cache directory under the XDG Base Directory specification.
extension PictorCommandTests {
    @Test(arguments: ["relative/cache", "cache", "./cache", "~/cache"])
    func aRelativeXDGCacheHomeIsIgnored(_ xdg: String) {
        // The XDG Base Directory specification: a relative path is invalid and is ignored.
        let context = CommandContext(console: RecordingConsole().console, environment: ["XDG_CACHE_HOME": xdg, "HOME": "/h"])
        #expect(context.defaultCacheDirectory.path == "/h/.cache/pictor")
    }
}
