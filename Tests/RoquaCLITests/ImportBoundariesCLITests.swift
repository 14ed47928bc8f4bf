import Foundation
import RoquaTestSupport
import Testing

/// `roqua import` writes the database `--boundaries` names, as every other verb reads it there;
/// `--out` stays as the same option's first name.
@Suite struct ImportBoundariesCLITests {
    let roqua = ProductsDirectory.product("roqua")

    @Test func importAndImportAddTakeBoundaries() throws {
        let s = try AddLayerCLITests.Setup()
        let common = ["import", "--from", s.base, "--boundaries", s.out]
        let built = try CommandRunner.run(roqua, common, environment: s.environment)
        #expect(built.status == 0 && FileManager.default.fileExists(atPath: s.out), "\(built.stderr)")
        let added = try CommandRunner.run(
            roqua,
            common + [
                "--add", s.wards, "--level", "district", "--code", "JCODE",
                "--name", "WARD_JA", "--crs", "EPSG:3857",
            ], environment: s.environment)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try s.units()["13104"] != nil)
        let both = try CommandRunner.run(roqua, common + ["--out", s.out], environment: s.environment)
        #expect(both.status == 64 && both.stderr.hasPrefix("error: --out is --boundaries"), "\(both.stderr)")
    }
}
