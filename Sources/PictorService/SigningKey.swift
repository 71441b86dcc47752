import PictorCrypto

/// One key/salt pair of imgproxy's URL signatures: a path is signed with
/// `base64url(HMAC-SHA256(key, salt + path))`, unpadded.
public struct SigningKey: Sendable {
    let mac: HMACSHA256
    let salt: [UInt8]

    /// A pair from raw bytes, each non-empty (any length; HMAC hashes keys over 64 bytes).
    ///
    /// - Throws: ``ServiceConfigurationError`` when either is empty, or libcrypto cannot
    ///   set up the MAC.
    public init(key: [UInt8], salt: [UInt8]) throws(ServiceConfigurationError) {
        guard !key.isEmpty else { throw ServiceConfigurationError(location: "signing key", message: "the key is empty") }
        guard !salt.isEmpty else { throw ServiceConfigurationError(location: "signing key", message: "the salt is empty") }
        do { mac = try HMACSHA256(keyBytes: key) } catch {
            throw ServiceConfigurationError(location: "signing key", message: error.description)
        }
        self.salt = salt
    }

    /// A pair from hex text, as imgproxy's `IMGPROXY_KEY` and `IMGPROXY_SALT` hold them
    /// (`943b421c9eb07c83…`, either case, an even number of digits).
    ///
    /// - Throws: ``ServiceConfigurationError`` for text that is not hex, or is empty.
    public init(hexKey: String, hexSalt: String) throws(ServiceConfigurationError) {
        guard let key = Self.hexBytes(hexKey) else {
            throw ServiceConfigurationError(location: "signing key", message: "the key is not hex")
        }
        guard let salt = Self.hexBytes(hexSalt) else {
            throw ServiceConfigurationError(location: "signing key", message: "the salt is not hex")
        }
        try self.init(key: key, salt: salt)
    }

    /// The 32-byte MAC of `path` ("/" prepended when it does not start with one, as imgproxy
    /// does).
    func mac<S: StringProtocol>(path: S) -> [UInt8] {
        var message = salt
        message.reserveCapacity(salt.count + path.utf8.count + 1)
        if path.utf8.first != UInt8(ascii: "/") { message.append(UInt8(ascii: "/")) }
        message.append(contentsOf: path.utf8)
        return mac.authenticationCode(for: message)
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = text.utf8.map(ArgumentParsing.hexValue)
        guard digits.count % 2 == 0, !digits.contains(nil) else { return nil }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0]! << 4 | digits[$0 + 1]! }
    }
}
