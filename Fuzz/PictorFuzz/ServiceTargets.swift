import Foundation
import PictorServer
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

    /// Header fields as `name:value` lines. What must hold: a refusal is 400 or 501, the
    /// order and ASCII case of the names change nothing, a head refused without a length or a
    /// coding is a 400 (a malformed field), and a head accepted is delimited one way only: no
    /// field, one length of digits that fits an `Int64`, or `chunked` alone.
    @Sendable static func requestFraming(_ b: UnsafeRawBufferPointer) {
        let text = String(decoding: b, as: UTF8.self)
        var fields: [(name: String, value: String)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(64) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
        }
        let status = RequestFraming.refusal(fields, version: "HTTP/1.1")?.status
        check(status == nil || status == 400 || status == 501, "status \(String(describing: status))")
        let asciiUpper = { (name: String) in
            String(decoding: name.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
        }
        let shuffled = RequestFraming.refusal(fields.reversed().map { (asciiUpper($0.name), $0.value) }, version: "HTTP/1.1")?.status
        check(shuffled == status, "order or case changed \(String(describing: status)) to \(String(describing: shuffled))")
        let isField = { (name: String, wanted: String) in asciiUpper(name) == asciiUpper(wanted) }
        let lengths = fields.filter { isField($0.name, "content-length") }.map(\.value)
        let codings = fields.filter { isField($0.name, "transfer-encoding") }.map(\.value)
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let trim = { (value: String) in String(value.drop(while: blank).reversed().drop(while: blank).reversed()) }
        guard status == nil else {
            // Without either field, only a malformed field (400) is refused.
            check(!lengths.isEmpty || !codings.isEmpty || status == 400, "refused a head with neither field: \(String(describing: status))")
            return
        }
        check(lengths.isEmpty || codings.isEmpty, "accepted both fields")
        if !lengths.isEmpty {
            let value = trim(lengths[0])
            check(lengths.count == 1 && value.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && Int64(value) != nil,
                  "accepted Content-Length \(lengths)")
        }
        if !codings.isEmpty {
            check(codings.count == 1 && asciiUpper(trim(codings[0])) == "CHUNKED", "accepted Transfer-Encoding \(codings)")
        }
    }
}
