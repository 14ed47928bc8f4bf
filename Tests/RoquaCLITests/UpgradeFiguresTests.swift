import Foundation
import GRDB
import RoquaProgress
import RoquaTestSupport
import Testing

@testable import RoquaRegions

/// A big store from before the explored figures were remembered (v5) is upgraded by the first
/// command that opens it, and the upgrade measures the figures: the first `stats` after it does
/// not (at a million regions measuring them is most of a second).
@Suite struct UpgradeFiguresTests {
    let roqua = ProductsDirectory.product("roqua")

    @Test func theUpgradeOfABigStoreRemembersItsFigures() throws {
        let directory = try TempDirectory("roqua-upgrade")
        let store = directory.file("regions.sqlite")
        let queue = try DatabaseQueue(path: store)
        try RegionSchema.migrator.migrate(queue, upTo: RegionSchema.province)
        let regions = ExploredFigures.rememberedFrom + 100
        try queue.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
                    INSERT INTO visited_regions (latitude, longitude, radius, timestamp_start, geohash, last_visit)
                    SELECT 40.8 + (i % 150) * 0.004, 28.6 + (i / 150) * 0.004, 150, '2024-05-01T10:00:00.000Z', 'sxk9', '2024-05-01T10:00:00.000Z'
                    FROM n
                    """, arguments: [regions])
        }
        try queue.close()
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = try directory.subdirectory("tmp")
        let first = try CommandRunner.run(roqua, ["history", "--store", store], environment: environment)
        #expect(first.status == 0 && first.stderr.contains("Upgrading the store"), "\(first.stderr)")
        let remembered = try DatabaseQueue(path: store).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM explored_figures ORDER BY name")
        }
        #expect(remembered == ["explored_m2", "world_percent"])
        // And they are the figures of these circles: `stats` measures nothing and agrees.
        struct Stats: Decodable {
            let regions: Int
            let explored_square_kilometres: Double
        }
        let stats = try CommandRunner.run(roqua, ["stats", "--json", "--store", store], environment: environment)
        #expect(stats.status == 0, "\(stats.stderr)")
        let answer = try JSONDecoder().decode(Stats.self, from: Data(stats.stdout.utf8))
        let area = try DatabaseQueue(path: store).read { db in
            try Double.fetchOne(db, sql: "SELECT value FROM explored_figures WHERE name = 'explored_m2'")
        }
        #expect(answer.regions == regions && area.map { $0 / 1e6 } == answer.explored_square_kilometres && (area ?? 0) > 0)
    }
}
