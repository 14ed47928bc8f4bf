import Foundation
import GRDB
import GRDBSQLite
import RoquaIO

/// Reads `visited_regions` rows from SQLite's columns by position, for stores of a million
/// regions: the `Codable` decoder looks every column up by name in a dictionary (about 3 µs a
/// row, most of `roqua stats` at 1 M regions). A name equal to the same column's in the row
/// before is shared rather than made again, and all of a region's names (`RegionNames`) when they
/// are those of the row before (rows in id order are mostly in the same places).
///
/// It reads only rows whose every column has the type the `Codable` form reads without
/// conversion (real or integer coordinates, integer counts, text or NULL names, text times that
/// parse, no NUL inside a text); for any other row it returns nil and the caller decodes it the
/// general way, which gives the same region or the same error naming the column.
struct RegionRowReader {
    /// The columns, in the order `region(_:)` reads them.
    static let columns = """
        id, latitude, longitude, radius, timestamp_start, timestamp_end, province, district, country, geohash, \
        country_code, province_code, district_code, visit_count, last_visit, enriched_with, locality, locality_id
        """
    private var last = [String?](repeating: nil, count: 18)
    /// The names of the row before, shared by this row when they are the same.
    private var lastNames: RegionNames?
    private var timeBytes: [UInt8] = []

    /// The region in the statement's current row, or nil when the row needs the general decoder.
    mutating func region(_ s: SQLiteStatement) -> VisitedRegion? {
        guard let (facts, rest) = read(s, whole: true), let rest else { return nil }
        // Compared field by field, not as a `Values` made first: that copy is a retain and a
        // release per name, per row, most of them for names equal to the row before's.
        let same =
            lastNames.map { names in
                names.values.province == rest.province && names.values.district == rest.district
                    && names.values.country == facts.country && names.values.countryCode == facts.countryCode
                    && names.values.provinceCode == facts.provinceCode && names.values.districtCode == facts.districtCode
                    && names.values.enrichedWith == rest.enrichedWith && names.values.locality == facts.locality
                    && names.values.localityID == facts.localityID
            } ?? false
        if !same {
            lastNames = RegionNames.of(
                RegionNames.Values(
                    province: rest.province, district: rest.district, country: facts.country, countryCode: facts.countryCode,
                    provinceCode: facts.provinceCode, districtCode: facts.districtCode, enrichedWith: rest.enrichedWith,
                    locality: facts.locality, localityID: facts.localityID))
        }
        return VisitedRegion(
            id: rest.id, latitude: facts.latitude, longitude: facts.longitude, radius: facts.radius,
            timestampStart: facts.start, timestampEnd: facts.end, names: lastNames ?? .none,
            geohash: rest.geohash, visitCount: rest.visitCount, lastVisit: facts.lastVisit)
    }

    /// The facts of the region in the statement's current row when `region(_:)` would read it and
    /// it passes `VisitedRegion.validate()`; nil when the row needs the general decoder. The other
    /// columns are checked as `region(_:)` checks them, not made into values.
    mutating func facts(_ s: SQLiteStatement) -> RegionFacts? {
        guard let (facts, _) = read(s, whole: false),
            VisitedRegion.isValid(
                latitude: facts.latitude, longitude: facts.longitude, radius: facts.radius,
                visitCount: Int(sqlite3_column_int64(s, 13)))
        else { return nil }
        return facts
    }

    private struct Rest {
        var id: Int64, province: String?, district: String?, geohash: String, visitCount: Int, enrichedWith: String?
    }

    /// Every column checked; the columns outside the facts made into values only when `whole`.
    private mutating func read(_ s: SQLiteStatement, whole: Bool) -> (RegionFacts, Rest?)? {
        guard sqlite3_column_type(s, 0) == SQLITE_INTEGER,
            let latitude = real(s, 1), let longitude = real(s, 2),
            sqlite3_column_type(s, 3) == SQLITE_INTEGER, sqlite3_column_type(s, 13) == SQLITE_INTEGER,
            let start = time(s, 4), let end = optionalTime(s, 5), let lastVisit = time(s, 14, sameAs: 4, start),
            let country = text(s, 8), let countryCode = text(s, 10), let provinceCode = text(s, 11),
            let districtCode = text(s, 12), let locality = text(s, 16)
        else { return nil }
        let localityType = sqlite3_column_type(s, 17)
        guard localityType == SQLITE_NULL || localityType == SQLITE_INTEGER else { return nil }
        let facts = RegionFacts(
            latitude: latitude, longitude: longitude, radius: Int(sqlite3_column_int64(s, 3)),
            start: start, lastVisit: lastVisit, end: end, countryCode: countryCode, provinceCode: provinceCode,
            districtCode: districtCode, country: country, locality: locality,
            localityID: localityType == SQLITE_NULL ? nil : sqlite3_column_int64(s, 17))
        guard whole else {
            guard Self.isText(s, 6), Self.isText(s, 7), Self.isText(s, 9, orNull: false), Self.isText(s, 15) else { return nil }
            return (facts, nil)
        }
        guard let province = text(s, 6), let district = text(s, 7), let geohash = text(s, 9) ?? nil,
            let enrichedWith = text(s, 15)
        else { return nil }
        return (
            facts,
            Rest(
                id: sqlite3_column_int64(s, 0), province: province, district: district, geohash: geohash,
                visitCount: Int(sqlite3_column_int64(s, 13)), enrichedWith: enrichedWith)
        )
    }

    /// Whether `text(_:_:)` would read the column (a text without NUL, or NULL when `orNull`).
    private static func isText(_ s: SQLiteStatement, _ column: Int32, orNull: Bool = true) -> Bool {
        switch sqlite3_column_type(s, column) {
        case SQLITE_NULL: orNull
        case SQLITE_TEXT: bytes(s, column) != nil
        default: false
        }
    }

    private func real(_ s: SQLiteStatement, _ column: Int32) -> Double? {
        let type = sqlite3_column_type(s, column)
        return type == SQLITE_FLOAT || type == SQLITE_INTEGER ? sqlite3_column_double(s, column) : nil
    }

    /// `.some(nil)` for NULL, `.some(text)` for a text without NUL, nil for anything else.
    private mutating func text(_ s: SQLiteStatement, _ column: Int32) -> String?? {
        switch sqlite3_column_type(s, column) {
        case SQLITE_NULL: return .some(nil)
        case SQLITE_TEXT:
            guard let bytes = Self.bytes(s, column) else { return nil }
            let index = Int(column)
            if let previous = last[index], Self.equal(previous, bytes) { return .some(previous) }
            let made = String(decoding: bytes, as: UTF8.self)
            last[index] = made
            return .some(made)
        default: return nil
        }
    }

    private mutating func time(_ s: SQLiteStatement, _ column: Int32) -> Date? {
        guard sqlite3_column_type(s, column) == SQLITE_TEXT, let bytes = Self.bytes(s, column) else { return nil }
        timeBytes.removeAll(keepingCapacity: true)
        timeBytes.append(contentsOf: bytes)
        return TimeText.iso8601(bytes: timeBytes[...])
    }

    /// As `time(_:_:)`, `value` without parsing when the text is that of column `other` (a
    /// region visited once has its latest visit's text equal to its start's).
    private mutating func time(_ s: SQLiteStatement, _ column: Int32, sameAs other: Int32, _ value: Date) -> Date? {
        if sqlite3_column_type(s, column) == SQLITE_TEXT, sqlite3_column_type(s, other) == SQLITE_TEXT,
            let text = Self.bytes(s, column), let known = Self.bytes(s, other), text.count == known.count,
            text.isEmpty || memcmp(text.baseAddress!, known.baseAddress!, text.count) == 0
        {
            return value
        }
        return time(s, column)
    }

    /// `.some(nil)` for NULL, the time for a text that parses, nil for anything else.
    private mutating func optionalTime(_ s: SQLiteStatement, _ column: Int32) -> Date?? {
        sqlite3_column_type(s, column) == SQLITE_NULL ? .some(nil) : time(s, column).map { .some($0) }
    }

    /// The text's bytes, or nil when it holds a NUL (the general decoder stops there).
    private static func bytes(_ s: SQLiteStatement, _ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        let start = sqlite3_column_text(s, column)
        let count = Int(sqlite3_column_bytes(s, column))
        guard let start else { return count == 0 ? UnsafeBufferPointer(start: nil, count: 0) : nil }
        let bytes = UnsafeBufferPointer(start: start, count: count)
        return memchr(start, 0, count) == nil ? bytes : nil
    }

    private static func equal(_ string: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var string = string
        return string.withUTF8 { $0.count == bytes.count && ($0.isEmpty || memcmp($0.baseAddress!, bytes.baseAddress!, $0.count) == 0) }
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
