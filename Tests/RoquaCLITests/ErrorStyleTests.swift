import Foundation
import RoquaTestSupport
import Testing

/// Every Roqua program words an error the same way: `error: …` on standard error (the tour-group
/// programs are checked in their own package), with ArgumentParser's statuses.
@Suite struct ErrorStyleTests {
    @Test func roquaAndRoquaServeSayError() throws {
        let roqua = ProductsDirectory.product("roqua")
        let usage = try CommandRunner.run(roqua, ["resolve", "41,0054 28,9768", "--boundaries", try Bundled.path()])
        #expect(usage.status == 64 && usage.stderr.hasPrefix("error: cannot read \"41,0054 28,9768\""), "\(usage.stderr)")
        #expect(usage.stderr.contains("Usage: roqua resolve"))
        let invalid = try CommandRunner.run(roqua, ["resolve", "91", "0", "--boundaries", try Bundled.path()])
        #expect(invalid.status == 1 && invalid.stderr == "error: invalid coordinate 91.0, 0.0: latitude outside -90…90\n", "\(invalid.stderr)")
        let failure = try CommandRunner.run(roqua, ["map", "--unit", "Istanbull", "--out", "/dev/null", "--boundaries", try Bundled.path(),
                                                    "--store", "/nonexistent/regions.sqlite"])
        #expect(failure.status == 1 && failure.stderr.hasPrefix("error: "), "\(failure.stderr)")
        #expect(!failure.stderr.contains("Error: "))
        let serve = try CommandRunner.run(ProductsDirectory.product("roqua-serve"), ["--port", "99999"])
        #expect(serve.status != 0 && serve.stderr.hasPrefix("error: "), "\(serve.stderr)")
        // Help and the version still go to standard output with status 0.
        let version = try CommandRunner.run(roqua, ["--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty && version.stderr.isEmpty)
    }
}
