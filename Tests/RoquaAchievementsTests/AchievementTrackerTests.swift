import Foundation
import GRDB
import RoquaBoundaries
import RoquaProgress
import RoquaRegions
import RoquaTestSupport
import Testing

@testable import RoquaAchievements

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

    struct Setup {
        let directory: TempDirectory
        let store: RegionStore
        let importer: TrackImporter
        let tracker: AchievementTracker

        init(timeZone: TimeZone = .current) throws {
            directory = try TempDirectory()
            store = try RegionStore(path: directory.file("regions.sqlite"), components: [AchievementStorage.component])
            importer = try TrackImporter(store: store, enricher: try RegionEnricher(boundaries: Bundled.path()))
            tracker = AchievementTracker(
                catalog: try AchievementCatalog.bundled(),
                hierarchy: try BoundaryHierarchy(database: Bundled.database()), timeZone: timeZone)
        }

        /// Imports `path` with the tracker in the import's transaction.
        func run(_ path: String) throws -> (summary: TrackImportSummary, events: [AchievementEvent]) {
            let (summary, events) = try importer.importFile(path) { db, summary in try tracker.consume(db, events: summary.events) }
            return (summary, events ?? [])
        }

        func unlocks() throws -> [AchievementUnlock] { try store.read { db in try AchievementStorage.unlocks(db) } }
    }

    @Test func theThirtyNineDistrictWalkUnlocksFatihMadalyonuExactlyOnce() throws {
        let setup = try Setup()
        let walk = setup.directory.file("walk.csv")
        try Self.allIstanbulDistricts(to: walk)
        let events = try setup.run(walk).events
        let unlocked = events.compactMap { if case let .unlocked(u) = $0 { u.id } else { nil } }
        #expect(unlocked.contains("fatih_madalyonu") && unlocked.contains("kasif_puani"))
        #expect(events.contains { if case .levelUp(from: 1, to: _) = $0 { true } else { false } })

        // Re-importing the same file causes no events and unlocks nothing; neither do the same fixes in
        // another file, nor a full re-evaluation.
        let again = try setup.run(walk)
        #expect(again.summary.alreadyImported && again.summary.events.isEmpty && again.events.isEmpty)
        try (try String(contentsOfFile: walk, encoding: .utf8) + "\n").write(
            toFile: setup.directory.file("again.csv"), atomically: true, encoding: .utf8)
        #expect(try setup.run(setup.directory.file("again.csv")).events.isEmpty)
        #expect(try setup.tracker.board(store: setup.store).newUnlocks.isEmpty)
        #expect(try setup.unlocks().filter { $0.id == "fatih_madalyonu" }.count == 1)

        // XP: exploration plus unlocks; the level follows the documented curve.
        let board = try setup.tracker.board(store: setup.store)
        let rules = setup.tracker.catalog.experience
        #expect(board.level.xp == rules.explorationXP(try setup.store.allRegions()) + board.unlocks.reduce(0) { $0 + $1.xp })
        #expect(board.level.levelStartXP <= board.level.xp && board.level.xp < board.level.nextLevelXP)
    }

    @Test func aRevisitOnlyMovesRevisitAndStreakAchievements() throws {
        let tracker = AchievementTracker(
            catalog: try AchievementCatalog.bundled(),
            hierarchy: try BoundaryHierarchy(database: Bundled.database()))
        let region = RegionEvent.Touch(id: 1, latestVisit: Date())
        let revisitOnly = tracker.affected(by: [.revisit(region)], unlocked: [])
        let calculators = Set(revisitOnly.compactMap { tracker.catalog.definition($0)?.calculator })
        #expect(!revisitOnly.isEmpty && calculators.isSubset(of: AchievementTracker.revisitSensitive))
        let withNewRegion = tracker.affected(by: [.revisit(region), .newRegion(region)], unlocked: ["explorer_100"])
        #expect(withNewRegion.count == tracker.catalog.achievements.count - 1 && !withNewRegion.contains("explorer_100"))
    }

    @Test func unlocksTravelWithExportsAndRestoreLeavesNoStaleRows() throws {
        let setup = try Setup()
        let walk = setup.directory.file("walk.csv")
        try Self.allIstanbulDistricts(to: walk)
        _ = try setup.run(walk)
        let unlocks = try setup.unlocks()
        #expect(!unlocks.isEmpty)
        let export = setup.directory.file("export.json")
        try setup.store.export(.json).write(to: URL(fileURLWithPath: export))
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: export)), as: UTF8.self).contains("\"achievement_unlocks\""))

        let other = try RegionStore(path: setup.directory.file("other.sqlite"), components: [AchievementStorage.component])
        try other.restore(from: export)
        #expect(try other.read { db in try AchievementStorage.unlocks(db) } == unlocks)
        #expect(try other.export(.json) == setup.store.export(.json))

        // An export without unlocks, restored with --replace, leaves none behind.
        let empty = setup.directory.file("empty.json")
        try #"{"format": "roqua-regions", "version": 1, "regions": [], "imports": []}"#.write(
            toFile: empty, atomically: true, encoding: .utf8)
        try other.restore(from: empty, replace: true)
        #expect(try other.read { db in try AchievementStorage.unlocks(db) }.isEmpty)
        #expect(try other.regionCount() == 0)
    }

    @Test func levelCurve() {
        let rules = ExperienceRules()
        #expect(rules.level(forXP: 0) == 1 && rules.level(forXP: 99) == 1 && rules.level(forXP: 100) == 2)
        #expect(rules.level(forXP: 300) == 3 && rules.level(forXP: 599) == 3 && rules.level(forXP: 600) == 4)
        #expect(rules.xp(atLevel: 5) == 1000)
    }

    @Test func theBuiltInCatalogIsValid() throws {
        let catalog = try AchievementCatalog.bundled()
        #expect(catalog.achievements.count == 92)
        #expect(catalog.experience == ExperienceRules())
    }

    /// A grid of fixes `spacing` degrees apart from (`latitude`, `longitude`), one a minute from `start`.
    static func gridWalk(_ count: Int, latitude: Double, longitude: Double, spacing: Double, start: Int, to path: String) throws {
        var csv = "lat,lon,timestamp\n"
        for i in 0..<count {
            csv += "\(latitude + Double(i / 150) * spacing),\(longitude + Double(i % 150) * spacing),\(start + i * 60)\n"
        }
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// An import that adds regions to a big store carries the explored area and world share
    /// remembered before it forward (what the new circles add, among their neighbours), so the
    /// next `stats` finds them.
    @Test func anImportIntoABigStoreCarriesTheRememberedFiguresForward() throws {
        let setup = try Setup()
        let first = setup.directory.file("first.csv"), second = setup.directory.file("second.csv")
        try Self.gridWalk(
            ExploredFigures.rememberedFrom + 500, latitude: 40.8, longitude: 28.6, spacing: 0.004, start: 1_714_550_400,
            to: first)
        _ = try setup.importer.importFile(first)  // without the tracker: quicker
        func circles() throws -> [ExploredCircle] {
            try setup.store.allRegions().map { ExploredCircle(latitude: $0.latitude, longitude: $0.longitude, radius: Double($0.radius)) }
        }
        let earlier = try circles()
        // Remembered as `stats` would, with a value no measure gives (measuring 20,000 circles
        // takes long in a debug build; `ExploredAreaAddedTests` compares with the whole measure).
        let (marked, markedShare) = (5e9, 0.5)
        let earlierPrint = ExploredFigures(earlier, memory: nil).fingerprint
        StoredFigures(store: setup.store).remember("explored_m2", fingerprint: earlierPrint, value: marked)
        StoredFigures(store: setup.store).remember("world_percent", fingerprint: earlierPrint, value: markedShare)
        // Thirty new regions in a row beyond the first file's, the first overlapping its last ones.
        try Self.gridWalk(30, latitude: 40.8 + 0.001, longitude: 28.6 + 0.5985, spacing: 0.003, start: 1_720_000_000, to: second)
        // A catalog of one achievement out of reach: the import's evaluation is quick in a debug build.
        let tracker = AchievementTracker(
            catalog: try AchievementCatalog.load(
                data: AchievementCatalogTests.file([
                    AchievementCatalogTests.entry("far", parameters: #"{"target": 1000000}"#)
                ])), hierarchy: setup.tracker.hierarchy)
        let (summary, _) = try setup.importer.importFile(second) { db, summary in try tracker.consume(db, events: summary.events) }
        #expect(summary.newRegions == 30)

        let all = try circles()
        #expect(Array(all.prefix(earlier.count)) == earlier && all.count == earlier.count + 30)
        let remembered = try setup.store.read { db in
            try Row.fetchAll(db, sql: "SELECT fingerprint, value FROM explored_figures ORDER BY name")
                .map { ($0["fingerprint"] as String, $0["value"] as Double) }
        }
        let added = try #require(try ExploredArea.squareMetersAdded(by: all[earlier.count...], to: earlier[...]))
        let addedShare = try #require(WorldGrid.percentageAdded(by: all[earlier.count...], to: earlier[...]))
        #expect(added > 30 * 0.5 * .pi * 150 * 150 && addedShare > 0)
        let allPrint = ExploredFigures(all, memory: nil).fingerprint
        #expect(remembered.map(\.0) == [allPrint, allPrint])
        #expect(remembered.map(\.1) == [marked + added, markedShare + addedShare])
    }

    /// Every write that leaves a big store's circles changed leaves both figures remembered for
    /// them, measured when they cannot be carried: a first import into an empty store, a
    /// restore (`ExploredFigures.keepRemembered(in:)`) and a rebuild's evaluation (`rederived`).
    /// So the first `stats` after any of them finds them.
    @Test func aFirstImportARestoreAndARebuildLeaveTheFiguresRemembered() throws {
        let setup = try Setup()
        let walk = setup.directory.file("walk.csv")
        try Self.gridWalk(
            ExploredFigures.rememberedFrom + 200, latitude: 40.8, longitude: 28.6, spacing: 0.004, start: 1_714_550_400, to: walk)
        let tracker = AchievementTracker(
            catalog: try AchievementCatalog.load(
                data: AchievementCatalogTests.file([
                    AchievementCatalogTests.entry("far", parameters: #"{"target": 1000000}"#)
                ])), hierarchy: setup.tracker.hierarchy)
        _ = try setup.importer.importFile(walk) { db, summary in try tracker.consume(db, events: summary.events) }
        let circles = try setup.store.allRegions().map {
            ExploredCircle(latitude: $0.latitude, longitude: $0.longitude, radius: Double($0.radius))
        }
        #expect(circles.count >= ExploredFigures.rememberedFrom)
        let print = ExploredFigures(circles, memory: nil).fingerprint
        let expected = [
            "explored_m2 \(try ExploredArea.squareMeters(of: circles))", "world_percent \(WorldGrid.percentage(of: circles))",
        ]
        func remembered() throws -> [String] {
            try setup.store.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT name, value FROM explored_figures WHERE fingerprint = ? ORDER BY name", arguments: [print]
                ).map { "\($0["name"] as String) \($0["value"] as Double)" }
            }
        }
        func forget() throws { try setup.store.write { db in try db.execute(sql: "DELETE FROM explored_figures") } }
        #expect(try remembered() == expected)
        try forget()
        ExploredFigures.keepRemembered(in: setup.store)
        #expect(try remembered() == expected)
        try forget()
        _ = try setup.store.write { db in try tracker.rederived(db, stored: try RegionStore.regions(db).readable) }
        #expect(try remembered() == expected)
    }
}
