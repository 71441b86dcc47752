import Foundation
import PictorCore
import PictorServer
import PictorService

/// `serve`'s options, read and checked.
struct ServeSettings {
    var listen: ListenAddress
    var workers: Int?
    var keys: [String]
    var salts: [String]
    var insecureUnsigned: Bool
    var allowedSources: [String]
    var allowsPrivateNetwork: Bool
    var maxSourceBytes: Int?
    var maxSourcePixels: Int?
    var autoFormats: [ImageFormat]
    var presets: PresetTable
    var presetsOnly: Bool
    var requestTimeout: Int?
    var maxConnections: Int?
    var maxConnectionsPerIP: Int?
    var headerTimeout: Int?
    var ttl: Int
    var drainTimeout: Int
    var logFormat: AccessLogFormat
    var cache: CacheOptions
    var shared: SharedCacheOption
    var tls: TLSOption

    static func parse(_ parser: inout ArgumentParser, context: CommandContext) throws -> ServeSettings {
        let listenText = try parser.option(.listen)
        let listen: ListenAddress
        do {
            listen = try listenText.map(ListenAddress.init(parsing:)) ?? .default
        } catch {
            throw CLIError.usage("invalid value for '--listen': \(error)")
        }
        let workers = try parser.intOption(.workers)
        let keys = try parser.options(.signingKey)
        let salts = try parser.options(.signingSalt)
        let insecureUnsigned = parser.flag(.insecureUnsigned)
        let allowedSources = try parser.options(.allowSource)
        if allowedSources.contains(where: \.isEmpty) { throw CLIError.usage("empty value for '--allow-source'") }
        let allowsPrivateNetwork = parser.flag(.allowPrivateNetwork)
        let maxSourceBytes = try parser.option(.maxSourceBytes).map { text in
            let bytes = try Formatting.parseBytes(text, option: "--max-src-bytes")
            guard bytes > 0 else { throw CLIError.usage("invalid value '\(text)' for '--max-src-bytes': expected at least 1 byte") }
            return Int(clamping: bytes)
        }
        let maxSourcePixels = try parser.intOption(.maxSourcePixels)
        let autoFormats = try parser.option(.autoFormat).map(parseAutoFormats) ?? []
        let presetsOnly = parser.flag(.presetsOnly)
        let presets = try parser.option(.presets).map(readPresets) ?? PresetTable()
        if presetsOnly, presets.names.isEmpty {
            throw CLIError.usage("'--presets-only' needs presets: pass '--presets FILE'")
        }
        let requestTimeout = try parser.intOption(.requestTimeout)
        let maxConnections = try parser.intOption(.maxConnections)
        let maxConnectionsPerIP = try parser.intOption(.maxConnectionsPerIP)
        let headerTimeout = try parser.intOption(.headerTimeout)
        let ttl = try parser.intOption(.ttl) ?? 31_536_000
        let drainTimeout = try parser.intOption(.drainTimeout) ?? 10
        let formatName = try parser.option(.logFormat) ?? "text"
        guard let logFormat = AccessLogFormat(rawValue: formatName) else {
            throw CLIError.usage("invalid value '\(formatName)' for '--log-format': expected text or json")
        }
        let cache = try CacheOptions.parse(&parser, context: context, allowsNoCache: true)
        let shared = try SharedCacheOption.parse(&parser, context: context)
        let tls = try TLSOption.parse(&parser, context: context, clientCertificates: false)
        return ServeSettings(
            listen: listen, workers: workers, keys: keys, salts: salts, insecureUnsigned: insecureUnsigned,
            allowedSources: allowedSources, allowsPrivateNetwork: allowsPrivateNetwork, maxSourceBytes: maxSourceBytes,
            maxSourcePixels: maxSourcePixels, autoFormats: autoFormats, presets: presets, presetsOnly: presetsOnly,
            requestTimeout: requestTimeout, maxConnections: maxConnections, maxConnectionsPerIP: maxConnectionsPerIP,
            headerTimeout: headerTimeout, ttl: ttl,
            drainTimeout: drainTimeout,
            logFormat: logFormat, cache: cache, shared: shared, tls: tls)
    }

    /// `avif,webp` → `[.avif, .webp]`: output format names, comma-separated, each once.
    static func parseAutoFormats(_ text: String) throws -> [ImageFormat] {
        var formats: [ImageFormat] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            let word = name.trimmingCharacters(in: .whitespaces).lowercased()
            let format = word == "jpg" ? .jpeg : ImageFormat(rawValue: word)
            guard let format, [.jpeg, .png, .webp, .avif, .gif].contains(format) else {
                throw CLIError.usage("invalid value '\(text)' for '--auto-format': '\(word)' is not one of jpeg, png, webp, avif, gif")
            }
            guard !formats.contains(format) else {
                throw CLIError.usage("invalid value '\(text)' for '--auto-format': '\(word)' is named twice")
            }
            formats.append(format)
        }
        return formats
    }

    /// The presets in the file at `path`, checked for syntax (their options are checked when
    /// the parser is made).
    static func readPresets(_ path: String) throws -> PresetTable {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CLIError.usage("cannot read '--presets' file \(path): \(error.localizedDescription)")
        }
        do {
            return try PresetTable(parsing: text)
        } catch {
            throw CLIError.usage("invalid '--presets' file \(path): \(error)")
        }
    }

    /// The URL parser: the signature policy, the presets and presets-only mode.
    /// - Throws: ``CLIError/usage(_:)`` as ``signaturePolicy()`` does, or for a preset whose
    ///   options do not parse.
    func urlParser() throws -> ProcessingURLParser {
        let policy = try signaturePolicy()
        do {
            return try ProcessingURLParser(signature: policy, presets: presets, onlyPresets: presetsOnly)
        } catch {
            throw CLIError.usage("invalid '--presets': \(error)")
        }
    }

    /// Which addresses the transport may connect to: any with `--allow-private-network`, else
    /// public ones only, checked on each address a source's name resolves to and on every
    /// redirect hop.
    var connectAddressPolicy: ConnectAddressPolicy { allowsPrivateNetwork ? .allowAll : .publicOnly }

    /// Signed with the key/salt pairs, or unsigned when asked for in so many words.
    /// - Throws: ``CLIError/usage(_:)`` for no pairs without `--insecure-unsigned`, both, or
    ///   pairs that do not pair up or are not hex.
    func signaturePolicy() throws -> SignaturePolicy {
        if insecureUnsigned {
            guard keys.isEmpty && salts.isEmpty else {
                throw CLIError.usage("'--insecure-unsigned' and '--key'/'--salt' contradict each other: pass one or the other")
            }
            return .disabled
        }
        guard !keys.isEmpty || !salts.isEmpty else {
            throw CLIError.usage(
                "URL signing needs '--key HEX --salt HEX' (or PICTOR_KEY and PICTOR_SALT); pass '--insecure-unsigned' to serve unsigned URLs")
        }
        do {
            return try SignaturePolicy(hexKeys: keys, hexSalts: salts)
        } catch {
            throw CLIError.usage("invalid '--key'/'--salt': \(error)")
        }
    }
}
