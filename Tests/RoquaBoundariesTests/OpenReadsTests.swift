import Foundation
import GRDB
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// What the resolver reads at open (and for its first GEOS-path point) comes from covering
/// indexes, never from the boundary and piece rows that carry the geometry; a DB built before
/// those indexes existed still opens and gives the same answers.
@Suite struct OpenReadsTests {
    static let queries = [BoundarySchema.unitQuery, BoundarySchema.unitIDQuery, BoundarySchema.pieceQuery]

    @Test(arguments: queries)
    func theQueryReadsOnlyACoveringIndex(_ sql: String) throws {
        let queue = try DatabaseQueue(
            path: try Bundled.path(),
            configuration: {
                var c = Configuration()
                c.readonly = true
                return c
            }())
        let plan = try queue.read { db in try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String } }
        // The first step scans the table the geometry lives in; it must do so through an index that covers it.
        let scan = try #require(plan.first { $0.hasPrefix("SCAN") }, "\(plan)")
        #expect(scan.contains("USING COVERING INDEX boundaries_units") || scan.contains("USING COVERING INDEX pieces_boxes"), "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "the index gives the order: \(plan)")
    }

    @Test func aDatabaseWithoutTheIndexesGivesTheSameAnswers() throws {
        let directory = try TempDirectory()
        let old = directory.file("before-indexes.sqlite")
        try FileManager.default.copyItem(atPath: try Bundled.path(), toPath: old)
        let queue = try DatabaseQueue(path: old)
        try queue.write { db in try db.execute(sql: "DROP INDEX boundaries_units; DROP INDEX pieces_boxes") }
        try queue.close()

        let current = try Resolver(index: try Bundled.index())
        let before = try Resolver(path: old)
        var random = SeededGenerator(state: 13)
        // Türkiye's box (districts, coasts) and the whole sphere: every answer and every GEOS-path answer agree.
        let points = (0..<1_500).map { i in
            i % 2 == 0
                ? Coordinate(latitude: .random(in: 36...42, using: &random), longitude: .random(in: 26...45, using: &random))
                : Coordinate(
                    latitude: asin(.random(in: -1...1, using: &random)) * 180 / .pi, longitude: .random(in: -180..<180, using: &random))
        }
        var named = 0
        for point in points {
            let expected = try current.placement(point)
            #expect(try before.placement(point) == expected, "\(point)")
            if expected.unit != nil { named += 1 }
        }
        for point in points.prefix(60) {
            #expect(try before.geometryPlacement(point) == current.geometryPlacement(point), "\(point)")
        }
        #expect(named > 700, "the comparison covers places with answers (\(named))")
    }
}
