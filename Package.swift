// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Roqua",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "RoquaBoundaries", targets: ["RoquaBoundaries"]),
        .library(name: "RoquaRegions", targets: ["RoquaRegions"]),
        .library(name: "RoquaProgress", targets: ["RoquaProgress"]),
        .library(name: "RoquaMaps", targets: ["RoquaMaps"]),
        .executable(name: "roqua", targets: ["roqua"]),
        .library(name: "RoquaChatCore", targets: ["RoquaChatCore"]),
        .library(name: "RoquaChatServer", targets: ["RoquaChatServer"]),
        .library(name: "RoquaChatPostgres", targets: ["RoquaChatPostgres"]),
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
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
    ],
    targets: [
        // Thin C shims: only the wrapper files in RoquaBoundaries/CInterop import them.
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CShapelib", pkgConfig: "shapelib", providers: [.apt(["libshp-dev"])]),
        .target(
            name: "RoquaBoundaries",
            dependencies: ["CGEOS", "CShapelib", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "RoquaRegions",
            dependencies: ["RoquaBoundaries", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "RoquaProgress",
            dependencies: ["RoquaBoundaries", "RoquaRegions", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "RoquaMaps",
            dependencies: ["RoquaBoundaries", "RoquaRegions", "RoquaProgress", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .executableTarget(
            name: "roqua",
            dependencies: ["RoquaBoundaries", "RoquaRegions", "RoquaProgress", "RoquaMaps",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Benchmarks live apart from tests: `swift run -c release roqua-bench --help`.
        .executableTarget(
            name: "roqua-bench",
            dependencies: ["RoquaBoundaries", "RoquaRegions", "RoquaProgress", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Benchmarks/RoquaBench"
        ),
        .target(
            name: "RoquaTestSupport",
            dependencies: ["RoquaBoundaries", "CShapelib", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/RoquaTestSupport"
        ),
        .testTarget(
            name: "RoquaBoundariesTests",
            dependencies: ["RoquaBoundaries", "RoquaTestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "RoquaProgressTests",
            dependencies: ["RoquaProgress", "RoquaRegions", "RoquaBoundaries", "RoquaTestSupport",
                           .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "RoquaMapsTests",
            dependencies: ["RoquaMaps", "RoquaProgress", "RoquaRegions", "RoquaBoundaries", "RoquaTestSupport",
                           .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "RoquaRegionsTests",
            dependencies: ["RoquaRegions", "RoquaBoundaries", "RoquaTestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // Tour groups: wire types and crypto shared by server and client; the server library; the
        // PostgreSQL store apart so that only what links it pays for postgres-nio; the CLI.
        .target(
            name: "RoquaChatCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "RoquaChatServer",
            dependencies: ["RoquaChatCore",
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
            dependencies: ["RoquaChatServer", "RoquaChatPostgres", "RoquaChatCore",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        // The chat load generator: `scripts/bench-chat.sh` (figures only; never a test).
        .executableTarget(
            name: "roqua-chat-bench",
            dependencies: ["RoquaChatCore",
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio")],
            path: "Benchmarks/RoquaChatBench"
        ),
        .testTarget(
            name: "RoquaChatServerTests",
            dependencies: ["RoquaChatServer", "RoquaChatPostgres", "RoquaChatCore",
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "JWTKit", package: "jwt-kit"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "PostgresNIO", package: "postgres-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "Logging", package: "swift-log")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
