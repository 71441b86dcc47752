/// Every option of every command, each declared once. An option that means the same on several
/// commands is one declaration; one that a command describes in its own words is the same
/// declaration ``CLIOption/saying(_:default:)`` those words. Which command takes which is in
/// ``CLICommandOptions``.
extension CLIOption {
    // MARK: Every command

    static let help = CLIOption(["-h", "--help"], "show this help")
    static let topLevelHelp = help.saying("show help (also after any command or subcommand)")
    static let version = CLIOption(["--version"], "show the version")

    // MARK: The image: fetch and prefetch

    static let resize = CLIOption(
        ["--resize"], value: "W|WxH|Wx|xH", grammar: .resizeBox,
        "fit inside a W×W box, a W×H box, W wide, or H high; decoded at that size (shrink-on-load); never upscales")
    static let fit = CLIOption(
        ["--fit"], value: "inside|cover|fill", grammar: .oneOf(ResizeOption.Fit.allCases.map(\.rawValue)),
        "with --resize: keep the aspect ratio inside the box (default), fill it and crop the centre, or stretch to it")
    static let header = CLIOption(
        ["-H", "--header"], value: "'N: V'", grammar: .header, repeatable: true,
        "send this request header with every image request")
    static let noCacheThumbnails = CLIOption(
        ["--no-cache-thumbnails"],
        "with --resize, keep only originals on disk (by default the resized image is kept too, so a warm run with the same --resize decodes nothing)")
    static let strictDecoding = CLIOption(
        ["--strict-decoding"],
        "fail on an animation cut short (by default its complete frames are delivered, frame 0 written, and nothing of it "
            + "is cached, as browsers show it)")
    static let fetchOutput = CLIOption(
        ["-o", "--output"], also: ["--out"], value: "FILE|DIR", "write the image to FILE, or into DIR (--out too)")
    static let previews = CLIOption(
        ["--previews"], value: "DIR",
        "also write the previews made while the image downloads (a progressive JPEG's scans, a baseline JPEG's or a "
            + "PNG's rows so far over grey) into DIR, as PNG, numbered in the order written: <name>-preview-001.png, … (<name> is the image's own file name without its extension); none when the image comes from a cache")
    static let prefetchOutput = CLIOption(
        ["--out"], also: ["-o", "--output"], value: "DIR", "also write each image into DIR (-o, --output too)")
    static let name = CLIOption(
        ["--name"], value: "TEMPLATE", grammar: .nameTemplate,
        "name the files written into the output directory: {stem} (from the URL), {ext}, {w} and {h} (pixels), "
            + "{hash} (12 hex digits of SHA-256 of the URL), {index} (1-based position in the input); e.g. "
            + "'{stem}-{w}x{h}.{ext}'. Default: {stem}-<8\(glue)hex>.{ext}. Without {ext} or an extension, .{ext} is appended. "
            + "When two URLs want one name, the one listed first gets it; the other gets -<8\(glue)hex> added")
    static let format = CLIOption(
        ["--format"], value: "F", grammar: .outputFormat,
        "output format: jpeg, png, webp, avif or gif (default: from FILE's or --name's extension, else the source format, else png)")
    static let prefetchFormat = format.saying(
        "output format for --out: jpeg, png, webp, avif or gif (default: from --name's extension, else the source format, else png)")
    /// `--quality`'s default: the CLI's own, not the library's `VipsEncoder.defaultQuality`.
    static let defaultQuality = 85
    static let quality = CLIOption(
        ["--quality"], value: "Q", grammar: .integer(1...100), default: "\(defaultQuality)", "1...100 for lossy formats")
    static let prefetchQuality = quality.saying("1...100 for lossy output")

    // MARK: The run: fetch and prefetch

    static let concurrency = CLIOption(
        ["--concurrency"], value: "N", grammar: .integer(1...256),
        "downloads at once (connections), 1...256 (default 6, the SDWebImage default); decoding uses every core; "
            + "with --data-only, as many more images wait queued, so a connection that frees starts the next download at once")
    static let dataOnly = CLIOption(
        ["--data-only"],
        "fetch the bytes into the disk cache without decoding; the format is checked from the bytes, but a corrupt image "
            + "is only found (and removed) when it is first decoded")
    static let report = CLIOption(
        ["--report"], value: "FILE",
        "write one TSV line per URL as it finishes (with --name, in input order): url, status, layer, width, height, "
            + "bytes, ms, output (the file's path, as --json gives it), output bytes, error, index, revalidated, "
            + "stale on arrival, coalesced, ms from the run's start")
    static let json = CLIOption(
        ["--json"],
        #"JSON Lines on standard output: one {"type":"image",…} per image, then one {"type":"summary",…} (schema in the README)"#)
    static let prefetchJSON = json.saying(
        #"JSON Lines on standard output: one {"type":"image",…} per image as it finishes (with --name, in input order), "#
            + #"then one {"type":"summary",…} (schema in the README)"#)
    static let quiet = CLIOption(
        ["-q", "--quiet"], "no line for an image that worked (failures still go to standard error; --json is unchanged)")
    static let prefetchQuiet = quiet.saying("no progress")

    // MARK: TLS: fetch, prefetch (all four) and serve (the CAs)

    static let caFile = CLIOption(
        ["--ca-file"], value: "FILE",
        "trust the certificate authorities in this PEM file instead of the system's bundle (the system's directory is "
            + "still searched unless --ca-path is given). Without --ca-file and --ca-path, $CURL_CA_BUNDLE is this file, "
            + "else $SSL_CERT_FILE is and $SSL_CERT_DIR is --ca-path, as curl reads them")
    static let caPath = CLIOption(
        ["--ca-path"], value: "DIR",
        "trust the certificate authorities in this directory, hashed by 'openssl rehash DIR' (or c_rehash), instead of "
            + "the system's directory (default $SSL_CERT_DIR; see --ca-file)")
    static let clientCertificate = CLIOption(
        ["--cert"], value: "FILE",
        "send this PEM client certificate to HTTPS servers that ask for one (mutual TLS), as curl does; FILE may hold "
            + "its key too")
    static let clientKey = CLIOption(
        ["--key"], value: "FILE", "the PEM private key of --cert, unencrypted (default: read from --cert's FILE)")

    // MARK: The caches

    static let cacheDirectory = CLIOption(
        ["--cache-dir"], value: "DIR", default: "$XDG_CACHE_HOME/pictor, else ~/.cache/pictor", "the disk cache directory")
    static let keyFile = CLIOption(
        ["--key-file"], value: "FILE",
        "encrypt the disk cache with the 256-bit key in FILE (mode 0600; see 'pictor cache key generate')")
    static let cachePolicy = CLIOption(
        ["--cache-policy"], value: "P", grammar: .oneOf(["http", "ignore-headers"]),
        "http (default): honour Cache-Control, Expires and validators, keeping responses that send neither freshness "
            + "nor validators for the cache's max age (7 days); ignore-headers: keep and serve everything until evicted")
    static let cacheKeyIgnoreQuery = CLIOption(
        ["--cache-key-ignore-query"], value: "NAME", repeatable: true,
        "leave the query parameter NAME out of the cache key, so that URLs that differ only in it (a presigned URL's "
            + "X-Amz-Signature, Expires) share cached images; each request still sends its whole URL. A trailing * "
            + "matches the names it starts ('X-Amz-*'); names are case-sensitive and compared percent-decoded")
    /// `--size-limit`'s default, in words (``CacheSizeLimit/defaultLimit(available:cached:)``).
    static let defaultSizeLimit =
        "10\(glue)% of the free space on the cache's file system plus what the cache holds, kept within 1\(glue)GiB...16\(glue)GiB"
    static let sizeLimit = CLIOption(
        ["--size-limit"], value: "BYTES", grammar: .bytes, default: defaultSizeLimit,
        "the disk cache's size limit for this run, e.g. 500M or 1.5GiB; 'pictor cache stats' shows the limit and where it came from")
    static let maxAge = CLIOption(
        ["--max-age"], value: "AGE", grammar: .duration, default: "7d",
        "drop disk entries unused for longer (before the run, and while it lasts), e.g. 7d, 12h, 90m")
    static let noCache = CLIOption(["--no-cache"], "use no disk cache (memory only)")
    static let offline = CLIOption(
        ["--offline"],
        "never use the network: serve each http(s) image from the caches (disk, then --shared-cache), fresh or stale; "
            + "a URL with no cached entry fails as not cached, and when every failure is one the exit code is 69. "
            + "file: and data: URLs are read as usual")
    static let sharedCache = CLIOption(
        ["--shared-cache"], value: "URL", grammar: .redisURL,
        "share originals with other processes through Redis (default $PICTOR_SHARED_CACHE): "
            + "redis://[[user]:password@]host[:port][/db] [?command_timeout=200ms&connect_timeout=50ms], "
            + "or a Redis Cluster's seeds redis://h1:p1,h2:p2; sealed with --key-file's key when given. "
            + "Redis trouble never fails a load")

    // MARK: The image service: serve

    static let listen = CLIOption(
        ["--listen"], value: "HOST:PORT", default: "127.0.0.1:8080",
        "where to listen: HOST:PORT, [IPV6]:PORT, :PORT (every IPv4 interface) or unix:PATH (a Unix socket); port 0 picks a free one")
    static let workers = CLIOption(
        ["--workers"], value: "N", grammar: .integer(1...256), default: "the number of cores",
        "threads that read requests and write responses; they never wait for image work, which runs on Swift's task pool")
    static let signingKey = CLIOption(
        ["--key"], value: "HEX", repeatable: true,
        "a URL signing key in hex (imgproxy's IMGPROXY_KEY), paired by position with a --salt; several pairs are all "
            + "accepted, for key rotation")
    static let signingSalt = CLIOption(
        ["--salt"], value: "HEX", repeatable: true, "the salt in hex of the --key in the same position (imgproxy's IMGPROXY_SALT)")
    static let insecureUnsigned = CLIOption(
        ["--insecure-unsigned"],
        "serve unsigned URLs (any first segment, e.g. /insecure/…): without it, --key and --salt are required")
    static let allowSource = CLIOption(
        ["--allow-source"], value: "PREFIX", repeatable: true,
        "fetch only sources whose URL starts with PREFIX, e.g. https://img.example/ (default: any http or https source; "
            + "file: and data: never)")
    static let allowPrivateNetwork = CLIOption(
        ["--allow-private-network"],
        "also fetch sources on loopback, private, link-local, multicast and other non-public addresses, and localhost: "
            + "without it, such an address is refused (403) whether the URL names it, its host name resolves to it "
            + "(checked as each connection opens), or a redirect leads to it")
    static let maxSourceBytes = CLIOption(
        ["--max-src-bytes"], value: "BYTES", grammar: .bytes, default: "50\(glue)MiB",
        "refuse a source larger than this (422), e.g. 10M: the download stops as soon as its Content-Length, or the "
            + "bytes received, pass it")
    static let ttl = CLIOption(
        ["--ttl"], value: "SECONDS", grammar: .integer(0...Int(Int32.max)), default: "31536000",
        "images are sent with Cache-Control: public, max-age=SECONDS")
    static let maxSourcePixels = CLIOption(
        ["--max-src-pixels"], value: "N", grammar: .integer(1...Int.max), default: "50000000",
        "refuse a source of more pixels than this (422), width × height of one frame, read from its header before "
            + "anything is decoded")
    static let autoFormat = CLIOption(
        ["--auto-format"], value: "LIST", default: "none",
        "formats chosen from the request's Accept when the path names none, in order of preference, e.g. avif,webp: "
            + "the first one Accept names explicitly is sent (with Vary: Accept), else the source's format")
    static let presets = CLIOption(
        ["--presets"], value: "FILE",
        "named presets, one name=options a line (imgproxy's IMGPROXY_PRESETS_PATH format, e.g. thumb=rs:fill:200:200/q:70), "
            + "used with pr:NAME; a preset named default applies to every request. Checked at start-up")
    static let presetsOnly = CLIOption(
        ["--presets-only"],
        "the options segment of a path is a ':'-separated list of --presets names (/SIG/thumb:sharp/plain/…), and no "
            + "other option can be written in a path")
    static let requestTimeout = CLIOption(
        ["--request-timeout"], value: "SECONDS", grammar: .integer(1...3600), default: "30",
        "answer 504 to an image request not answered within SECONDS of its arrival (its work goes on only while other "
            + "requests wait for the same result)")
    static let maxConnections = CLIOption(
        ["--max-connections"], value: "N", grammar: .integer(1...65536), default: "1024",
        "the most connections open at once; one more waits in the kernel's queue until another closes")
    static let maxConnectionsPerIP = CLIOption(
        ["--max-connections-per-ip"], value: "N", grammar: .integer(1...65536), default: "128",
        "the most connections open at once from one client address; one more is closed at once. Behind a proxy on this "
            + "machine every connection comes from its address: raise it, or listen on a Unix socket (not counted)")
    static let headerTimeout = CLIOption(
        ["--header-timeout"], value: "SECONDS", grammar: .integer(1...3600), default: "10",
        "close a connection that has not sent a complete request (head and any body) within SECONDS of opening or of "
            + "its previous response (clients that trickle their header or body, slowloris; idle keep-alive connections)")
    static let drainTimeout = CLIOption(
        ["--drain-timeout"], value: "SECONDS", grammar: .integer(0...3600), default: "10",
        "on SIGTERM or SIGINT, close the listening socket (new connections are refused; a new request on an open "
            + "keep-alive connection gets 503), let the requests in flight finish for up to SECONDS, answer those still "
            + "unfinished 503, then exit 0")
    static let logFormat = CLIOption(
        ["--log-format"], value: "F", grammar: .oneOf(["text", "json"]), default: "text",
        "standard error's format: text, or json (one JSON object a line: the access log, one line per request, and "
            + "every other message)")

    // MARK: The cache subcommands' own

    static let limit = CLIOption(
        ["--limit"], value: "N", grammar: .integer(1...Int.max), default: "all", "list at most N entries")
    static let trimSizeLimit = sizeLimit.saying("trim down to this size, e.g. 500M or 1.5GiB")
    static let statsSizeLimit = sizeLimit.saying("the size limit to show, as a run given this --size-limit uses it, e.g. 500M or 1.5GiB")
    static let trimMaxAge = maxAge.saying("remove entries unused for longer, e.g. 7d, 12h, 90m")
    static let force = CLIOption(
        ["--force"],
        "also clear a cache encrypted under a key you no longer have: its entries are discarded, and it is reset to "
            + "--key-file's key, or to plain without one")
    static let originalOnly = CLIOption(
        ["--original-only"],
        "remove only the downloaded original (and, with --resize, that resized copy), keeping the variants made from it")
    static let newKeyFile = CLIOption(
        ["--new-key-file"], value: "FILE", "the new key (see 'pictor cache key generate')")
    static let keyOutput = CLIOption(["-o", "--out"], value: "FILE", "the key file to create")
}
