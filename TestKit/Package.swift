// swift-tools-version: 6.0
import PackageDescription

// Helpers for tests and fuzzing that need nothing of the geocoder, shared by both packages (the
// geocoder's tests and `roqua-fuzz`, the tour groups' tests and `roqua-chat-fuzz`) by path. A
// package of their own so that they are no products of Roqua: an app that depends on Roqua by
// version resolves and builds none of this.
let package = Package(
    name: "TestKit",
    platforms: [.macOS(.v15)],
    products: [
        // Running commands, temporary directories, a throwaway PostgreSQL, loopback HTTP, fuzz replays.
        .library(name: "RoquaTestKit", targets: ["RoquaTestKit"]),
        // Every parser of outside input under libFuzzer (scripts/checks/fuzz.sh); built normally, it replays inputs.
        .library(name: "RoquaFuzzing", targets: ["RoquaFuzzing"]),
    ],
    targets: [
        .target(name: "RoquaTestKit"),
        .target(name: "RoquaFuzzing"),
    ],
    swiftLanguageModes: [.v6]
)
