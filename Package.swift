// swift-tools-version:6.0
// Pictor — image loading and caching for Swift on Linux.
// Swift 6 language mode (tools 6.0), strict concurrency, no outside Swift packages.
import PackageDescription

let package = Package(
    name: "Pictor",
    products: [
        // The whole Linux stack with one import: core + disk cache + crypto + libvips + libcurl + Redis tier.
        .library(name: "Pictor", targets: ["Pictor"]),
        // The core with no C dependency: protocols, pipeline, memory cache, URLSession loader.
        .library(name: "PictorCore", targets: ["PictorCore"]),
        .library(name: "PictorDiskCache", targets: ["PictorDiskCache"]),
        .library(name: "PictorCrypto", targets: ["PictorCrypto"]),
        .library(name: "PictorVips", targets: ["PictorVips"]),
        // HTTP(S) on libcurl's multi interface: the fast transport on Linux.
        .library(name: "PictorCurl", targets: ["PictorCurl"]),
        // A Redis client over hiredis (single node and Redis Cluster) for a shared cache tier.
        .library(name: "PictorRedis", targets: ["PictorRedis"]),
        // imgproxy's URL grammar, presets and signatures for an image service; pure Swift.
        .library(name: "PictorService", targets: ["PictorService"]),
        // The image service on a socket: an HTTP/1.1 server over libmicrohttpd.
        .library(name: "PictorServer", targets: ["PictorServer"]),
        .library(name: "PictorTestSupport", targets: ["PictorTestSupport"]),
        .executable(name: "pictor", targets: ["pictor"]),
    ],
    targets: [
        // C libraries from Debian, each imported by exactly one Swift module.
        // libvips' headers only: the library is loaded with dlopen on first use (see
        // CVipsShim/shim.c), so the include paths come from GLib's pkg-config, not libvips'
        // (whose -lvips would load its ~120 libraries into every process at start).
        .systemLibrary(name: "CVips", pkgConfig: "glib-2.0", providers: [.apt(["libvips-dev"])]),
        .target(name: "CVipsShim", dependencies: ["CVips"]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // JPEG previews: libjpeg's buffered-image mode (progressive files) or scanline decoding
        // (baseline files) over a suspending source, in C (libjpeg reports errors with
        // setjmp/longjmp, which Swift cannot do).
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .target(name: "CJPEGShim", dependencies: ["CJPEG"]),
        // The PNG fast path: libspng reads and checks the header chunks and decodes the rarer
        // variants; libdeflate inflates the common 8-bit images (about 1.5× zlib's speed here).
        .systemLibrary(name: "CSpng", pkgConfig: "spng", providers: [.apt(["libspng-dev"])]),
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        // Incremental PNG previews: libpng's progressive reader decodes the rows as the bytes
        // arrive, in C (libpng reports errors with setjmp/longjmp, which Swift cannot do).
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        .target(name: "CPNGShim", dependencies: ["CDeflate", "CPNG"]),
        // The WebP fast path: libwebp decodes still images (with scaled decode for thumbnails)
        // and encodes them; libwebpdemux reads the container as libvips' loader does.
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Also reads the server's certificates through libcurl's OpenSSL (tls_watch.c), for the
        // message of a failed verification; no OpenSSL declaration reaches Swift from here.
        .target(name: "CCurlShim", dependencies: ["CCurl"], linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "CMicroHTTPDShim", dependencies: ["CMicroHTTPD"]),

        // Core: no C dependency.
        .target(name: "PictorCore"),
        // Backends.
        .target(name: "PictorCrypto", dependencies: ["PictorCore", "COpenSSL"]),
        .target(name: "PictorDiskCache", dependencies: ["PictorCore", "PictorCrypto", "CSQLite"]),
        .target(name: "PictorVips", dependencies: ["PictorCore", "CVips", "CVipsShim", "CTurboJPEG", "CJPEGShim", "CSpng", "CPNGShim", "CWebP"]),
        .target(name: "PictorCurl", dependencies: ["PictorCore", "CCurl", "CCurlShim"]),
        .target(name: "PictorRedis", dependencies: ["PictorCore", "PictorCrypto", "CHiredis"]),
        // The image service's request grammar: imports no C module itself.
        .target(name: "PictorService", dependencies: ["PictorCore", "PictorCrypto"]),
        // The image service's HTTP server; the only module that imports libmicrohttpd.
        .target(name: "PictorServer", dependencies: ["PictorService", "PictorCore", "CMicroHTTPD", "CMicroHTTPDShim"]),
        // Umbrella: the default Linux pipeline.
        .target(name: "Pictor", dependencies: ["PictorCore", "PictorCrypto", "PictorDiskCache", "PictorVips", "PictorCurl", "PictorRedis"]),
        // Fakes for tests (ours and users').
        .target(name: "PictorTestSupport", dependencies: ["PictorCore"]),
        // CLI: logic in a library, main.swift only in the executable.
        .target(name: "PictorCLI", dependencies: ["Pictor", "PictorService", "PictorServer"]),
        .executableTarget(name: "pictor", dependencies: ["PictorCLI"]),
        // A child process for the disk cache's crash and two-process tests.
        .executableTarget(name: "DiskCacheCrashWriter", dependencies: ["PictorDiskCache", "PictorCore"], path: "Tests/Helpers/DiskCacheCrashWriter"),
        // libFuzzer targets over every parser of untrusted bytes (docs/fuzzing.md). scripts/fuzz.sh
        // builds it with -sanitize=fuzzer,address; a plain build makes a tool that replays saved
        // inputs through a target (`PictorFuzz TARGET FILE…`).
        .executableTarget(
            name: "PictorFuzz",
            dependencies: ["PictorCore", "PictorCrypto", "PictorVips", "PictorCurl", "PictorRedis", "PictorDiskCache", "PictorService", "PictorServer", "PictorCLI"],
            path: "Fuzz/PictorFuzz"),

        .testTarget(name: "PictorCoreTests", dependencies: ["PictorCore", "PictorTestSupport"]),
        .testTarget(name: "PictorCryptoTests", dependencies: ["PictorCrypto", "PictorCore"]),
        .testTarget(name: "PictorDiskCacheTests", dependencies: ["PictorDiskCache", "PictorCrypto", "PictorCore", "PictorTestSupport"]),
        .testTarget(name: "PictorVipsTests", dependencies: ["PictorVips", "PictorCore", "PictorTestSupport"]),
        .testTarget(name: "PictorCurlTests", dependencies: ["PictorCurl", "PictorCore", "PictorTestSupport"]),
        .testTarget(name: "PictorRedisTests", dependencies: ["PictorRedis", "PictorCore", "PictorCrypto", "PictorCurl", "PictorTestSupport"]),
        .testTarget(name: "PictorServiceTests", dependencies: ["PictorService", "PictorCore", "PictorCrypto", "PictorTestSupport"]),
        .testTarget(name: "PictorServerTests", dependencies: ["PictorServer", "PictorService", "Pictor", "PictorTestSupport"]),
        .testTarget(name: "PictorCLITests", dependencies: ["PictorCLI", "Pictor", "PictorServer", "PictorService", "PictorTestSupport"]),
        .testTarget(name: "PictorIntegrationTests", dependencies: ["Pictor", "PictorTestSupport"]),
    ]
)
