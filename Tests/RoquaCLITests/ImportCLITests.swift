import Foundation
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// The built `roqua` binary, run as a user would.
@Suite struct ImportCLITests {
    let roqua = ProductsDirectory.product("roqua")

    private func run(_ s: Scenario) throws -> CommandResult {
        try #require(
            FileManager.default.isExecutableFile(atPath: roqua),
            "no roqua executable beside the test bundle at \(roqua)")
        return try CommandRunner.run(roqua, ["import", "--from", s.source.path, "--out", s.existing.path])
    }

    @Test func missingSHX() throws {
        let s = try Scenario()
        try FileManager.default.removeItem(atPath: s.path("districts.shp", "shx"))
        let result = try run(s)
        #expect(result.status != 0)
        #expect(result.stderr.contains(s.path("districts.shp")), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("districts.shx"))
        try expectUntouched(s.existing)
    }

    @Test func duplicateCode() throws {
        let s = try Scenario { $0["districts.shp"].units[2].code = "D1" }
        let result = try run(s)
        #expect(result.status != 0)
        #expect(result.stderr.contains("districts.shp"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("record 3"))
        try expectUntouched(s.existing)
    }

    @Test func truncatedSHP() throws {
        let s = try Scenario()
        try FixtureWriter.truncate(s.path("districts.shp"), by: 24)
        let result = try run(s)
        #expect(result.status != 0)
        #expect(result.stderr.contains("districts.shp"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("record 3"))
        try expectUntouched(s.existing)
    }

    /// The control: the same command on good data succeeds and replaces the DB.
    @Test func validImportReplacesTheDatabase() throws {
        let s = try Scenario { $0["districts.shp"].units.removeLast() }
        let result = try run(s)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("Imported 1 countries, 2 provinces, 2 districts"))
        #expect(try s.existing.currentBytes() != s.existing.original)
        #expect(try s.existing.leftovers() == [])
        #expect(try BoundaryDatabase(path: s.existing.path).info().levels["district"] == 2)
    }
}
