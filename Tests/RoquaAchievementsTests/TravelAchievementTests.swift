import Foundation
import RoquaAchievements
import RoquaBoundaries
import RoquaIO
import RoquaRegions
import RoquaTestSupport
import Testing

/// The travel achievements on stored facts: tiles and the max square from the tiles a track
/// touched, days abroad from its quarter-hours on the ground.
@Suite struct TravelAchievementTests {
    /// A fix every 10 minutes on a walk across rows 250 m apart over ~20 km × 20 km of İstanbul's
    /// outskirts (a square of zoom-14 tiles, ~1.8 km each; 50 days), then `abroadDays` days in
    /// Berlin, then 150 days back home (home: the country with the most days).
    static func track(abroadDays: Int) -> String {
        var lines = ["lat,lon,time"]
        var time = 1_704_103_200.0  // 2024-01-01T10:00:00Z
        for row in 0..<80 {
            for column in 0..<90 {
                let lon = 28.60 + Double(row % 2 == 0 ? column : 89 - column) * 0.0027
                lines.append("\(41.00 + Double(row) * 0.00225),\(lon),\(Int(time))")
                time += 600
            }
        }
        time += 86_400
        for day in 0..<abroadDays {
            lines.append("52.52,13.405,\(Int(time) + day * 86_400)")
            lines.append("52.5202,13.4052,\(Int(time) + day * 86_400 + 3_600)")
        }
        time += Double(abroadDays + 1) * 86_400
        for day in 0..<150 { lines.append("41.01,28.65,\(Int(time) + day * 86_400)") }
        return lines.joined(separator: "\n") + "\n"
    }

    static func board(abroadDays: Int) throws -> AchievementBoard {
        let dir = try TempDirectory()
        let path = dir.file("track.csv")
        try track(abroadDays: abroadDays).write(toFile: path, atomically: true, encoding: .utf8)
        let store = try RegionStore(path: dir.file("regions.sqlite"), components: [AchievementStorage.component])
        _ = try TrackImporter(store: store, enricher: try RegionEnricher(boundaries: Bundled.path())).importFile(path)
        let hierarchy = try BoundaryHierarchy(database: Bundled.database())
        let tracker = AchievementTracker(catalog: try .bundled(), hierarchy: hierarchy, timeZone: TimeZone(identifier: "UTC")!)
        let tiles = TileStats(zoom: 14, visited: try store.visitedTiles(zoom: 14))
        #expect(tiles.maxSquare >= 10 && tiles.tiles >= 100, "\(tiles)")
        return try tracker.board(store: store)
    }

    static func unlocked(_ board: AchievementBoard) -> Set<String> { Set(board.unlocks.map(\.id)) }

    @Test func aSquareOfTilesAndDaysAbroadUnlockTheirAchievements() throws {
        let away = try Self.board(abroadDays: 120)
        #expect(Self.unlocked(away).isSuperset(of: ["explorer_tiles_100", "max_square_10", "days_abroad_100"]))
        // 99 days abroad is not 100: the rest unlock, that one does not (99 of 100).
        let short = try Self.board(abroadDays: 99)
        #expect(Self.unlocked(short).isSuperset(of: ["explorer_tiles_100", "max_square_10"]))
        #expect(!Self.unlocked(short).contains("days_abroad_100"))
        let status = try #require(short.statuses.first { $0.id == "days_abroad_100" })
        #expect(status.current == 99 && status.target == 100, "\(status)")
    }
}
