import Foundation

/// A throw-away private certificate authority for TLS tests, made with the `openssl` command
/// in a temporary directory: the CA's certificate, a server certificate for `127.0.0.1` and a
/// client certificate (for mutual TLS), each signed by the CA, and a copy of the CA's
/// certificate in a directory hashed by `openssl rehash` (the form curl's `--capath` and
/// libcurl's `CURLOPT_CAPATH` read).
///
/// Keys are EC P-256, unencrypted PEM; every certificate is valid for two days from its
/// creation. Nothing is installed in the system's trust store.
///
/// ```swift
/// let authority = try TestCertificateAuthority()
/// defer { authority.remove() }
/// let server = try HTTPSNginxServer(root: folder, authority: authority)
/// defer { server.stop() }
/// // trust authority.certificate, load server.url("/a.png")
/// ```
public struct TestCertificateAuthority: Sendable {
    /// The `openssl` executable: `/usr/bin/openssl` (Debian `openssl`).
    public static let opensslBinary = "/usr/bin/openssl"

    /// Whether ``opensslBinary`` exists and is executable; use with `.enabled(if:)`.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: opensslBinary) }

    /// The temporary directory holding every file below; ``remove()`` deletes it.
    public let directory: URL
    /// The CA's certificate (PEM): what a client trusts.
    public let certificate: URL
    /// A directory holding only the CA's certificate and its subject-hash link (`<hash>.0`).
    public let hashedDirectory: URL
    /// The server's certificate (PEM), for `IP:127.0.0.1`, signed by the CA.
    public let serverCertificate: URL
    /// The server certificate's private key (PEM, unencrypted).
    public let serverKey: URL
    /// A client certificate (PEM, extended key usage `clientAuth`), signed by the CA.
    public let clientCertificate: URL
    /// The client certificate's private key (PEM, unencrypted).
    public let clientKey: URL

    /// The CA's subject (and so every certificate's issuer), as an RFC 2253 name:
    /// `CN=<name>,O=Pictor Tests`.
    public let subject: String
    /// The server certificate's subject as an RFC 2253 name: `CN=127.0.0.1,O=Pictor Tests`.
    public let serverSubject = "CN=127.0.0.1,O=Pictor Tests"
    /// The client certificate's subject as an RFC 2253 name: `CN=pictor-client,O=Pictor Tests`.
    public let clientSubject = "CN=pictor-client,O=Pictor Tests"

    /// Makes the CA and its certificates (a few `openssl` runs, well under a second).
    ///
    /// - Parameter name: the CA's common name; `Pictor Test CA` by default. Two authorities
    ///   made with one name are still two CAs (each has its own key).
    /// - Throws: ``TestServerError/unavailable(_:)`` without ``opensslBinary``;
    ///   ``TestServerError/failedToStart(_:)`` with `openssl`'s message when a step fails.
    public init(name: String = "Pictor Test CA") throws {
        guard Self.isAvailable else { throw TestServerError.unavailable(Self.opensslBinary) }
        subject = "CN=\(name),O=Pictor Tests"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-ca-\(UUID().uuidString)", isDirectory: true)
        certificate = directory.appendingPathComponent("ca.pem")
        hashedDirectory = directory.appendingPathComponent("hashed", isDirectory: true)
        serverCertificate = directory.appendingPathComponent("server.pem")
        serverKey = directory.appendingPathComponent("server.key")
        clientCertificate = directory.appendingPathComponent("client.pem")
        clientKey = directory.appendingPathComponent("client.key")
        try FileManager.default.createDirectory(at: hashedDirectory, withIntermediateDirectories: true)
        do {
            try make(name: name)
        } catch {
            remove()
            throw error
        }
    }

    private func make(name: String) throws {
        // A configuration of its own: what the CA and each certificate are for does not depend
        // on the system's openssl.cnf.
        let config = directory.appendingPathComponent("openssl.cnf")
        try """
            [req]
            distinguished_name = dn
            prompt = no
            [dn]
            CN = unused
            [ca]
            basicConstraints = critical,CA:TRUE
            keyUsage = critical,keyCertSign,cRLSign
            subjectKeyIdentifier = hash
            [server]
            basicConstraints = critical,CA:FALSE
            keyUsage = critical,digitalSignature
            extendedKeyUsage = serverAuth
            subjectAltName = IP:127.0.0.1
            authorityKeyIdentifier = keyid
            [client]
            basicConstraints = critical,CA:FALSE
            keyUsage = critical,digitalSignature
            extendedKeyUsage = clientAuth
            authorityKeyIdentifier = keyid

            """.write(to: config, atomically: true, encoding: .utf8)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let caKey = directory.appendingPathComponent("ca.key")
        try Self.openssl(["req", "-x509", "-config", config.path, "-extensions", "ca"] + key + [
            "-days", "2", "-subj", "/O=Pictor Tests/CN=\(name)", "-keyout", caKey.path, "-out", certificate.path,
        ])
        for (leaf, commonName, extensions, keyFile) in [
            (serverCertificate, "127.0.0.1", "server", serverKey), (clientCertificate, "pictor-client", "client", clientKey),
        ] {
            let request = directory.appendingPathComponent("\(extensions).csr")
            try Self.openssl(["req", "-new", "-config", config.path] + key + [
                "-subj", "/O=Pictor Tests/CN=\(commonName)", "-keyout", keyFile.path, "-out", request.path,
            ])
            try Self.openssl([
                "x509", "-req", "-in", request.path, "-CA", certificate.path, "-CAkey", caKey.path,
                "-set_serial", "\(UInt32.random(in: 1...UInt32.max))", "-days", "2",
                "-extfile", config.path, "-extensions", extensions, "-out", leaf.path,
            ])
        }
        try FileManager.default.copyItem(at: certificate, to: hashedDirectory.appendingPathComponent("ca.pem"))
        try Self.openssl(["rehash", hashedDirectory.path])
    }

    /// The client key encrypted with AES-256 under `passphrase`, in a new file beside it.
    ///
    /// - Throws: ``TestServerError/failedToStart(_:)`` when `openssl` fails.
    public func encryptedClientKey(passphrase: String = "pictor") throws -> URL {
        let encrypted = directory.appendingPathComponent("client-encrypted-\(UUID().uuidString).key")
        try Self.openssl(["pkey", "-in", clientKey.path, "-aes256", "-passout", "pass:\(passphrase)", "-out", encrypted.path])
        return encrypted
    }

    /// Deletes ``directory`` and everything in it; idempotent.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `openssl` with `arguments` to the end.
    ///
    /// - Throws: ``TestServerError/failedToStart(_:)`` with its error output when it fails.
    static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opensslBinary)
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        guard LoopbackHTTP.waitForExit(process) == 0 else {
            throw TestServerError.failedToStart("openssl \(arguments.first ?? ""): \(String(decoding: message, as: UTF8.self))")
        }
    }
}
