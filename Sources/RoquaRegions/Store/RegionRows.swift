import Foundation
import GRDB

/// How the store reads and writes `visited_regions` rows: every reader skips a row that cannot be
/// read (set aside as an `UnreadableRegion`), and a region is checked before it is written.
extension RegionStore {
    /// Every row, read one at a time (`RegionRowReader`) so a bad one is set aside rather than
    /// failing the rest.
    /// `growing`: room for a sixteenth more (at least 1,024) — the clustering appends an import's
    /// new regions, and one more region in an array of a million regions' exact size copied all
    /// of them into one of twice the size.
    package static func regions(
        _ db: Database, where condition: String = "1", arguments: StatementArguments = [],
        growing: Bool = false
    ) throws -> (readable: [VisitedRegion], unreadable: [UnreadableRegion]) {
        var readable: [VisitedRegion] = []
        if condition == "1" {  // every row: room for them at once (growing by doubling copied a million regions ~20 times)
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM visited_regions") ?? 0
            readable.reserveCapacity(growing ? Self.roomToGrow(count) : count)
        }
        let unreadable = try eachReadable(db, where: condition, arguments: arguments, read: { $0.region($1) }) {
            readable.append($0)
        }
        return (readable, unreadable)
    }

    /// The facts of every readable region in id order — the regions `allRegions()` returns, the
    /// unreadable rows reported the same way — read without making or holding the regions: what
    /// `roqua stats` needs of a million regions.
    /// - Throws: `RegionStoreError.cannotOpen` when the store cannot be read; what `body` throws.
    public func forEachRegionFacts(_ body: (RegionFacts) throws -> Void) throws {
        try read { db in report(unreadable: try Self.eachRegionFacts(db, body)) }
    }

    /// The facts of the readable regions with ids in `ids` (all when nil), in id order, inside an
    /// open transaction; the rows that cannot be read returned, not reported.
    package static func eachRegionFacts(
        _ db: Database, ids: ClosedRange<Int64>? = nil,
        _ body: (RegionFacts) throws -> Void
    ) throws -> [UnreadableRegion] {
        try eachReadable(
            db, where: ids == nil ? "1" : "id BETWEEN ? AND ?",
            arguments: ids.map { [$0.lowerBound, $0.upperBound] } ?? [], read: { $0.facts($1) }, body: body)
    }

    /// Tells the store's handler about rows a read skipped (nothing when there are none).
    package func report(unreadable: [UnreadableRegion]) {
        if !unreadable.isEmpty { unreadableHandler?(unreadable) }
    }

    /// Room for `count` regions and an import's new ones: a sixteenth more, at least 1,024.
    package static func roomToGrow(_ count: Int) -> Int { count + max(1024, count / 16) }

    /// The smallest and largest region id (nil for no regions).
    package func idRange() throws -> ClosedRange<Int64>? {
        try read { db in
            // Two subqueries: SQLite looks a lone MIN or MAX of the id up at the end of the table, but
            // scans every row (0.16 s at a million) for both in one SELECT.
            let row = try Row.fetchOne(db, sql: "SELECT (SELECT MIN(id) FROM visited_regions), (SELECT MAX(id) FROM visited_regions)")
            guard let low = row?[0] as Int64?, let high = row?[1] as Int64?, low <= high else { return nil }
            return low...high
        }
    }

    /// Each readable row's value, in id order; the rows that cannot be read returned.
    private static func eachReadable<T>(
        _ db: Database, where condition: String = "1", arguments: StatementArguments = [],
        read: (inout RegionRowReader, SQLiteStatement) -> Result<T, UnreadableRegion>, body: (T) throws -> Void
    ) throws -> [UnreadableRegion] {
        var unreadable: [UnreadableRegion] = []
        var reader = try RegionRowReader(db)
        let statement = try db.makeStatement(
            sql: "SELECT \(RegionRowReader.columns) FROM visited_regions WHERE \(condition) ORDER BY id")
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        while try rows.next() != nil {
            switch read(&reader, statement.sqliteStatement) {
            case let .success(value): try body(value)
            case let .failure(problem): unreadable.append(problem)
            }
        }
        return unreadable
    }
}

extension VisitedRegion {
    /// What a region must satisfy to be stored and used: a valid centre, a radius the statistics
    /// can work with, at least one visit.
    /// - Throws: `RegionValueError` naming the value.
    public func validate() throws(RegionValueError) {
        if let problem = Self.problem(latitude: latitude, longitude: longitude, radius: radius, visitCount: visitCount) { throw problem }
    }

    /// What `validate()` throws for these values; nil when they are valid.
    static func problem(latitude: Double, longitude: Double, radius: Int, visitCount: Int) -> RegionValueError? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else {
            return RegionValueError("coordinate \(latitude), \(longitude) is out of range")
        }
        guard (1...ClusteringSettings.radiusRange.upperBound).contains(radius) else {
            return RegionValueError("radius \(radius) m is outside 1…\(ClusteringSettings.radiusRange.upperBound) m")
        }
        guard visitCount > 0 else { return RegionValueError("visit_count \(visitCount) must be positive") }
        return nil
    }
}

/// A region value that cannot be stored (or was stored by something else and cannot be used).
public struct RegionValueError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What is wrong with the value.
    public var description: String
    /// Creates an error with `description`.
    public init(_ description: String) { self.description = description }
}

/// Writes regions as new rows of `visited_regions`, with SQLite's own binding calls (an import
/// writes many: ~2 µs each, against ~20 µs through GRDB's record encoder), each region's names as
/// its place's id (`PlaceIDs`).
struct RegionWriter {
    private let rows: RowWriter
    private var places: PlaceIDs

    init(_ db: Database) throws {
        rows = try RowWriter(
            db,
            sql: """
                INSERT INTO visited_regions (id, latitude, longitude, radius, start_ms, end_ms, last_visit_ms, geohash, visit_count, place_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        places = try PlaceIDs(db)
    }

    /// Inserts `region` and returns its id: its own when `keepingID` (a restore), a new one otherwise.
    /// - Throws: `StoreTimeError` for a time the store cannot hold; GRDB's `DatabaseError`.
    mutating func insert(_ region: VisitedRegion, keepingID: Bool = false, _ db: Database) throws -> Int64 {
        let times = (
            try StoreTime.milliseconds(region.timestampStart), try region.timestampEnd.map(StoreTime.milliseconds),
            try StoreTime.milliseconds(region.lastVisit)
        )
        let place = try places.id(region.names, db)
        try rows.write { row in
            row.add(keepingID ? region.id : nil)
            row.add(region.latitude)
            row.add(region.longitude)
            row.add(Int64(region.radius))
            row.add(times.0)
            row.add(times.1)
            row.add(times.2)
            row.add(region.geohash)
            row.add(Int64(region.visitCount))
            row.add(place)
        }
        return db.lastInsertedRowID
    }

    /// Gives the region with `id` the place `names` name.
    mutating func rename(_ id: Int64?, _ names: RegionNames, _ db: Database) throws {
        try db.execute(sql: "UPDATE visited_regions SET place_id = ? WHERE id = ?", arguments: [try places.id(names, db), id])
    }
}

extension VisitedRegion {
    /// Inserts `regions`, each with its id (a new one when it has none), in `db`'s open
    /// transaction; returns their ids.
    /// - Throws: `StoreTimeError` for a time the store cannot hold; GRDB's `DatabaseError`.
    package static func insert(_ regions: [VisitedRegion], _ db: Database) throws -> [Int64] {
        var writer = try RegionWriter(db)
        return try regions.map { try writer.insert($0, keepingID: true, db) }
    }

    /// Inserts the region as `insert(_:_:)` does.
    package func insert(_ db: Database) throws { _ = try Self.insert([self], db) }
}
