import Foundation
import Pictor
import Testing

/// Every public error logs its own message: `localizedDescription` is the `description`, not
/// Foundation's "The operation could not be completed. (… error 0.)".
struct ErrorMessageTests {
    @Test(arguments: [
        (DataLoadingError.statusCode(404) as any Error, "HTTP status 404"),
        (ImagePipeline.Error.loadingFailed(DataLoadingError.statusCode(404)), "loading failed: HTTP status 404"),
        (ImageDecodingError.truncated(.png), "truncated png data"),
        (ImageEncodingError.unsupportedFormat(.avif), "cannot encode avif"),
        (ImageProcessingError.invalidParameter(processor: "resize", message: "width 0"), "resize: invalid parameter: width 0"),
        (SharedDataCacheError.rejected("OOM command not allowed"), "refused: OOM command not allowed"),
        (DiskCacheError.invalidConfiguration("sizeLimit must be positive"), "invalid disk cache configuration: sizeLimit must be positive"),
        (RedisError.connectionFailed(endpoint: RedisEndpoint(host: "127.0.0.1", port: 1), reason: "refused"),
         "cannot connect to Redis at 127.0.0.1:1: refused"),
        (CryptoError(.weakKey, operation: "key", message: "all bytes are the same"), "key: all bytes are the same"),
        (VipsError(operation: "jpegsave_buffer", message: "out of memory"), "jpegsave_buffer: out of memory"),
    ])
    func localizedDescriptionIsTheMessage(error: any Error, message: String) {
        #expect(String(describing: error) == message)
        #expect(error.localizedDescription == message)
    }

    @Test func theFormerCaseSpellingsStillMatch() {
        // Members keep the enum cases' names and labels: `==`, `catch` and `case` patterns
        // that name a whole error still compile and match.
        let error: any Error = DataLoadingError.statusCode(404)
        do {
            throw error
        } catch DataLoadingError.statusCode(404) {
        } catch {
            Issue.record("catch DataLoadingError.statusCode(404) did not match \(error)")
        }
        let loading = DataLoadingError.timedOut(seconds: 5)
        #expect(loading == .timedOut(seconds: 5))
        #expect(loading != .idleTimeout(seconds: 5))
        switch loading {
        case .statusCode(404): Issue.record("matched another member")
        case .timedOut(seconds: 5): break
        default: Issue.record("did not match its own member")
        }
        #expect(loading.kind == .timedOut && loading.seconds == 5)
        #expect(ImagePipeline.Error.cancelled == .cancelled)
        #expect(ImagePipeline.Error.loadingFailed(DataLoadingError.emptyBody) == .loadingFailed(DataLoadingError.emptyBody))
        #expect(ImagePipeline.Error.loadingFailed(DataLoadingError.emptyBody) != .decodingFailed(DataLoadingError.emptyBody))
        #expect(RedisError.timeout.kind == .timeout && RedisError.timeout != .connectionLost)
    }
}
