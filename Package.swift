// swift-tools-version: 6.0
import PackageDescription

// The folder tree follows the pipeline: import → boundaries (store, resolver) → regions →
// progress → achievements → maps → the `roqua` command.
let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")

let package = Package(
    name: "Roqua",
    // Linux is what is built and tested; macOS 15 is the floor `Synchronization.Mutex` sets.
    platforms: [.macOS(.v15)],
    products: [
        // The run-time resolver: what an app embedding Roqua links (no shapelib).
        .library(name: "RoquaBoundaries", targets: ["RoquaBoundaries"]),
        // Building a boundary database from shapefiles.
        .library(name: "RoquaImport", targets: ["RoquaImport"]),
        // The boundaries and answer rules for other spatial tools (PostGIS, GeoPackage, GeoJSON).
        .library(name: "RoquaExport", targets: ["RoquaExport"]),
        .library(name: "RoquaRegions", targets: ["RoquaRegions"]),
        .library(name: "RoquaProgress", targets: ["RoquaProgress"]),
        .library(name: "RoquaAchievements", targets: ["RoquaAchievements"]),
        .library(name: "RoquaMaps", targets: ["RoquaMaps"]),
        .executable(name: "roqua", targets: ["roqua"]),
        // `roqua serve`: its own program, so the plain CLI builds without the HTTP stack.
        .executable(name: "roqua-serve", targets: ["roqua-serve"]),
        .library(name: "RoquaChatCore", targets: ["RoquaChatCore"]),
        .library(name: "RoquaChatServer", targets: ["RoquaChatServer"]),
        .library(name: "RoquaChatPostgres", targets: ["RoquaChatPostgres"]),
        .library(name: "RoquaChatClient", targets: ["RoquaChatClient"]),
        .executable(name: "roqua-chat", targets: ["roqua-chat"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        // Tour groups (roqua-chat): the sync server and its shared core.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/vapor/jwt-kit", exact: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        // Tests only: a throwaway certificate authority for the HTTPS tests.
        .package(url: "https://github.com/apple/swift-certificates", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", exact: "1.7.4"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
        // Hummingbird's own HTTP types and HTTP part types, named by roqua serve's fast path for GET /reverse.
        .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", exact: "1.35.2"),
    ],
    targets: [
        // Thin C shims: only the wrapper files import them.
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CShapelib", pkgConfig: "shapelib", providers: [.apt(["libshp-dev"])]),
        // Coordinate reference systems (users' own boundary layers in any CRS): PROJ, behind
        // RoquaProjection only.
        .systemLibrary(name: "CProj", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),
        .target(name: "RoquaProjection", dependencies: ["CProj"]),
        .testTarget(name: "RoquaProjectionTests", dependencies: ["RoquaProjection"]),
        // Streaming readers and writers shared by every module that reads outside input.
        .target(name: "RoquaIO", dependencies: ["CZlib", "CZip", .product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "RoquaBoundaries", dependencies: ["CGEOS", "RoquaIO", grdb]),
        .target(name: "RoquaImport", dependencies: ["RoquaBoundaries", "RoquaIO", "RoquaProjection", "CShapelib", grdb]),
        .target(name: "RoquaExport", dependencies: ["RoquaBoundaries", "RoquaIO", grdb]),
        .target(name: "RoquaRegions", dependencies: ["RoquaBoundaries", "RoquaIO", grdb]),
        .target(name: "RoquaProgress", dependencies: ["RoquaBoundaries", "RoquaRegions"]),
        .target(
            name: "RoquaAchievements",
            dependencies: ["RoquaBoundaries", "RoquaRegions", "RoquaProgress", "RoquaIO", grdb],
            resources: [.embedInCode("achievements.json")]
        ),
        .target(
            name: "RoquaMaps",
            dependencies: ["RoquaBoundaries", "RoquaRegions", "RoquaProgress", "RoquaAchievements", "RoquaIO", grdb]
        ),
        .executableTarget(
            name: "roqua",
            dependencies: ["RoquaBoundaries", "RoquaImport", "RoquaExport", "RoquaRegions", "RoquaProgress", "RoquaAchievements",
                           "RoquaMaps", "RoquaIO", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Every parser of outside input under libFuzzer (scripts/fuzz.sh); built normally, it replays inputs.
        .executableTarget(
            name: "roqua-fuzz",
            dependencies: ["RoquaBoundaries", "RoquaImport", "RoquaRegions", "RoquaAchievements", "RoquaIO", "RoquaServeInput",
                           "RoquaChatCore", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Benchmarks live apart from tests: `swift run -c release roqua-bench --help`.
        .executableTarget(
            name: "roqua-bench",
            dependencies: ["RoquaBoundaries", "RoquaImport", "RoquaRegions", "RoquaProgress", "RoquaIO", grdb],
            path: "Benchmarks/RoquaBench"
        ),
        .target(
            name: "RoquaTestSupport",
            dependencies: ["RoquaBoundaries", "RoquaImport", "RoquaIO", "RoquaRegions", "RoquaMaps", "CShapelib", grdb],
            path: "Tests/RoquaTestSupport"
        ),
        .testTarget(name: "RoquaIOTests", dependencies: ["RoquaIO", "RoquaTestSupport"]),
        .testTarget(name: "RoquaBoundariesTests", dependencies: ["RoquaBoundaries", "RoquaImport", "RoquaIO", "RoquaTestSupport", grdb]),
        .testTarget(name: "RoquaImportTests", dependencies: ["RoquaImport", "RoquaBoundaries", "RoquaIO", "RoquaTestSupport", grdb]),
        .testTarget(name: "RoquaExportTests", dependencies: ["RoquaExport", "RoquaBoundaries", "RoquaIO", "RoquaTestSupport", grdb]),
        .testTarget(name: "RoquaRegionsTests", dependencies: ["RoquaRegions", "RoquaBoundaries", "RoquaImport", "RoquaIO", "RoquaTestSupport", grdb]),
        .testTarget(name: "RoquaProgressTests", dependencies: ["RoquaProgress", "RoquaRegions", "RoquaBoundaries", "RoquaTestSupport"]),
        .testTarget(
            name: "RoquaAchievementsTests",
            dependencies: ["RoquaAchievements", "RoquaProgress", "RoquaRegions", "RoquaBoundaries", "RoquaTestSupport", grdb]
        ),
        .testTarget(
            name: "RoquaMapsTests",
            dependencies: ["RoquaMaps", "RoquaAchievements", "RoquaProgress", "RoquaRegions", "RoquaBoundaries", "RoquaTestSupport"]
        ),
        // End-to-end tests of the built `roqua` binary, as swift-argument-parser keeps them.
        .testTarget(
            name: "RoquaCLITests",
            dependencies: ["RoquaTestSupport", "RoquaBoundaries", "RoquaRegions", "RoquaAchievements", "RoquaIO", grdb,
                           .product(name: "X509", package: "swift-certificates"),
                           .product(name: "SwiftASN1", package: "swift-asn1"),
                           .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Containers of track files (`.gz`, `.zip`, `.kmz`): zlib and libzip, read through RoquaIO only.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        // QR codes for setting up phones (`roqua serve device add --qr`, the browser app).
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .target(name: "RoquaQR", dependencies: ["CQRencode"]),
        // Tour groups: wire types and crypto shared by server and client; the server library; the
        // PostgreSQL store apart so that only what links it pays for postgres-nio; the CLI.
        .target(
            name: "RoquaChatCore",
            dependencies: ["RoquaIO", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // A connection's time limits (head deadline, minimum body rate, request deadline), shared
        // by `roqua serve` and the tour-group server.
        .target(
            name: "RoquaHTTPGuard",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdCore", package: "hummingbird"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        .target(
            name: "RoquaChatServer",
            dependencies: ["RoquaChatCore", "RoquaIO", "RoquaHTTPGuard",
                           .product(name: "HummingbirdCore", package: "hummingbird"),
                           .product(name: "HummingbirdTLS", package: "hummingbird"),
                           .product(name: "NIOSSL", package: "swift-nio-ssl"),
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "JWTKit", package: "jwt-kit"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        .target(
            name: "RoquaChatPostgres",
            dependencies: ["RoquaChatServer", "RoquaChatCore",
                           .product(name: "PostgresNIO", package: "postgres-nio"),
                           .product(name: "NIOSSL", package: "swift-nio-ssl"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        .executableTarget(
            name: "roqua-chat",
            dependencies: ["RoquaChatServer", "RoquaChatPostgres", "RoquaChatCore", "RoquaChatClient", "RoquaBoundaries", "RoquaIO",
                           "RoquaHTTPGuard",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        // The device side: local store, end-to-end encryption, the sync engine.
        .target(
            name: "RoquaChatClient",
            dependencies: ["RoquaChatCore", "RoquaIO", grdb,
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "NIOSSL", package: "swift-nio-ssl"),
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOExtras", package: "swift-nio-extras"),
                           .product(name: "NIOHTTP1", package: "swift-nio")]
        ),
        .testTarget(
            name: "RoquaChatClientTests",
            dependencies: ["RoquaChatClient", "RoquaChatServer", "RoquaChatCore", grdb,
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        // The chat load generator: `scripts/bench-chat.sh` (figures only; never a test).
        .executableTarget(
            name: "roqua-chat-bench",
            dependencies: ["RoquaChatCore", .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio")],
            path: "Benchmarks/RoquaChatBench"
        ),
        .testTarget(
            name: "RoquaChatServerTests",
            dependencies: ["RoquaChatServer", "RoquaChatPostgres", "RoquaChatCore", "RoquaTestSupport", "RoquaHTTPGuard", grdb,
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "JWTKit", package: "jwt-kit"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "PostgresNIO", package: "postgres-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "Logging", package: "swift-log")]
        ),
        // `roqua serve`: the exploration page and a Nominatim-compatible API over HTTP (Hummingbird).
        // Request parsing of `roqua serve` without the HTTP stack, so the fuzzer links it alone.
        .target(name: "RoquaServeInput", dependencies: ["RoquaBoundaries", "RoquaIO"]),
        .target(
            name: "RoquaServer",
            dependencies: ["RoquaBoundaries", "RoquaRegions", "RoquaProgress", "RoquaAchievements", "RoquaMaps", "RoquaIO",
                           "RoquaServeInput", "RoquaHTTPGuard", "RoquaQR", grdb,
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdCore", package: "hummingbird"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                           .product(name: "Logging", package: "swift-log")],
            resources: [.embedInCode("Web/index.html"), .embedInCode("Web/app.js"), .embedInCode("Web/app.css"),
                        .embedInCode("Web/login.html")]
        ),
        .executableTarget(
            name: "roqua-serve",
            dependencies: ["RoquaServer", "RoquaServeInput", "RoquaQR", "RoquaBoundaries", "RoquaRegions",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(
            name: "RoquaServerTests",
            dependencies: ["RoquaServer", "RoquaServeInput", "RoquaTestSupport", "RoquaBoundaries", "RoquaRegions", "RoquaIO",
                           "RoquaHTTPGuard", "RoquaQR", grdb,
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
