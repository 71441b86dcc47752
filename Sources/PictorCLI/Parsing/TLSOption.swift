import Foundation
import Pictor

/// `--ca-file`, `--ca-path`, `--cert` and `--key`, with the certificate authorities the
/// environment names when neither of the first two is given (`CURL_CA_BUNDLE`, else
/// `SSL_CERT_FILE` and `SSL_CERT_DIR`, in curl's order:
/// `CurlTransport.Configuration.trustCertificateAuthorities(fromEnvironment:)`).
///
/// Every path, from an option or a variable, is checked before anything is loaded: a file or
/// directory that does not exist or cannot be read is a usage error naming where it came from
/// (curl would fail each HTTPS transfer instead, and ignore a missing `SSL_CERT_DIR`).
struct TLSOption {
    /// The CA bundle, and the option or variable that named it.
    var caFile: (path: String, source: String)?
    /// The hashed CA directory, and the option or variable that named it.
    var caPath: (path: String, source: String)?
    /// `--cert FILE`.
    var clientCertificate: String?
    /// `--key FILE`.
    var clientKey: String?

    /// Reads the options `parser`'s command declares (`serve` takes no client certificate) and
    /// the environment, and checks every path.
    ///
    /// - Throws: ``CLIError/usage(_:)`` for an empty value, `--key` without `--cert`, or a path
    ///   that cannot be used.
    static func parse(_ parser: inout ArgumentParser, context: CommandContext, clientCertificates: Bool = true) throws -> TLSOption {
        let file = try parser.option(.caFile)
        let directory = try parser.option(.caPath)
        let certificate = clientCertificates ? try parser.option(.clientCertificate) : nil
        let key = clientCertificates ? try parser.option(.clientKey) : nil
        for (value, option) in [(file, CLIOption.caFile), (directory, .caPath), (certificate, .clientCertificate), (key, .clientKey)]
        where value?.isEmpty == true {
            throw CLIError.usage("empty value for '\(option.longName)'")
        }
        if key != nil, certificate == nil { throw CLIError.usage("'--key' is the key of a client certificate: pass '--cert FILE' too") }

        var configuration = CurlTransport.Configuration()
        configuration.caFile = file
        configuration.caPath = directory
        let variables = configuration.trustCertificateAuthorities(fromEnvironment: context.environment)
        var option = TLSOption(clientCertificate: certificate, clientKey: key)
        if let path = configuration.caFile {
            let source = file != nil ? "--ca-file" : variables.contains("CURL_CA_BUNDLE") ? "CURL_CA_BUNDLE" : "SSL_CERT_FILE"
            try check(path, directory: false, source: source)
            option.caFile = (path, source)
        }
        if let path = configuration.caPath {
            let source = directory != nil ? "--ca-path" : "SSL_CERT_DIR"
            try check(path, directory: true, source: source)
            option.caPath = (path, source)
        }
        if let certificate { try check(certificate, directory: false, source: "--cert") }
        if let key { try check(key, directory: false, source: "--key", certificates: false) }
        return option
    }

    /// The transport's settings for these options.
    func apply(to configuration: inout CurlTransport.Configuration) {
        configuration.caFile = caFile?.path
        configuration.caPath = caPath?.path
        configuration.clientCertificateFile = clientCertificate
        configuration.clientKeyFile = clientKey
    }

    /// Refuses a path that is missing, of the other kind (a file for a directory), not readable,
    /// or (a file that should hold `certificates`) with no PEM certificate in it, naming
    /// `source` (an option, or a variable of the environment).
    ///
    /// - Throws: ``CLIError/usage(_:)``.
    static func check(_ path: String, directory: Bool, source: String, certificates: Bool = true) throws {
        var isDirectory: ObjCBool = false
        let problem: String
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            problem = directory ? "no such directory" : "no such file"
        } else if isDirectory.boolValue != directory {
            problem = directory ? "not a directory" : "a directory, not a file"
        } else if !FileManager.default.isReadableFile(atPath: path) {
            problem = "not readable"
        } else if !directory, certificates, !holdsPEMCertificate(path) {
            // libcurl would take it and fail every HTTPS transfer with a handshake error that
            // reads as the server's fault (and is retried).
            problem = "holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
        } else {
            return
        }
        if source.hasPrefix("-") { throw CLIError.usage("invalid value '\(path)' for '\(source)': \(problem)") }
        throw CLIError.usage("\(source)=\(path) names no usable CA \(directory ? "directory" : "file"): \(problem) "
            + "(unset it, or pass --ca-file or --ca-path, which win over it)")
    }

    /// Whether the file at `path` holds a PEM certificate block: a CA bundle or a client
    /// certificate, as libcurl reads them (the first 64 MiB are read; bundles are far smaller).
    static func holdsPEMCertificate(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 64 << 20) else { return false }
        return data.range(of: Data("-----BEGIN CERTIFICATE-----".utf8)) != nil
    }
}
