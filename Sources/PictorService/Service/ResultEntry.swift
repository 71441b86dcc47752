import Foundation
import PictorCore
import PictorCrypto

/// One encoded result as the service keeps it in memory and answers with it.
struct ResultEntry: Sendable {
    var image: EncodedImage
    /// The strong entity tag, quoted: `"<base64url of the SHA-256 of the bytes>"`.
    var etag: String
    var lastModified: String?
    var sourceFreshUntil: Date?

    init(image: EncodedImage, lastModified: String?, sourceFreshUntil: Date?) {
        self.image = image
        etag = "\"" + Base64URL.encode(SHA256.hash(image.data)) + "\""
        self.lastModified = lastModified
        self.sourceFreshUntil = sourceFreshUntil
    }
}
