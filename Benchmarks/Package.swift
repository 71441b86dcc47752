// swift-tools-version:6.0
// Pictor's benchmark suite: every speed target measured side by side with its reference in the
// same run. A sibling package so that the library itself keeps an empty dependency list.
// Run it with `scripts/bench.sh` (release build, rewrites docs/benchmarks.md) or
// `swift run -c release PictorBenchmarks --quick`.
import PackageDescription

let package = Package(
    name: "PictorBenchmarks",
    dependencies: [
        .package(name: "Pictor", path: "../"),
    ],
    targets: [
        // libvips (pkg-config vips) for the in-process thumbnail reference.
        .systemLibrary(name: "CVipsBench", pkgConfig: "vips"),
        // References written in C: POSIX read, write + rename, stat, libcrypto AES-256-GCM and
        // SHA-256, libvips thumbnail and libjpeg-turbo decode.
        .target(name: "CBenchReference", dependencies: ["CVipsBench"],
                linkerSettings: [.linkedLibrary("crypto"), .linkedLibrary("turbojpeg")]),
        // The download rows' floor (N2-floor): libcurl's multi interface and one copy of each
        // body, in C, run as its own process like curl and pictor.
        .executableTarget(name: "curl-multi-floor", linkerSettings: [.linkedLibrary("curl")]),
        .executableTarget(
            name: "PictorBenchmarks",
            dependencies: [
                "CBenchReference",
                .product(name: "Pictor", package: "Pictor"),
                .product(name: "PictorCore", package: "Pictor"),
                .product(name: "PictorCrypto", package: "Pictor"),
                .product(name: "PictorDiskCache", package: "Pictor"),
                .product(name: "PictorVips", package: "Pictor"),
                // RedisServer / RedisCluster for the fleet rows (Network/FleetBenchmarks.swift).
                .product(name: "PictorTestSupport", package: "Pictor"),
            ]
        ),
    ]
)
