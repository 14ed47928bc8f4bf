// swift-tools-version: 6.0
import PackageDescription

// The folder tree follows the pipeline: import → boundaries (store, resolver) → regions →
// progress → achievements → maps → the `roqua` command.
let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")
// No target has unsafe flags: SwiftPM refuses a package whose products reach one as a
// dependency by version (scripts/checks/embed-test.sh builds Roqua so). The parsers keep the
// run-time exclusivity checks off their hot loops by their own structure (JSONPlainValue).

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
        // What the tour-group package (chat/) shares with the geocoder: files written privately and
        // atomically, a server connection's time limits. (Test and fuzzing helpers are the TestKit
        // package's, not products of this one.)
        .library(name: "RoquaIO", targets: ["RoquaIO"]),
        .library(name: "RoquaHTTPGuard", targets: ["RoquaHTTPGuard"]),
        // How every program ends on an error (`error: …`, ArgumentParser's statuses).
        .library(name: "RoquaCommandLine", targets: ["RoquaCommandLine"]),
        // QR codes by libqrencode: `roqua-chat verify --qr` prints a safety number as one.
        .library(name: "RoquaQR", targets: ["RoquaQR"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        // `roqua serve`: Hummingbird over SwiftNIO.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        // Hashing (SHA-256 of imported files, launch tokens).
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        // Hummingbird's own HTTP types and HTTP part types, named by roqua serve's fast path for GET /reverse.
        .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", exact: "1.35.2"),
        // A binary heap: the end of a big import merges its map's spilled runs by one.
        .package(url: "https://github.com/apple/swift-collections", exact: "1.6.0"),
        // Test and fuzzing helpers (shared with chat/). Used only by targets that are no products,
        // so an app depending on Roqua by version never resolves this local path.
        .package(path: "TestKit"),
    ],
    targets: [
        // Thin C shims: only the wrapper files import them.
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CShapelib", pkgConfig: "shapelib", providers: [.apt(["libshp-dev"])]),
        // PROJ and libzip, loaded by the commands that use them rather than linked (the shim says
        // why): proj.h and zip.h from libproj-dev and libzip-dev at build time, no link flags.
        .systemLibrary(name: "CLoaded"),
        // Coordinate reference systems (users' own boundary layers in any CRS): PROJ, behind
        // RoquaProjection only.
        .target(name: "RoquaProjection", dependencies: ["CLoaded"]),
        .testTarget(name: "RoquaProjectionTests", dependencies: ["RoquaProjection"]),
        // Streaming readers and writers shared by every module that reads outside input.
        .target(name: "RoquaIO", dependencies: ["RoquaText", "CZlib", "CLoaded", .product(name: "Crypto", package: "swift-crypto")]),
        // JSON/XML text escaping: all the resolver needs of the readers' helpers.
        .target(name: "RoquaText"),
        // The resolver needs only GEOS, SQLite (GRDB) and text escaping: what an app embedding it links.
        .target(name: "RoquaBoundaries", dependencies: ["CGEOS", "RoquaText", grdb]),
        // `roqua resolve --input`: millions of rows through the resolver, streamed in order on several workers.
        .target(name: "RoquaBatch", dependencies: ["RoquaBoundaries", "RoquaIO"]),
        .target(
            name: "RoquaImport",
            dependencies: [
                "RoquaBoundaries", "RoquaIO", "RoquaProjection", "CShapelib", grdb,
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        .target(name: "RoquaExport", dependencies: ["RoquaBoundaries", "RoquaIO", grdb]),
        .target(
            name: "RoquaRegions",
            dependencies: [
                "RoquaBoundaries", "RoquaIO", "RoquaTimeline", "RoquaPhotos", "RoquaTiles", grdb,
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]),
        // The timeline engine: fixes to stays, moves, places and trips. Pure functions, no dependencies.
        .target(name: "RoquaTimeline"),
        .target(name: "RoquaProgress", dependencies: ["RoquaBoundaries", "RoquaRegions", "RoquaIO", "RoquaTimeline"]),
        .target(
            name: "RoquaAchievements",
            dependencies: ["RoquaBoundaries", "RoquaRegions", "RoquaProgress", "RoquaIO", grdb],
            resources: [.embedInCode("achievements.json")]
        ),
        .target(
            name: "RoquaMaps",
            dependencies: ["RoquaBoundaries", "RoquaRegions", "RoquaProgress", "RoquaAchievements", "RoquaIO"]
        ),
        .executableTarget(
            name: "roqua",
            dependencies: [
                "RoquaBoundaries", "RoquaBatch", "RoquaImport", "RoquaExport", "RoquaRegions", "RoquaProgress",
                "RoquaAchievements", "RoquaMaps", "RoquaIO", "RoquaCommandLine", "RoquaCommandOptions", "RoquaTimeline", "CLoaded",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Every parser of outside input under libFuzzer (scripts/checks/fuzz.sh); built normally, it replays inputs.
        .executableTarget(
            name: "roqua-fuzz",
            dependencies: [
                "RoquaBoundaries", "RoquaBatch", "RoquaImport", "RoquaRegions", "RoquaAchievements", "RoquaIO",
                "RoquaProgress", "RoquaProjection", "RoquaServeInput", "RoquaPhotos", "RoquaTiles",
                .product(name: "RoquaFuzzing", package: "TestKit"),
            ]
        ),
        // Benchmarks live apart from tests: `swift run -c release roqua-bench --help`.
        .executableTarget(
            name: "roqua-bench",
            dependencies: ["RoquaBoundaries", "RoquaImport", "RoquaRegions", "RoquaProgress", "RoquaIO", grdb],
            path: "Benchmarks/RoquaBench"
        ),
        .target(
            name: "RoquaTestSupport",
            dependencies: [
                .product(name: "RoquaTestKit", package: "TestKit"), "RoquaBoundaries", "RoquaImport", "RoquaIO", "RoquaRegions",
                "RoquaMaps", "CShapelib", grdb,
            ],
            path: "Tests/RoquaTestSupport"
        ),
        .testTarget(name: "RoquaIOTests", dependencies: ["RoquaIO", "CZlib", "RoquaTestSupport"]),
        .testTarget(name: "RoquaTimelineTests", dependencies: ["RoquaTimeline"]),
        .testTarget(
            name: "RoquaBoundariesTests",
            dependencies: ["RoquaBoundaries", "RoquaBatch", "RoquaImport", "RoquaIO", "RoquaTestSupport", grdb]),
        .testTarget(name: "RoquaImportTests", dependencies: ["RoquaImport", "RoquaBoundaries", "RoquaIO", "RoquaTestSupport", grdb]),
        .testTarget(name: "RoquaExportTests", dependencies: ["RoquaExport", "RoquaBoundaries", "RoquaIO", "RoquaTestSupport", grdb]),
        .testTarget(
            name: "RoquaRegionsTests",
            dependencies: ["RoquaRegions", "RoquaBoundaries", "RoquaImport", "RoquaIO", "RoquaTestSupport", grdb]),
        .testTarget(
            name: "RoquaProgressTests", dependencies: ["RoquaProgress", "RoquaRegions", "RoquaBoundaries", "RoquaTestSupport", grdb]),
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
            dependencies: [
                "RoquaTestSupport", "RoquaBoundaries", "RoquaBatch", "RoquaRegions", "RoquaAchievements", "RoquaIO", grdb,
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Containers of track files (`.gz`, `.zip`, `.kmz`): zlib and libzip, read through RoquaIO only.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Photos as history: a photo's position and time, read from its metadata only (JPEG, HEIF/AVIF,
        // PNG, Takeout sidecars); EXIF values decoded by libexif behind thin readers of the containers.
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .target(name: "RoquaPhotos", dependencies: ["CExif", "CJPEG", "CLoaded", "CPNG", "RoquaIO"]),
        .testTarget(name: "RoquaPhotosTests", dependencies: ["RoquaPhotos", "RoquaIO", "RoquaTestSupport"], exclude: ["Fixtures"]),
        // The lifetime map: heat and lines of every kept fix, as a pyramid of count tiles kept at
        // import and drawn as PNG tiles (zlib).
        .target(name: "RoquaTiles", dependencies: ["CZlib", "RoquaIO"]),
        .testTarget(name: "RoquaTilesTests", dependencies: ["RoquaTiles", "CZlib", "RoquaTestSupport"]),
        // QR codes for setting up phones (`roqua serve device add --qr`, the browser app).
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .target(name: "RoquaQR", dependencies: ["CQRencode"]),
        // A connection's time limits (head deadline, minimum body rate, request deadline), shared
        // by `roqua serve` and the tour-group server.
        .target(
            name: "RoquaHTTPGuard",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // `roqua serve`: the exploration page and a Nominatim-compatible API over HTTP (Hummingbird).
        // Request parsing of `roqua serve` without the HTTP stack, so the fuzzer links it alone.
        .target(name: "RoquaServeInput", dependencies: ["RoquaBoundaries", "RoquaIO"]),
        .target(
            name: "RoquaServer",
            dependencies: [
                "RoquaBoundaries", "RoquaRegions", "RoquaProgress", "RoquaAchievements", "RoquaMaps", "RoquaIO",
                "RoquaServeInput", "RoquaHTTPGuard", "RoquaQR",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [
                .embedInCode("Web/index.html"), .embedInCode("Web/app.js"), .embedInCode("Web/app.css"),
                .embedInCode("Web/login.html"),
            ]
        ),
        .executableTarget(
            name: "roqua-serve",
            dependencies: [
                "RoquaServer", "RoquaServeInput", "RoquaQR", "RoquaBoundaries", "RoquaRegions", "RoquaCommandLine",
                "RoquaCommandOptions", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "RoquaCommandLine",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The options `roqua` and `roqua-serve` share (`--store`, `--boundaries`, `--achievements`),
        // declared once. Apart from RoquaCommandLine, which the tour-group programs link without
        // the store, progress and achievement modules these options open.
        .target(
            name: "RoquaCommandOptions",
            dependencies: [
                "RoquaCommandLine", "RoquaBoundaries", "RoquaRegions", "RoquaProgress", "RoquaAchievements", "RoquaIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "RoquaServerTests",
            dependencies: [
                "RoquaServer", "RoquaServeInput", "RoquaTestSupport", "RoquaBoundaries", "RoquaRegions", "RoquaIO",
                "RoquaHTTPGuard", "RoquaQR", grdb,
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
