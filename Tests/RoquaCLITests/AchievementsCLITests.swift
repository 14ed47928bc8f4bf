import Foundation
import RoquaAchievements
import RoquaTestSupport
import Testing

@Suite struct AchievementsCLITests {
    let roqua = ProductsDirectory.product("roqua")

    @Test func validateNamesTheAchievement() throws {
        let directory = try TempDirectory()
        let bad = directory.file("bad.json")
        try #"{"version": 1, "achievements": [{"id": "broken_one", "calculator": "milestone"}]}"#.write(
            toFile: bad, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(roqua, ["achievements", "validate", bad])
        #expect(result.status != 0)
        #expect(result.stderr.contains("broken_one"), "\(result.stderr)")
        let good = try CommandRunner.run(
            roqua, ["achievements", "validate", Repository.path("Sources/RoquaAchievements/achievements.json")])
        #expect(good.status == 0 && good.stdout.contains("92 achievements, no problems"), "\(good.stderr)")
        let missing = try CommandRunner.run(roqua, ["achievements", "validate", directory.file("nope.json")])
        #expect(missing.status != 0 && missing.stderr.contains("nope.json") && !missing.stderr.contains("NSCocoaErrorDomain"))
    }

    @Test func hiddenAchievementsShowAsQuestionMarksUntilUnlocked() throws {
        let directory = try TempDirectory()
        let result = try CommandRunner.run(
            roqua,
            [
                "achievements", "--all", "--store", directory.file("regions.sqlite"), "--boundaries", Bundled.path(),
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let catalog = try AchievementCatalog.bundled()
        let hidden = catalog.achievements.filter(\.hidden)
        #expect(!hidden.isEmpty)
        #expect(result.stdout.components(separatedBy: "???").count - 1 == hidden.count)
        for definition in hidden { #expect(!result.stdout.contains(definition.title.en)) }
        #expect(result.stdout.contains("0 of \(catalog.achievements.count) unlocked"))
    }

    @Test func trackImportPrintsUnlocksAndProfileShowsThem() throws {
        let directory = try TempDirectory()
        let common = ["--store", directory.file("regions.sqlite"), "--boundaries", try Bundled.path()]
        try Trip.csv.write(toFile: directory.file("trip.csv"), atomically: true, encoding: .utf8)
        let imported = try CommandRunner.run(roqua, ["track", "import", directory.file("trip.csv")] + common)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("unlocked: First Steps"), "\(imported.stdout)")
        // Scripts learn when, as the text says it: `unlocked_at` on every unlocked entry, and only there.
        let text = try CommandRunner.run(roqua, ["achievements", "--all"] + common).stdout
        let json = try CommandRunner.run(roqua, ["achievements", "--all", "--json"] + common)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let unlocked = entries.filter { $0["unlocked"] as? Bool == true }
        #expect(!unlocked.isEmpty && entries.count > unlocked.count)
        for entry in entries {
            let at = entry["unlocked_at"] as? String
            #expect((at != nil) == (entry["unlocked"] as? Bool == true), "\(entry)")
            if let at { #expect(text.contains("unlocked \(at.prefix(10))") && at.hasSuffix("Z"), "\(at)") }
        }
        let profile = try CommandRunner.run(roqua, ["profile", "--svg", directory.file("card.svg")] + common)
        #expect(profile.status == 0, "\(profile.stderr)")
        #expect(profile.stdout.contains("12 regions, 9 districts, 4 provinces, 3 countries"), "\(profile.stdout)")
        #expect(try String(contentsOfFile: directory.file("card.svg"), encoding: .utf8).contains("Level"))
    }
}
