import Foundation
import PictorService

/// Targets over the image service's request paths.
enum ServiceTargets {
    static let unsigned = try! ProcessingURLParser(signature: .disabled)
    static let policy = try! SignaturePolicy(keys: [SigningKey(key: Array("fuzz-key".utf8), salt: Array("fuzz-salt".utf8))])
    static let signed = try! ProcessingURLParser(signature: policy)

    /// Every byte but the unreserved ones as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-._~".utf8.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(String(Int(byte) + 0x100, radix: 16, uppercase: true).suffix(2))
            }
        }
        return out
    }

    @Sendable static func path(_ b: UnsafeRawBufferPointer) {
        let path = String(decoding: b, as: UTF8.self)
        let rest = Substring(path)
        let normalized = PathNormalization.redenormalize(rest)
        check(PathNormalization.redenormalize(Substring(normalized)) == normalized, "redenormalising '\(path)' twice changes it")
        guard let url = try? unsigned.parse(path) else { return }
        check(!url.source.url.isEmpty, "empty source from '\(path)'")
        // The canonical options are an options path that parses back to equal options; the
        // source written plainly reads back the same.
        let canonical = "/_/" + url.options.canonicalString + "/plain/" + percentEncoded(url.source.url)
        guard canonical.utf8.count <= unsigned.limits.maxPathLength else { return }
        do {
            let again = try unsigned.parse(canonical)
            check(again.options == url.options, "'\(path)' → '\(canonical)' has other options: \(again.options.canonicalString)")
            check(again.source.url == url.source.url, "'\(path)' → '\(canonical)' has another source")
        } catch {
            check(false, "'\(path)' → canonical '\(canonical)' fails: \(error)")
        }
    }

    @Sendable static func signature(_ b: UnsafeRawBufferPointer) {
        let text = String(decoding: b, as: UTF8.self)
        // By scalar, as the parser looks for them: `?` or `/` and a combining mark after it are
        // one Character, which `contains("?")` or `hasPrefix("/")` would not see.
        guard !text.unicodeScalars.contains("?"), !text.isEmpty, text.unicodeScalars.first != "/" else { return }
        let rest = PathNormalization.redenormalize(Substring(text))
        guard let signature = policy.signature(for: rest) else { check(false, "no signature"); return }
        do { try policy.verify(signature: signature, path: rest) } catch { check(false, "own signature refused for '\(rest)'") }
        // One character changed (another base64url letter) is refused.
        var changed = Array(signature.utf8)
        let index = Int(b.first ?? 0) % changed.count
        changed[index] = changed[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let forged = String(decoding: changed, as: UTF8.self)
        check((try? policy.verify(signature: forged, path: rest)) == nil, "changed signature '\(forged)' accepted")
        // Through the parser, the signature over the normalised path is never refused.
        guard text.unicodeScalars.contains("/") else { return }
        do {
            _ = try signed.parse("/" + signature + "/" + text)
        } catch {
            check(error.kind != .invalidSignature && error.kind != .missingSignature, "signed path '\(text)' refused: \(error)")
        }
        check((try? signed.parse("/" + forged + "/" + text)) == nil, "forged signature parsed")
    }
}
