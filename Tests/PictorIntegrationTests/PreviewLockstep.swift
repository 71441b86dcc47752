import Foundation
import Pictor

/// Reads a task's previews in step with a server that sends its next piece only when told
/// (a `SteppedHTTPServer` whose handler waits on `go`), as the preview integration tests do.
enum PreviewLockstep {
    /// One preview for each piece but the last (telling the server to go on after each), then
    /// the final response and any preview that came before it. `nextAfterFinal` is what the
    /// stream gave once the final image was in: `nil` when it ended, as it must.
    static func collect(
        _ task: ImageTask, pieces: Int, go: DispatchSemaphore
    ) async throws -> (previews: [ImageResponse], final: ImageResponse, nextAfterFinal: ImageResponse?) {
        var previews = task.previews.makeAsyncIterator()
        var seen: [ImageResponse] = []
        for _ in 1..<pieces {
            guard let preview = await previews.next() else { break }
            seen.append(preview)
            go.signal()
        }
        let final = try await task.response
        while let late = await previews.next() { seen.append(late) }
        return (seen, final, await previews.next())
    }
}
