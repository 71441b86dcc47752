import Foundation
import Pictor
import PictorServer
import PictorService

/// `pictor serve [options]`: the image service (``PictorService/ImageService``) over HTTP
/// (``PictorServer/ImageServer``), on the command's pipeline and caches, until SIGTERM or
/// SIGINT, then a graceful drain and exit 0.
enum ServeCommand {
    static let help = """
    USAGE: pictor serve [options]

    Serves images in imgproxy's URL format over HTTP/1.1:
      /<signature>/<options>/plain/<source URL>[@<extension>]
      /<signature>/<options>/<base64url source URL>[.<extension>]
    through the memory and disk caches (and --shared-cache's fleet tier), so a
    result is made once. GET /health answers ok; GET /metrics is Prometheus text.
    One access-log line per request goes to standard error. On SIGTERM or SIGINT
    it stops accepting, lets requests in flight finish (--drain-timeout), exits 0.
    Prints 'listening on <address>' on standard output once it listens.

    Security defaults: URLs must be signed (--key and --salt) unless
    --insecure-unsigned is given; sources at loopback, private and link-local
    addresses are refused unless --allow-private-network is given, whether the
    URL names the address, its host name resolves to it (checked as each
    connection opens) or a redirect leads to it; a redirect is followed only to
    a source the rules allow; file: and data: sources are never fetched; it
    listens on 127.0.0.1 only by default.

    OPTIONS:
    \(OptionHelp.block(CLICommandOptions.serve.options))

    ENVIRONMENT:
      Every option can be set as PICTOR_ and its name in capitals, '-' as '_':
      PICTOR_LISTEN, PICTOR_KEY, PICTOR_SALT, PICTOR_ALLOW_SOURCE, PICTOR_TTL,
      PICTOR_SHARED_CACHE, PICTOR_INSECURE_UNSIGNED=1, ... A repeatable option's
      variable is a comma-separated list (PICTOR_KEY=k1,k2). An option given on
      the command line wins over its variable. Without --ca-file and --ca-path,
      CURL_CA_BUNDLE, SSL_CERT_FILE and SSL_CERT_DIR name the CAs to trust, as
      curl reads them.

    EXAMPLES:
      PICTOR_KEY=$KEY PICTOR_SALT=$SALT pictor serve --listen 127.0.0.1:8080
      pictor serve --insecure-unsigned --allow-source https://img.example/
    """

    /// Downloads at once (libcurl's connections over all origins).
    static let downloads = 16

    static func run(_ arguments: [String], context: CommandContext) async throws -> Int32 {
        try await serve(arguments, context: context)
    }

    /// Parses `arguments`, serves until `shutdown` (by default SIGTERM or SIGINT, listened
    /// for once the arguments are read), drains, and returns the exit code; `listening` is
    /// told the address once the server listens.
    static func serve(
        _ arguments: [String], context: CommandContext, shutdown given: ShutdownSignal? = nil,
        listening: (@Sendable (ListenAddress) -> Void)? = nil
    ) async throws -> Int32 {
        let options = CLICommandOptions.serve.options
        let supplied = EnvironmentOptions.supplied(arguments, options: options, environment: context.environment)
        let settings: ServeSettings
        let urlParser: ProcessingURLParser
        do {
            var parser = ArgumentParser(
                try EnvironmentOptions.merge(arguments, options: options, environment: context.environment), declared: options)
            if parser.flag(.help) { context.console.print(help); return ExitCode.success }
            settings = try ServeSettings.parse(&parser, context: context)
            let extra = try parser.positionals()
            guard extra.isEmpty else { throw CLIError.usage("unexpected argument '\(extra[0])': serve takes options only") }
            urlParser = try settings.urlParser()
        } catch let error as CLIError {
            throw EnvironmentOptions.attributed(error, to: supplied)
        }
        // In json mode every line on standard error is a JSON object: the access log's are
        // already; every other message (this command's, the pipeline's warnings, the server's
        // and libmicrohttpd's) is wrapped in one.
        let console = settings.logFormat == .json ? context.console.withJSONErrorLines() : context.console
        let shutdown = given ?? ShutdownSignal()
        defer { if given == nil { shutdown.stop() } }

        let stack = try PipelineStack(
            cache: settings.cache, shared: settings.shared, tls: settings.tls, console: console, concurrency: downloads,
            addressPolicy: settings.connectAddressPolicy)
        defer { stack.close() }
        var serviceConfiguration = ImageService.Configuration(parser: urlParser)
        serviceConfiguration.allowedSourcePrefixes = settings.allowedSources
        serviceConfiguration.allowsPrivateNetwork = settings.allowsPrivateNetwork
        if let maxSourceBytes = settings.maxSourceBytes { serviceConfiguration.maxSourceBytes = maxSourceBytes }
        if let maxSourcePixels = settings.maxSourcePixels { serviceConfiguration.maxSourcePixels = maxSourcePixels }
        if let requestTimeout = settings.requestTimeout { serviceConfiguration.requestTimeout = Double(requestTimeout) }
        serviceConfiguration.autoFormats = settings.autoFormats
        serviceConfiguration.cacheControl = .maxAge(settings.ttl)
        // The stack's configuration, not its pipeline: the service builds its own from it.
        let service = ImageService(configuration: serviceConfiguration, pipeline: stack.configuration)

        var serverConfiguration = ImageServer.Configuration()
        serverConfiguration.listen = settings.listen
        if let workers = settings.workers { serverConfiguration.workers = workers }
        if let maxConnections = settings.maxConnections { serverConfiguration.maxConnections = maxConnections }
        if let perIP = settings.maxConnectionsPerIP { serverConfiguration.maxConnectionsPerIP = perIP }
        if let headerTimeout = settings.headerTimeout { serverConfiguration.headerTimeout = headerTimeout }
        serverConfiguration.accessLog = settings.logFormat
        // The server writes its lines in the log format itself (access lines and its messages).
        let errors = context.console
        serverConfiguration.logSink = { errors.writeError($0 + "\n") }
        let server: ImageServer
        do {
            server = try ImageServer(configuration: serverConfiguration, service: service)
        } catch {
            throw CLIError.failure("\(error)")
        }
        context.console.print("listening on \(server.address)")
        listening?(server.address)
        await shutdown.wait()
        console.error("pictor serve: stopping (requests in flight have \(settings.drainTimeout) s to finish)")
        await server.stop(drainTimeout: Double(settings.drainTimeout))
        // The service loads through a pipeline of its own (built from the stack's
        // configuration): its fleet counters are the ones to record.
        await service.pipeline.recordSharedCacheStatistics()
        return ExitCode.success
    }
}
