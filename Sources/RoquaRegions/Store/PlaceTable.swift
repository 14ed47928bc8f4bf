import Foundation
import GRDB
import GRDBSQLite

/// The places regions lie in: each distinct set of names (country, province, district, locality,
/// their codes, and the boundary database that gave them) is one row of `places`, and a region
/// holds its place's id. A million regions lie in a few thousand places, so a region's row is
/// ten narrow columns instead of eighteen, and a reader looks each place up once (v10).
///
/// Every place is one some region lies in: the writes that rename or remove regions drop the
/// places left without one (`dropUnused`), so no name outlives what it named.
enum PlaceTable {
    /// The name columns, in `RegionNames.Values`' order as `read` and `PlaceIDs` use them.
    static let columns = "country, country_code, province, province_code, district, district_code, locality, locality_id, enriched_with"
    private static let names = columns.components(separatedBy: ", ")

    /// A place as a reader finds it: its names, or why they cannot be read (naming the column).
    enum Place {
        case named(RegionNames)
        case unreadable(String)
    }

    /// Every place by id.
    static func read(_ db: Database) throws -> [Int64: Place] {
        var places: [Int64: Place] = [:]
        let statement = try db.makeStatement(sql: "SELECT id, \(columns) FROM places")
        let rows = try Row.fetchCursor(statement)
        let s = statement.sqliteStatement
        while try rows.next() != nil {
            guard sqlite3_column_type(s, 0) == SQLITE_INTEGER else { continue }  // no region can name it
            places[sqlite3_column_int64(s, 0)] = place(s)
        }
        return places
    }

    /// The names in the statement's current row (the id first, then `columns`).
    private static func place(_ s: OpaquePointer) -> Place {
        var texts: [String?] = []
        for column in Int32(1)...9 where column != 8 {
            switch sqlite3_column_type(s, column) {
            case SQLITE_NULL: texts.append(nil)
            case SQLITE_TEXT:
                let count = Int(sqlite3_column_bytes(s, column))
                texts.append(
                    sqlite3_column_text(s, column).map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) }
                        ?? "")
            default: return .unreadable("its place's \(names[Int(column) - 1]) has the wrong type")
            }
        }
        let localityType = sqlite3_column_type(s, 8)
        guard localityType == SQLITE_NULL || localityType == SQLITE_INTEGER else {
            return .unreadable("its place's locality_id has the wrong type")
        }
        return .named(
            RegionNames.of(
                RegionNames.Values(
                    province: texts[2], district: texts[4], country: texts[0], countryCode: texts[1], provinceCode: texts[3],
                    districtCode: texts[5], enrichedWith: texts[7], locality: texts[6],
                    localityID: localityType == SQLITE_NULL ? nil : sqlite3_column_int64(s, 8))))
    }

    /// Deletes the places no region lies in.
    static func dropUnused(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM places WHERE id NOT IN (SELECT place_id FROM visited_regions WHERE place_id IS NOT NULL)")
    }

    /// The v10 migration: `places` made from the regions' names (in the order regions first name
    /// them), and `visited_regions` made again with integer times (`StoreTime.milliseconds`) and a
    /// place id in place of its nine name columns; ids and the id sequence kept, the product's
    /// three indexes made again (the country's on `places`), the codes' and locality's dropped
    /// (`places` is small). A value an older Roqua could not read either (a time that does not
    /// parse) is copied as it is, so the row stays reported as unreadable rather than lost.
    static func migrate(_ db: Database) throws {
        let function = DatabaseFunction("roqua_store_ms", argumentCount: 1, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]), let date = StoreTime.date(text),
                let milliseconds = try? StoreTime.milliseconds(date)
            else { return values[0] }
            return milliseconds
        }
        db.add(function: function)
        defer { db.remove(function: function) }
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'visited_regions'")
        let match = names.map { "p.\($0) IS r.\($0)" }.joined(separator: " AND ")
        try db.execute(
            sql: """
                CREATE TABLE places (
                    id INTEGER PRIMARY KEY,
                    country TEXT, country_code TEXT, province TEXT, province_code TEXT, district TEXT, district_code TEXT,
                    locality TEXT, locality_id INTEGER, enriched_with TEXT
                );
                INSERT INTO places (\(columns)) SELECT \(columns) FROM visited_regions GROUP BY \(columns) ORDER BY MIN(id);
                CREATE INDEX places_by_names ON places (\(columns));
                CREATE TABLE narrow_regions (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    latitude REAL NOT NULL,
                    longitude REAL NOT NULL,
                    radius INTEGER NOT NULL,
                    start_ms INTEGER NOT NULL,
                    end_ms INTEGER,
                    last_visit_ms INTEGER NOT NULL,
                    geohash TEXT NOT NULL,
                    visit_count INTEGER NOT NULL DEFAULT 1,
                    place_id INTEGER NOT NULL
                );
                INSERT INTO narrow_regions
                    SELECT r.id, r.latitude, r.longitude, r.radius, roqua_store_ms(r.timestamp_start), roqua_store_ms(r.timestamp_end),
                           roqua_store_ms(r.last_visit), r.geohash, r.visit_count, (SELECT p.id FROM places p WHERE \(match))
                    FROM visited_regions r ORDER BY r.id;
                DROP INDEX places_by_names;
                DROP TABLE visited_regions;
                ALTER TABLE narrow_regions RENAME TO visited_regions;
                CREATE INDEX idx_regions_location ON visited_regions(latitude, longitude);
                CREATE INDEX idx_regions_geohash ON visited_regions(geohash);
                CREATE INDEX idx_regions_country ON places(country);
                DELETE FROM sqlite_sequence WHERE name = 'visited_regions';
                """)
        if let sequence {
            try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('visited_regions', ?)", arguments: [sequence])
        }
    }
}

/// The ids of places as regions are written: found among the store's places, or added.
struct PlaceIDs {
    private var ids: [RegionNames.Values: Int64] = [:]
    /// The last names looked up and their id: neighbouring regions share one `RegionNames`.
    private var last: (names: RegionNames, id: Int64)?
    private let insert: Statement

    init(_ db: Database) throws {
        for (id, place) in try PlaceTable.read(db) {
            guard case let .named(names) = place else { continue }
            if let known = ids[names.values], known < id { continue }
            ids[names.values] = id
        }
        insert = try db.makeStatement(sql: "INSERT INTO places (\(PlaceTable.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
    }

    /// The id of the place named `names`, added to `places` when it is new.
    mutating func id(_ names: RegionNames, _ db: Database) throws -> Int64 {
        if let last, last.names === names { return last.id }
        let id: Int64
        let v = names.values
        if let known = ids[v] {
            id = known
        } else {
            try insert.execute(arguments: [
                v.country, v.countryCode, v.province, v.provinceCode, v.district, v.districtCode, v.locality, v.localityID, v.enrichedWith,
            ])
            id = db.lastInsertedRowID
            ids[v] = id
        }
        last = (names, id)
        return id
    }
}
