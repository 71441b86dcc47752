import Foundation

/// The parts of `Cache-Control` (RFC 9111 §5.2.2) that Pictor's caches act on, parsed by the
/// field's grammar (RFC 9110 §5.6: `token [ "=" ( token / quoted-string ) ]`, comma-separated).
///
/// A freshness directive the grammar does not allow (`max-age='3600'`, `max-age =100`,
/// `max-age= 100`, `max-age=a100`, `max-age=100a`, a `max-age` without a value, two `max-age`s
/// that disagree) is not ignored: the server said something a cache cannot read, and RFC 9111
/// §4.2.1 has such a response treated as stale (``hasInvalidMaxAge``, ``hasInvalidSharedMaxAge``).
/// The quoted form (`max-age="3600"`) is read, as §5.2 asks of recipients. Any other directive
/// the grammar does not allow (an unclosed quote, text after an argument) sets
/// ``hasMalformedDirective``: a shared cache does not keep what it cannot read in full, since
/// the part it could not read may have said `private`.
package struct CacheControl: Sendable, Hashable {
    /// `max-age` in seconds (at most 2^31, §1.2.2), when valid.
    package var maxAge: Double?
    /// A `max-age` was present but is not valid delta-seconds: the response is stale.
    package var hasInvalidMaxAge = false
    /// `s-maxage` in seconds, when valid: a shared cache's freshness lifetime, over `max-age`.
    package var sharedMaxAge: Double?
    /// An `s-maxage` was present, valid or not (it allows a shared cache to reuse a response to
    /// a request with `Authorization`, §3.5, and implies `proxy-revalidate`).
    package var hasSharedMaxAge = false
    /// An `s-maxage` was present but is not valid delta-seconds: stale in a shared cache.
    package var hasInvalidSharedMaxAge = false
    /// `no-store`: never write the response to any cache.
    package var noStore = false
    /// `no-cache` (with or without field names): store, but revalidate before every use.
    package var noCache = false
    /// `must-revalidate`: never serve it stale (not even when the network fails).
    package var mustRevalidate = false
    /// `proxy-revalidate`: as `must-revalidate`, for shared caches only.
    package var proxyRevalidate = false
    /// `private` (with or without field names): for one user's cache only; a shared cache never
    /// stores it.
    package var isPrivate = false
    /// `public`: any cache may store it, even a response to a request with `Authorization`.
    package var isPublic = false
    /// Some directive does not follow the grammar: what it says is unknown.
    package var hasMalformedDirective = false
    /// `stale-while-revalidate=N` (RFC 5861 §3) in seconds, when valid: for N seconds after the
    /// response went stale, a cache may serve it at once while it revalidates it in the
    /// background. An invalid or repeated-and-different value grants nothing (`nil`).
    package var staleWhileRevalidate: Double?
    /// `stale-if-error=N` (RFC 5861 §4) in seconds, when valid: for N seconds after the
    /// response went stale, a cache may serve it when revalidation fails with an error; past
    /// them it may not. An invalid or repeated-and-different value grants nothing (`nil`).
    package var staleIfError: Double?

    /// The largest delta-seconds a cache must read (RFC 9111 §1.2.2); larger values are this.
    package static let deltaSecondsLimit = 2_147_483_648.0

    /// Parses a header value such as `public, max-age=3600, must-revalidate`; `nil` is an
    /// absent header.
    package init(_ header: String?) {
        guard let header else { return }
        var maxAges: [Substring?] = []
        var sharedMaxAges: [Substring?] = []
        var staleWhileRevalidates: [Substring?] = []
        var staleIfErrors: [Substring?] = []
        for directive in Self.directives(header) {
            if directive.isMalformed { hasMalformedDirective = true }
            switch directive.name.lowercased() {
            case "max-age": maxAges.append(directive.isMalformed ? nil : directive.argument)
            case "s-maxage": sharedMaxAges.append(directive.isMalformed ? nil : directive.argument)
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "must-revalidate": mustRevalidate = true
            case "proxy-revalidate": proxyRevalidate = true
            case "private": isPrivate = true
            case "public": isPublic = true
            case "stale-while-revalidate": staleWhileRevalidates.append(directive.isMalformed ? nil : directive.argument)
            case "stale-if-error": staleIfErrors.append(directive.isMalformed ? nil : directive.argument)
            default: break
            }
        }
        (maxAge, hasInvalidMaxAge) = Self.deltaSeconds(maxAges)
        (sharedMaxAge, hasInvalidSharedMaxAge) = Self.deltaSeconds(sharedMaxAges)
        hasSharedMaxAge = !sharedMaxAges.isEmpty
        // A permission to serve stale that cannot be read grants nothing (unlike a freshness
        // lifetime, where an unreadable one makes the response stale: both err towards asking).
        staleWhileRevalidate = Self.deltaSeconds(staleWhileRevalidates).0
        staleIfError = Self.deltaSeconds(staleIfErrors).0
    }

    /// The one value of a directive that appeared `values.count` times (`nil` for a malformed
    /// occurrence): valid when every occurrence is the same delta-seconds.
    private static func deltaSeconds(_ values: [Substring?]) -> (Double?, invalid: Bool) {
        guard !values.isEmpty else { return (nil, false) }
        let parsed = values.map { $0.flatMap(deltaSeconds) }
        guard let first = parsed[0], parsed.allSatisfy({ $0 == first }) else { return (nil, true) }
        return (first, false)
    }

    /// `1*DIGIT`, capped at 2^31; `nil` for anything else (sign, space, letters, empty).
    package static func deltaSeconds(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let digits = text.drop(while: { $0 == "0" })
        guard digits.count <= 10, let value = Double(digits.isEmpty ? "0" : String(digits)) else { return deltaSecondsLimit }
        return min(value, deltaSecondsLimit)
    }

    /// One directive as written.
    package struct Directive: Equatable {
        package var name: Substring
        /// The argument (a token, or a quoted string's content with its escapes removed).
        package var argument: Substring?
        /// The element did not follow the grammar past its name (a space before `=`, a bad
        /// argument, text after the argument); its name is still reported so that a freshness
        /// directive in this state makes the response stale rather than vanishing.
        package var isMalformed = false
    }

    /// The directives of `header`, in order: list elements separated by commas outside quoted
    /// strings, each `token [ "=" ( token / quoted-string ) ]` with optional white space around
    /// the element only. An element that does not start with a token is reported malformed
    /// with an empty name. A malformed element ends at the next comma, quotes or not, so that an
    /// unclosed quote cannot hide the directives after it.
    package static func directives(_ header: String) -> [Directive] {
        var result: [Directive] = []
        var rest = Substring(header)
        while !rest.isEmpty {
            rest = rest.drop(while: { $0 == " " || $0 == "\t" })
            // An empty element (`a, , b`), which lists may have.
            if rest.first == "," {
                rest = rest.dropFirst()
                continue
            }
            if rest.isEmpty { break }
            let name = rest.prefix(while: isTokenCharacter)
            rest = rest.dropFirst(name.count)
            var directive = Directive(name: name, isMalformed: name.isEmpty)
            if !name.isEmpty, rest.first == "=" {
                rest = rest.dropFirst()
                if rest.first == "\"" {
                    if let (content, after) = quotedString(rest) {
                        directive.argument = content
                        rest = after
                    } else {
                        directive.isMalformed = true
                    }
                } else {
                    let token = rest.prefix(while: isTokenCharacter)
                    rest = rest.dropFirst(token.count)
                    if token.isEmpty { directive.isMalformed = true } else { directive.argument = token }
                }
            }
            rest = rest.drop(while: { $0 == " " || $0 == "\t" })
            if let next = rest.first, next != "," { directive.isMalformed = true }
            // A well-formed element ends here; a malformed one at the next comma.
            rest = rest.drop(while: { $0 != "," }).dropFirst()
            result.append(directive)
        }
        return result
    }

    /// A quoted string at the start of `text`: its content (escapes removed) and what follows
    /// the closing quote; `nil` when it is not closed.
    private static func quotedString(_ text: Substring) -> (Substring, Substring)? {
        var content = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let c = text[index]
            if c == "\"" { return (Substring(content), text[text.index(after: index)...]) }
            if c == "\\" {
                index = text.index(after: index)
                guard index < text.endIndex else { return nil }
            }
            content.append(text[index])
            index = text.index(after: index)
        }
        return nil
    }

    /// `tchar` of RFC 9110 §5.6.2.
    package static func isTokenCharacter(_ c: Character) -> Bool {
        guard let ascii = c.asciiValue else { return false }
        switch ascii {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(ascii)
        }
    }
}
