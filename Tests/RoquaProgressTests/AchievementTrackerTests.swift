import Foundation
import GRDB
import RoquaBoundaries
import RoquaProgress
import RoquaRegions
import RoquaTestSupport
import Testing

/// Unlocks kept in the store: once, and never again on re-import.
@Suite struct AchievementTrackerTests {
    /// One fix inside each of İstanbul's 39 districts, an hour apart.
    static func allIstanbulDistricts(to path: String) throws {
        let context = GEOSContext()
        let wkbs = try Bundled.database().read { db in
            try Data.fetchAll(db, sql: "SELECT geometry FROM boundaries WHERE parent_id = (SELECT id FROM boundaries WHERE code = 'TR-34')")
        }
        #expect(wkbs.count == 39)
        var csv = "lat,lon,timestamp\n"
        for (i, wkb) in wkbs.enumerated() {
            let p = try context.geometry(wkb: wkb).pointOnSurface()
            csv += "\(p.y),\(p.x),\(1_714_550_400 + i * 3600)\n"
        }
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test func theThirtyNineDistrictWalkUnlocksFatihMadalyonuExactlyOnce() throws {
        let directory = try TempDirectory()
        let store = try RegionStore(path: directory.file("regions.sqlite"))
        let importer = TrackImporter(store: store, enricher: try RegionEnricher(boundaries: Bundled.path()))
        let tracker = AchievementTracker(store: store, catalog: try AchievementCatalog.load(path: AchievementCatalog.bundledPath()),
                                         hierarchy: try BoundaryHierarchy(database: Bundled.database()))
        let walk = directory.file("walk.csv")
        try Self.allIstanbulDistricts(to: walk)
        let events = try tracker.consume(try importer.importFile(walk).events)
        let unlocked = events.compactMap { if case let .unlocked(u) = $0 { u.id } else { nil } }
        #expect(unlocked.contains("fatih_madalyonu") && unlocked.contains("kasif_puani"))
        #expect(events.contains { if case .levelUp(from: 1, to: _) = $0 { true } else { false } })

        // Re-importing the same file causes no events and unlocks nothing; neither do the same fixes in
        // another file, nor a full re-evaluation.
        let again = try importer.importFile(walk)
        #expect(again.alreadyImported && again.events.isEmpty)
        #expect(try tracker.consume(again.events).isEmpty)
        try (try String(contentsOfFile: walk, encoding: .utf8) + "\n").write(toFile: directory.file("again.csv"), atomically: true, encoding: .utf8)
        #expect(try tracker.consume(try importer.importFile(directory.file("again.csv")).events).isEmpty)
        #expect(try tracker.update().isEmpty)
        #expect(try tracker.unlocks().filter { $0.id == "fatih_madalyonu" }.count == 1)

        // A revisit a week later moves only revisit- and streak-based achievements.
        let stamp = { (id: String) in try store.read { db in try String.fetchOne(db, sql: "SELECT updated_at FROM achievement_progress WHERE id = ?", arguments: [id]) } }
        let milestoneBefore = try stamp("explorer_100")
        #expect(milestoneBefore != nil)
        let line = try #require(try String(contentsOfFile: walk, encoding: .utf8).split(separator: "\n").dropFirst().first)
        let parts = line.split(separator: ",")
        try "lat,lon,timestamp\n\(parts[0]),\(parts[1]),\(1_714_550_400 + 7 * 86_400)\n".write(toFile: directory.file("later.csv"), atomically: true, encoding: .utf8)
        let later = try importer.importFile(directory.file("later.csv"))
        #expect(later.revisits == 1 && later.newRegions == 0)
        Thread.sleep(forTimeInterval: 0.01)
        _ = try tracker.consume(later.events)
        #expect(try stamp("explorer_100") == milestoneBefore)  // not re-evaluated

        // XP: exploration plus unlocks; the level follows the documented curve.
        let level = try tracker.level()
        let rules = ExperienceRules()
        #expect(level.xp == rules.explorationXP(try store.allRegions()) + (try tracker.unlocks()).reduce(0) { $0 + $1.xp })
        #expect(level.levelStartXP <= level.xp && level.xp < level.nextLevelXP)
    }

    @Test func levelCurve() {
        let rules = ExperienceRules()
        #expect(rules.level(forXP: 0) == 1 && rules.level(forXP: 99) == 1 && rules.level(forXP: 100) == 2)
        #expect(rules.level(forXP: 300) == 3 && rules.level(forXP: 599) == 3 && rules.level(forXP: 600) == 4)
        #expect(rules.xp(atLevel: 5) == 1000)
    }

    @Test func validateCommandNamesTheAchievement() throws {
        let directory = try TempDirectory()
        let bad = directory.file("bad.json")
        try #"{"version": 1, "achievements": [{"id": "broken_one", "calculator": "milestone"}]}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(ProductsDirectory.product("roqua"), ["achievements", "validate", bad])
        #expect(result.status != 0)
        #expect(result.stderr.contains("broken_one"), "\(result.stderr)")
        let good = try CommandRunner.run(ProductsDirectory.product("roqua"), ["achievements", "validate", AchievementCatalog.bundledPath()])
        #expect(good.status == 0 && good.stdout.contains("no problems"), "\(good.stderr)")
    }
}
