import Foundation
import GRDB
import RoquaTimeline

/// What a rebuild did.
public struct RebuildSummary: Sendable, Equatable {
    /// Kept fixes read and derived again, and the sources they came from.
    public var fixes = 0
    public var sources = 0
    /// Regions before and after.
    public var regionsBefore = 0
    public var regions = 0
    public var flights = 0
    /// Imports from before the store kept fixes, whose regions a rebuild cannot make again.
    public var importsWithoutFixes = 0
    /// Every event the derived regions cause, as one import of everything would (the
    /// achievements' tracker re-dates its unlocks from them); nil once it leaves the rebuild.
    package var events: [RegionEvent] = []
    package var storedRegions: [VisitedRegion]?
}

/// A store whose regions came (in part) from files imported before it kept fixes: deriving
/// again from the kept fixes would drop what only those files made.
public struct UnkeptRegions: Error, Sendable, Equatable, CustomStringConvertible {
    public var imports: Int
    public var regions: Int

    public var description: String {
        "\(imports) file(s) were imported before the store kept fixes, so some of its \(regions) regions come from fixes it "
            + "does not have; deriving again would drop them. Import those files again first (their fixes are kept, nothing is "
            + "counted twice; `roqua history` counts them), or pass --discard-unkept to keep only what the kept fixes make"
    }
}

extension TrackImporter {
    /// Tables made by the derive stages, emptied before everything is derived again.
    static let derivedTables = [
        "visited_regions", "places", "flight_regions", "presence", "tiles", "flights", "explored_figures", "map_tiles",
    ]

    /// Re-derives everything from the kept fixes with this importer's settings, in `db`'s open
    /// transaction: the derived tables and the kept timeline (the store's and each component's) are emptied, every
    /// source's fixes are derived again — sources in the order of their first fix, each in time
    /// order, as if every file were imported afresh in the order it was recorded — and the
    /// settings are remembered. Region ids start again at 1, so the same fixes and settings give
    /// the same store.
    /// - Throws: `UnkeptRegions` when files imported before the history made regions no kept fix
    ///   makes again (unless `discardingUnkept`), `FixBlock.Damaged` for a damaged block, `RegionStoreError`.
    /// - Parameter timeline: the stay thresholds, then remembered (nil: the remembered ones).
    package func rederive(_ db: Database, discardingUnkept: Bool = false, timeline: TimelineSettings? = nil) throws -> RebuildSummary {
        var summary = RebuildSummary()
        summary.regionsBefore = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM visited_regions") ?? 0
        summary.importsWithoutFixes = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM imports WHERE fixes_kept IS NULL") ?? 0
        let kept = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM fix_blocks") ?? 0
        if !discardingUnkept, summary.importsWithoutFixes > 0 || (kept == 0 && summary.regionsBefore > 0) {
            throw UnkeptRegions(imports: summary.importsWithoutFixes, regions: summary.regionsBefore)
        }
        for table in Self.derivedTables + store.components.flatMap(\.derivedTables) {
            try db.execute(sql: "DELETE FROM \(table)")
        }
        try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = 'visited_regions'")
        var derivation = RegionDerivation(settings: settings, flights: flights, enricher: enricher, existing: [])
        let sources = try Row.fetchAll(db, sql: "SELECT id FROM fix_sources WHERE fixes > 0 ORDER BY first_ms, id").map { $0[0] as Int64 }
        var tiles = MapTileKeeper(maxAccuracy: settings.maxAccuracy, db)
        for source in sources {
            try FixHistory.forEachRun(ofSource: source, db) { fixes in
                summary.fixes += fixes.count
                derivation.derive(fixes)
                try tiles.add(source: source, fixes)
            }
            derivation.endSource()
            tiles.endSource(source)
            summary.sources += 1
        }
        try tiles.close()
        try db.execute(sql: "UPDATE fix_sources SET decided_ms = last_ms")
        let written = try derivation.write(db)
        try DeriveSettings(clustering: settings, flightSpeedKmh: flights.speed * 3.6).remember(db)
        try KeptTimeline.update(from: nil, settings: timeline, maxAccuracy: settings.maxAccuracy, isOnLand: isOnLand, db)
        try tiles.finish()
        summary.regions = written.stored.count
        summary.flights = derivation.counts.flights.count
        summary.events = written.events
        summary.storedRegions = written.stored
        return summary
    }
}

extension FixHistory {
    /// A source's fixes in time order, handed over a run at a time: blocks in the order they
    /// start, those whose spans overlap (a file that was not in time order) merged and sorted.
    static func forEachRun(ofSource source: Int64, _ db: Database, _ body: ([KeptFix]) throws -> Void) throws {
        let rows = try Row.fetchCursor(
            db, sql: "SELECT start_ms, end_ms, data FROM fix_blocks WHERE source = ? ORDER BY start_ms, id",
            arguments: [source])
        var run: [KeptFix] = [], runEnd = Int64.min
        while let row = try rows.next() {
            let start: Int64 = row[0], end: Int64 = row[1], data: Data = row[2]
            if !run.isEmpty, start > runEnd {
                try body(run)
                run.removeAll(keepingCapacity: true)
            }
            let fixes = try FixBlock.decode(Array(data))
            if run.isEmpty || start > runEnd { run = fixes } else { run = (run + fixes).inTimeOrder() }
            runEnd = max(runEnd, end)
        }
        if !run.isEmpty { try body(run) }
    }
}
