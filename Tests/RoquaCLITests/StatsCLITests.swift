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

    /// `stats days` and `stats tiles` as a user runs them, and their refusals.
    @Test func daysAndTilesAfterImportingATrip() throws {
        let directory = try TempDirectory()
        let roqua = ProductsDirectory.product("roqua")
        let store = ["--store", directory.file("regions.sqlite")]
        let common = store + ["--boundaries", try Bundled.path()]
        try Trip.csv.write(toFile: directory.file("trip.csv"), atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(roqua, ["track", "import", directory.file("trip.csv")] + common).status == 0)
        let summary = try CommandRunner.run(roqua, ["stats", "--json"] + common)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(summary.stdout.utf8)) as? [String: Any])
        #expect(
            document["flights"] is [Any] && document["tiles"] is [String: Any] && document["days"] is [String: Any], "\(summary.stdout)")
        let csv = try CommandRunner.run(
            roqua, ["stats", "days", "--level", "province", "--csv", "--year", "2024", "--time-zone", "UTC"] + store)
        #expect(csv.status == 0 && csv.stdout.hasPrefix("code,name,days\n") && csv.stdout.contains("TR-34,İstanbul,"), "\(csv.stdout)")
        let tiles = try CommandRunner.run(roqua, ["stats", "tiles", "--zoom", "17", "--json"] + store)
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(tiles.stdout.utf8)) as? [String: Any])
        #expect(figures["zoom"] as? Int == 17 && (figures["tiles"] as? Int ?? 0) > 0 && figures["max_square"] as? Int ?? 0 >= 1)
        for (arguments, message) in [
            (["days", "--level", "city"], "--level must be country, province or district"),
            (["days", "--time-zone", "Mars/Olympus"], "unknown time zone"),
            (["days", "--year", "1900"], "--year must be between 1970 and 2099"),
            (["days", "--json", "--csv"], "choose one"),
            (["tiles", "--zoom", "15"], "--zoom must be 14 or 17"),
        ] {
            let refused = try CommandRunner.run(roqua, ["stats"] + arguments + store)
            #expect(refused.status != 0 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
        let badSpeed = try CommandRunner.run(roqua, ["track", "import", directory.file("trip.csv"), "--flight-speed", "20"] + common)
        #expect(badSpeed.status != 0 && badSpeed.stderr.contains("between 50 and 1000 km/h"), "\(badSpeed.stderr)")
    }
}
