// swift-tools-version: 6.0
import PackageDescription

// Tour groups: offline-first, end-to-end encrypted messaging for a guide and travellers.
// RoquaChatCore (wire types, end-to-end crypto, the signed group log) is shared by the sync
// server (RoquaChatServer, with its PostgreSQL store apart in RoquaChatPostgres) and the device
// client (RoquaChatClient). Programs: `roqua-chat-server` and `roqua-chat`.
//
// From the geocoder package (the folder above) it takes only what it shares rather than copies:
// the offline address of a shared location (RoquaBoundaries), a safety number as a QR code
// (RoquaQR, in `roqua-chat` only), private and atomic files (RoquaIO),
// a connection's time limits (RoquaHTTPGuard); the fuzzing harness and test helpers come from the
// TestKit package beside it; its tests build the bundled boundary database with the geocoder's
// importer (RoquaImport).
let roqua = "Roqua"

let package = Package(
    name: "RoquaChat",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "roqua-chat-server", targets: ["roqua-chat-server"]),
        .executable(name: "roqua-chat", targets: ["roqua-chat"]),
    ],
    dependencies: [
        .package(name: roqua, path: ".."),
        // Test and fuzzing helpers, shared with the geocoder's tests (no products of Roqua's).
        .package(path: "../TestKit"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/vapor/jwt-kit", exact: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", exact: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        // Tests only: a throwaway certificate authority for the HTTPS tests.
        .package(url: "https://github.com/apple/swift-certificates", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", exact: "1.7.4"),
    ],
    targets: [
        .target(
            name: "RoquaChatCore",
            dependencies: [.product(name: "RoquaIO", package: roqua), .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "RoquaChatServer",
            dependencies: [
                "RoquaChatCore",
                .product(name: "RoquaIO", package: roqua),
                .product(name: "RoquaHTTPGuard", package: roqua),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The PostgreSQL store apart, so that only what links it pays for postgres-nio.
        .target(
            name: "RoquaChatPostgres",
            dependencies: [
                "RoquaChatServer", "RoquaChatCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The device side: local store, end-to-end encryption, the sync engine, local-network peers.
        .target(
            name: "RoquaChatClient",
            dependencies: [
                "RoquaChatCore",
                .product(name: "RoquaIO", package: roqua),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "roqua-chat-server",
            dependencies: [
                "RoquaChatServer", "RoquaChatPostgres", "RoquaChatCore",
                .product(name: "RoquaCommandLine", package: roqua),
                .product(name: "RoquaHTTPGuard", package: roqua),
                .product(name: "RoquaIO", package: roqua),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "roqua-chat",
            dependencies: [
                "RoquaChatClient", "RoquaChatCore",
                .product(name: "RoquaCommandLine", package: roqua),
                .product(name: "RoquaQR", package: roqua),
                .product(name: "RoquaBoundaries", package: roqua),
                .product(name: "RoquaIO", package: roqua),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What a server or peer sends a device, under libFuzzer (scripts/checks/fuzz.sh --chat); built normally, it replays inputs.
        .executableTarget(
            name: "roqua-chat-fuzz",
            dependencies: [
                "RoquaChatCore", .product(name: "RoquaFuzzing", package: "TestKit"), .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The chat load generator: `chat/scripts/bench-chat.sh` (figures only; never a test).
        .executableTarget(
            name: "roqua-chat-bench",
            dependencies: [
                "RoquaChatCore", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Benchmarks/RoquaChatBench"
        ),
        .testTarget(
            name: "RoquaChatClientTests",
            dependencies: [
                "RoquaChatClient", "RoquaChatServer", "RoquaChatCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "RoquaChatServerTests",
            dependencies: [
                "RoquaChatServer", "RoquaChatPostgres", "RoquaChatCore",
                .product(name: "RoquaTestKit", package: "TestKit"),
                .product(name: "RoquaHTTPGuard", package: roqua),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The built programs end to end, as processes on loopback.
        .testTarget(
            name: "RoquaChatCLITests",
            dependencies: [
                .product(name: "RoquaTestKit", package: "TestKit"),
                .product(name: "RoquaQR", package: roqua),
                .product(name: "RoquaImport", package: roqua),
                .product(name: "RoquaBoundaries", package: roqua),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
