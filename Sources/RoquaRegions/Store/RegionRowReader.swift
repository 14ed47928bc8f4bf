import Foundation
import GRDB
import GRDBSQLite
import RoquaIO

/// Reads `visited_regions` rows from SQLite's columns by position (GRDB's `Codable` decoder looks
/// every column up by name, about 3 µs a row: most of `roqua stats` at a million regions), each
/// region's names from its place (`PlaceTable`), read once for all.
///
/// A row is read when every column has the type the store writes (a real or an integer
/// coordinate, integers elsewhere, a text geohash, a time within the years 0000–9999, a place that
/// exists and is readable) and its values pass `VisitedRegion.validate()`; any other row is an
/// `UnreadableRegion` naming the column.
struct RegionRowReader {
    /// The columns, in the order `region(_:)` reads them.
    static let columns = "id, latitude, longitude, radius, start_ms, end_ms, last_visit_ms, geohash, visit_count, place_id"
    private static let names = columns.components(separatedBy: ", ")
    private let places: [Int64: PlaceTable.Place]
    /// The geohash of the row before, shared by this row when it is the same.
    private var lastGeohash = ""

    init(_ db: Database) throws { places = try PlaceTable.read(db) }

    /// The region in the statement's current row, or why it cannot be read.
    mutating func region(_ s: SQLiteStatement) -> Result<VisitedRegion, UnreadableRegion> {
        let numbers: Numbers, names: RegionNames
        switch read(s) {
        case let .success(read): (numbers, names) = read
        case let .failure(problem): return .failure(problem)
        }
        let count = Int(sqlite3_column_bytes(s, 7))
        let bytes = UnsafeBufferPointer(start: sqlite3_column_text(s, 7), count: count)
        if !lastGeohash.utf8.elementsEqual(bytes) { lastGeohash = String(decoding: bytes, as: UTF8.self) }
        return .success(
            VisitedRegion(
                id: numbers.id, latitude: numbers.latitude, longitude: numbers.longitude, radius: numbers.radius,
                timestampStart: numbers.start, timestampEnd: numbers.end, names: names, geohash: lastGeohash,
                visitCount: numbers.visitCount, lastVisit: numbers.lastVisit))
    }

    /// The facts of the region in the statement's current row, or why `region(_:)` would not
    /// read it (the same problem: the columns are checked in the same order).
    func facts(_ s: SQLiteStatement) -> Result<RegionFacts, UnreadableRegion> {
        read(s).map { numbers, names in
            let v = names.values
            return RegionFacts(
                latitude: numbers.latitude, longitude: numbers.longitude, radius: numbers.radius, start: numbers.start,
                lastVisit: numbers.lastVisit, end: numbers.end, countryCode: v.countryCode, provinceCode: v.provinceCode,
                districtCode: v.districtCode, country: v.country, locality: v.locality, localityID: v.localityID)
        }
    }

    private struct Numbers {
        var id: Int64, latitude: Double, longitude: Double, radius: Int, start: Date, end: Date?, lastVisit: Date, visitCount: Int
    }

    /// Every column checked; all but the geohash read.
    private func read(_ s: SQLiteStatement) -> Result<(Numbers, RegionNames), UnreadableRegion> {
        guard sqlite3_column_type(s, 0) == SQLITE_INTEGER else {
            return .failure(UnreadableRegion(id: -1, problem: "id has the wrong type"))
        }
        func isNumber(_ column: Int32) -> Bool {
            let type = sqlite3_column_type(s, column)
            return type == SQLITE_FLOAT || type == SQLITE_INTEGER
        }
        if !isNumber(1) { return .failure(wrongType(s, 1)) }
        if !isNumber(2) { return .failure(wrongType(s, 2)) }
        if sqlite3_column_type(s, 3) != SQLITE_INTEGER { return .failure(wrongType(s, 3)) }
        if sqlite3_column_type(s, 8) != SQLITE_INTEGER { return .failure(wrongType(s, 8)) }
        if sqlite3_column_type(s, 9) != SQLITE_INTEGER { return .failure(wrongType(s, 9)) }
        if sqlite3_column_type(s, 7) != SQLITE_TEXT { return .failure(wrongType(s, 7)) }
        let start: Date, lastVisit: Date, end: Date?
        switch time(s, 4) {
        case let .success(date?): start = date
        case .success(nil): return .failure(wrongType(s, 4))
        case let .failure(problem): return .failure(problem)
        }
        switch time(s, 6) {
        case let .success(date?): lastVisit = date
        case .success(nil): return .failure(wrongType(s, 6))
        case let .failure(problem): return .failure(problem)
        }
        switch time(s, 5) {
        case let .success(date): end = date
        case let .failure(problem): return .failure(problem)
        }
        let placeID = sqlite3_column_int64(s, 9)
        let names: RegionNames
        switch places[placeID] {
        case let .named(named)?: names = named
        case let .unreadable(reason)?: return .failure(problem(s, reason))
        case nil: return .failure(problem(s, "place_id \(placeID) names no place"))
        }
        let numbers = Numbers(
            id: sqlite3_column_int64(s, 0), latitude: sqlite3_column_double(s, 1), longitude: sqlite3_column_double(s, 2),
            radius: Int(sqlite3_column_int64(s, 3)), start: start, end: end, lastVisit: lastVisit,
            visitCount: Int(sqlite3_column_int64(s, 8)))
        if let invalid = VisitedRegion.problem(
            latitude: numbers.latitude, longitude: numbers.longitude, radius: numbers.radius, visitCount: numbers.visitCount)
        {
            return .failure(problem(s, invalid.description))
        }
        return .success((numbers, names))
    }

    /// The time in `column`: nil for NULL, a problem for another type or a time outside the store's years.
    private func time(_ s: SQLiteStatement, _ column: Int32) -> Result<Date?, UnreadableRegion> {
        switch sqlite3_column_type(s, column) {
        case SQLITE_NULL: return .success(nil)
        case SQLITE_INTEGER:
            let milliseconds = sqlite3_column_int64(s, column)
            guard let date = StoreTime.date(milliseconds: milliseconds) else {
                return .failure(problem(s, "\(Self.names[Int(column)]) \(milliseconds) is outside the years 0000–9999"))
            }
            return .success(date)
        case SQLITE_TEXT:
            let text = String(
                decoding: UnsafeBufferPointer(start: sqlite3_column_text(s, column), count: Int(sqlite3_column_bytes(s, column))),
                as: UTF8.self)
            return .failure(problem(s, "\(Self.names[Int(column)]) holds '\(text.prefix(40))', not milliseconds since 1970"))
        default: return .failure(wrongType(s, column))
        }
    }

    private func wrongType(_ s: SQLiteStatement, _ column: Int32) -> UnreadableRegion {
        problem(s, "\(Self.names[Int(column)]) has the wrong type")
    }

    private func problem(_ s: SQLiteStatement, _ text: String) -> UnreadableRegion {
        UnreadableRegion(id: sqlite3_column_type(s, 0) == SQLITE_INTEGER ? sqlite3_column_int64(s, 0) : -1, problem: text)
    }
}

extension RegionStore {
    /// Centre and radius of every region whose centre and radius are valid (as `validate()` has
    /// them), in id order, read from those three columns only: what the page's fog draws (a row
    /// unreadable for another reason, a time that does not parse, still lights its place).
    /// - Throws: `RegionStoreError.cannotOpen` when the store cannot be read.
    package func circles() throws -> [(latitude: Double, longitude: Double, radius: Int)] {
        try read { db in
            var circles: [(latitude: Double, longitude: Double, radius: Int)] = []
            circles.reserveCapacity(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM visited_regions") ?? 0)
            let statement = try db.makeStatement(sql: "SELECT latitude, longitude, radius FROM visited_regions ORDER BY id")
            let rows = try Row.fetchCursor(statement)
            let s = statement.sqliteStatement
            let numbers: Set<Int32> = [SQLITE_FLOAT, SQLITE_INTEGER]
            while try rows.next() != nil {
                guard numbers.contains(sqlite3_column_type(s, 0)), numbers.contains(sqlite3_column_type(s, 1)),
                    sqlite3_column_type(s, 2) == SQLITE_INTEGER
                else { continue }
                let latitude = sqlite3_column_double(s, 0), longitude = sqlite3_column_double(s, 1)
                let radius = sqlite3_column_int64(s, 2)
                guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180,
                    (1...Int64(ClusteringSettings.radiusRange.upperBound)).contains(radius)
                else { continue }
                circles.append((latitude, longitude, Int(radius)))
            }
            return circles
        }
    }
}
