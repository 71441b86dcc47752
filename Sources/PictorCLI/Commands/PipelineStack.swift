import Foundation
import Pictor

/// The pipeline a command runs on: the Linux stack with the command's cache options.
struct PipelineStack: Sendable {
    let pipeline: ImagePipeline
    let diskCache: DiskCache?

    init(cache: CacheOptions, console: Console) throws {
        let key = try cache.loadKey()
        let log = PictorLog(level: .warning) { level, message in console.error("pictor[\(level)]: \(message)") }
        if cache.disabled {
            diskCache = nil
        } else {
            do {
                diskCache = try DiskCache.standard(directory: cache.directory, encryptionKey: key, logger: log)
            } catch {
                throw cache.openError(error)
            }
        }
        pipeline = ImagePipeline(configuration: .standard(diskCache: diskCache, logger: log))
    }

    /// Waits for pending disk writes, so that a next process sees them.
    func flush() { diskCache?.flush() }

    func close() { flush() }
}
