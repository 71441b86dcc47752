import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The properties of an ``ImageRequest``, boxed so that copies of a request share them.
///
/// `@unchecked Sendable`: the box is mutable, but ``ImageRequest`` changes it only while it holds
/// the one reference to it (copy-on-write), so a box another request or thread can see is never
/// written. ``keyMemo`` is itself thread-safe.
final class ImageRequestStorage: @unchecked Sendable {
    var urlRequest: URLRequest
    var url: URL?
    var processors: [any ImageProcessing]
    var thumbnail: ThumbnailOptions?
    var priority: RequestPriority
    var options: ImageRequest.Options
    var userInfo: [String: any Sendable]
    /// The keys computed for these properties; shared by copies until one changes what the keys
    /// depend on, which makes a new box. A constant, so a lookup reads it without retaining it.
    let keyMemo: RequestKeyMemo

    init(
        urlRequest: URLRequest, processors: [any ImageProcessing], thumbnail: ThumbnailOptions?,
        priority: RequestPriority, options: ImageRequest.Options, userInfo: [String: any Sendable],
        keyMemo: RequestKeyMemo = RequestKeyMemo()
    ) {
        self.urlRequest = urlRequest
        self.url = urlRequest.url
        self.processors = processors
        self.thumbnail = thumbnail
        self.priority = priority
        self.options = options
        self.userInfo = userInfo
        self.keyMemo = keyMemo
    }

    /// A new box with the same properties and `keyMemo`.
    func copy(keyMemo: RequestKeyMemo) -> ImageRequestStorage {
        ImageRequestStorage(urlRequest: urlRequest, processors: processors, thumbnail: thumbnail,
                            priority: priority, options: options, userInfo: userInfo, keyMemo: keyMemo)
    }
}
