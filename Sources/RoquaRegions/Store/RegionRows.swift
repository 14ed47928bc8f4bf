import Foundation
import GRDB

/// How the store reads and writes `visited_regions` rows: every reader skips a row that cannot be
/// read (set aside as an `UnreadableRegion`), and a region is checked before it is written.
extension VisitedRegion: FetchableRecord, PersistableRecord {
    /// The store table regions live in.
    public static let databaseTableName = "visited_regions"
}

extension RegionStore {
    /// Every row, decoded one at a time so a bad one is set aside rather than failing the rest: by
    /// position (`RegionRowReader`), or by the `Codable` form for a row that reader leaves alone.
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
        let unreadable = try eachReadable(
            db, where: condition, arguments: arguments,
            fast: { reader, s in reader.region(s).flatMap { (try? $0.validate()) != nil ? $0 : nil } },
            general: { $0 }
        ) { readable.append($0) }
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
            arguments: ids.map { [$0.lowerBound, $0.upperBound] } ?? [],
            fast: { reader, s in reader.facts(s) }, general: RegionFacts.init, body: body)
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

    /// Each row's value by the fast reader, or else from the `Codable` form; the rows neither can
    /// read (or that fail `validate()`) returned.
    private static func eachReadable<T>(
        _ db: Database, where condition: String = "1", arguments: StatementArguments = [],
        fast: (inout RegionRowReader, SQLiteStatement) -> T?,
        general: (VisitedRegion) -> T, body: (T) throws -> Void
    ) throws -> [UnreadableRegion] {
        var unreadable: [UnreadableRegion] = []
        let statement = try db.makeStatement(
            sql: "SELECT \(RegionRowReader.columns) FROM visited_regions WHERE \(condition) ORDER BY id")
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        var reader = RegionRowReader()
        while let row = try rows.next() {
            if let value = fast(&reader, statement.sqliteStatement) {
                try body(value)
                continue
            }
            let region: VisitedRegion
            do {
                region = try VisitedRegion(row: row)
                try region.validate()
            } catch {
                unreadable.append(UnreadableRegion(id: row["id"] ?? -1, problem: Self.problem(error)))
                continue
            }
            try body(general(region))
        }
        return unreadable
    }

    private static func problem(_ error: any Error) -> String {
        switch error {
        case let DecodingError.dataCorrupted(context): context.debugDescription
        case let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context):
            "\(context.codingPath.last?.stringValue ?? "a column") has the wrong type"
        case let DecodingError.keyNotFound(key, _): "\(key.stringValue) is missing"
        default: "\(error)"
        }
    }
}

extension VisitedRegion {
    /// What a region must satisfy to be stored and used: a valid centre, a radius the statistics
    /// can work with, at least one visit.
    /// - Throws: `RegionValueError` naming the value.
    public func validate() throws(RegionValueError) {
        guard !Self.isValid(latitude: latitude, longitude: longitude, radius: radius, visitCount: visitCount) else { return }
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else {
            throw RegionValueError("coordinate \(latitude), \(longitude) is out of range")
        }
        guard (1...ClusteringSettings.radiusRange.upperBound).contains(radius) else {
            throw RegionValueError("radius \(radius) m is outside 1…\(ClusteringSettings.radiusRange.upperBound) m")
        }
        guard visitCount > 0 else { throw RegionValueError("visit_count \(visitCount) must be positive") }
    }

    /// Whether `validate()` passes for these values.
    static func isValid(latitude: Double, longitude: Double, radius: Int, visitCount: Int) -> Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
            && (1...ClusteringSettings.radiusRange.upperBound).contains(radius) && visitCount > 0
    }
}

/// A region value that cannot be stored (or was stored by something else and cannot be used).
public struct RegionValueError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What is wrong with the value.
    public var description: String
    /// Creates an error with `description`.
    public init(_ description: String) { self.description = description }
}

extension VisitedRegion {
    /// The writer `insertRow(with:_:)` takes: the INSERT of a region's columns, those
    /// `encode(to:)` writes.
    static func rowWriter(_ db: Database) throws -> RowWriter {
        try RowWriter(
            db,
            sql: """
                INSERT INTO visited_regions (latitude, longitude, radius, timestamp_start, timestamp_end, province, district,
                    country, country_code, province_code, district_code, geohash, visit_count, last_visit, enriched_with,
                    locality, locality_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
    }

    /// Inserts the region as a new row through `writer` (`rowWriter(_:)`; an import writes many:
    /// ~2 µs each, against ~20 µs through the record encoder) and returns its id.
    /// - Throws: `StoreTimeError` for a time that cannot be stored; GRDB's `DatabaseError`.
    func insertRow(with writer: RowWriter, _ db: Database) throws -> Int64 {
        let times = (try StoreTime.text(timestampStart), try timestampEnd.map(StoreTime.text), try StoreTime.text(lastVisit))
        try writer.write { row in
            row.add(latitude)
            row.add(longitude)
            row.add(Int64(radius))
            row.add(times.0)
            row.add(times.1)
            row.add(province)
            row.add(district)
            row.add(country)
            row.add(countryCode)
            row.add(provinceCode)
            row.add(districtCode)
            row.add(geohash)
            row.add(Int64(visitCount))
            row.add(times.2)
            row.add(enrichedWith)
            row.add(locality)
            row.add(localityID)
        }
        return db.lastInsertedRowID
    }
}
