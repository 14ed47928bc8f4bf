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
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
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
    ],
    swiftLanguageModes: [.v6]
)
