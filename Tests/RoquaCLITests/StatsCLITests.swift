import Foundation
import RoquaTestSupport
import Testing

/// `roqua track import` then `roqua stats`, as a user runs them.
@Suite struct StatsCLITests {
    @Test func statsAndUnitsAfterImportingATrip() throws {
        let directory = try TempDirectory()
        let roqua = ProductsDirectory.product("roqua")
        let common = ["--store", directory.file("regions.sqlite"), "--boundaries", try Bundled.path()]
        try Trip.csv.write(toFile: directory.file("trip.csv"), atomically: true, encoding: .utf8)
        let imported = try CommandRunner.run(roqua, ["track", "import", directory.file("trip.csv")] + common)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("first time in 9 districts"), "\(imported.stdout)")

        let stats = try CommandRunner.run(roqua, ["stats"] + common)
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout.contains("Türkiye 2/81 provinces") && stats.stdout.contains("İstanbul 8/39 districts"))
        for query in ["istanbul", "İSTANBUL", "TR-34"] {
            let unit = try CommandRunner.run(roqua, ["stats", "--unit", query, "--json"] + common)
            #expect(unit.status == 0, "\(unit.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(unit.stdout.utf8)) as? [String: Any])
            #expect(json["visited"] as? Int == 8 && json["total"] as? Int == 39)
            #expect((json["not_visited_children"] as? [Any])?.count == 31)
        }
        let unknown = try CommandRunner.run(roqua, ["stats", "--unit", "Istanbull"] + common)
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("İstanbul (TR-34)"), "\(unknown.stderr)")
        let badDecimals = try CommandRunner.run(roqua, ["stats", "--decimals", "12"] + common)
        #expect(badDecimals.status != 0 && badDecimals.stderr.contains("4 and 9"))
    }
}
