import Foundation
import RoquaTestSupport
import Testing

/// The fuzzers' seed corpora and every input that once crashed a parser (Tests/Fuzz/regressions,
/// one folder per target), replayed through the same entry points the fuzzer drives.
@Suite struct FuzzReplayTests {
    static let fuzz = Repository.path("Tests/Fuzz")

    static var targets: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fuzz + "/corpus")) ?? []).sorted()  // none: the test below fails
    }

    @Test func everySavedInputEndsWithoutACrash() throws {
        #expect(Self.targets.count >= 10)
        for target in Self.targets {
            let folders = ["corpus", "regressions"].map { "\(Self.fuzz)/\($0)/\(target)" }
            let result = try CommandRunner.run(ProductsDirectory.product("roqua-fuzz"), [target] + folders)
            #expect(result.status == 0, "\(target): \(result.stderr)")
            #expect(result.stdout.contains("none crashed"), "\(target): \(result.stdout)")
        }
    }
}
