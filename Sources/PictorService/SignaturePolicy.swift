/// Whether request paths must be signed, and with which key/salt pairs.
///
/// With keys, a path's first segment must be `base64url(HMAC-SHA256(key, salt + path))`
/// (unpadded, 43 characters) for one of the pairs, where `path` is everything after that
/// segment, starting with `/` (query excluded): imgproxy's scheme, so its signers in every
/// language work. Several pairs verify at once, so keys can be rotated: add the new pair, move
/// the signers, drop the old one. Every pair is tried and the comparison is constant-time, so
/// the time taken says nothing about the expected signature or which pair matched.
///
/// Signing is off only with ``disabled``, spelled out; an empty key list is a configuration
/// error rather than a quiet "off".
public struct SignaturePolicy: Sendable {
    let keys: [SigningKey]

    /// No signature check: the first segment may be anything (`insecure`, `unsafe`, `_`), but
    /// must still be there; one that looks like an option (has a `:`) is refused with
    /// ``ServiceError/Kind/missingSignature``, as imgproxy does.
    public static let disabled = SignaturePolicy(unchecked: [])

    /// Paths signed with any of `keys`.
    ///
    /// - Throws: ``ServiceConfigurationError`` when `keys` is empty.
    public init(keys: [SigningKey]) throws(ServiceConfigurationError) {
        guard !keys.isEmpty else {
            throw ServiceConfigurationError(location: "signing keys", message: "no key/salt pair (use SignaturePolicy.disabled to switch signing off)")
        }
        self.keys = keys
    }

    /// Pairs from imgproxy-style lists of hex keys and hex salts, paired by position
    /// (`IMGPROXY_KEY=k1,k2`, `IMGPROXY_SALT=s1,s2`).
    ///
    /// - Throws: ``ServiceConfigurationError`` when the counts differ, a list is empty, or an
    ///   entry is not hex (naming its position from 1).
    public init(hexKeys: [String], hexSalts: [String]) throws(ServiceConfigurationError) {
        guard hexKeys.count == hexSalts.count else {
            throw ServiceConfigurationError(location: "signing keys", message: "\(hexKeys.count) keys but \(hexSalts.count) salts")
        }
        var keys: [SigningKey] = []
        for (index, (key, salt)) in zip(hexKeys, hexSalts).enumerated() {
            do { keys.append(try SigningKey(hexKey: key, hexSalt: salt)) } catch {
                throw ServiceConfigurationError(location: "signing key \(index + 1)", message: error.message)
            }
        }
        try self.init(keys: keys)
    }

    private init(unchecked keys: [SigningKey]) {
        self.keys = keys
    }

    /// Whether paths must carry a valid signature.
    public var isEnabled: Bool { !keys.isEmpty }

    /// The signature of `path` (the part after the signature segment, from its `/`) with the
    /// first pair, as a client would make it; `nil` when signing is disabled.
    public func signature<S: StringProtocol>(for path: S) -> String? {
        keys.first.map { Base64URL.encode($0.mac(path: path)) }
    }

    /// Accepts `signature` for `path`, or throws.
    ///
    /// - Throws: ``ServiceError/Kind/invalidSignature`` (403) when no pair matches or the
    ///   signature is not canonical unpadded base64url; ``ServiceError/Kind/missingSignature`` (403)
    ///   when signing is off and the segment contains `:`.
    public func verify<S: StringProtocol>(signature: S, path: S) throws(ServiceError) {
        guard isEnabled else {
            if signature.utf8.contains(UInt8(ascii: ":")) {
                throw ServiceError(.missingSignature, reason: "the signature segment is missing (the path starts with an option)")
            }
            return
        }
        // Only the canonical spelling: no padding, no set bits past the last byte (which Go's
        // decoder, and so imgproxy, ignores), so one signature has one spelling.
        guard signature.utf8.count <= 64, let given = Base64URL.decode(signature.utf8),
              Base64URL.encode(given).utf8.elementsEqual(signature.utf8)
        else { throw ServiceError(.invalidSignature, reason: "invalid signature") }
        var matched = false
        for key in keys {
            // No early exit: every pair costs the same whether or not an earlier one matched.
            matched = Self.constantTimeEqual(given, key.mac(path: path)) || matched
        }
        guard matched else { throw ServiceError(.invalidSignature, reason: "invalid signature") }
    }

    /// Equal length and bytes, in time that depends on the length only (which is public).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
