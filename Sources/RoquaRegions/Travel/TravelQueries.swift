import Foundation
import GRDB
import GRDBSQLite
import RoquaBoundaries

/// A flight as `roqua stats` lists it.
public struct FlightRecord: Sendable, Equatable, Encodable {
    /// The departure's place and country code (nil where the track began in the air).
    public var from: String?
    public var fromCode: String?
    public var to: String?
    public var toCode: String?
    public var start: Date
    public var end: Date
    public var km: Double
    /// Fixes taken in the air.
    public var fixes: Int
}

/// Days with at least one ground fix per unit, in one year and time zone (`roqua stats days`).
public struct DaysReport: Sendable, Equatable, Encodable {
    public struct Unit: Sendable, Equatable, Encodable {
        public var code: String
        public var name: String
        public var days: Int
    }

    public var year: Int
    public var level: String
    public var timeZone: String
    /// Sorted by days, most first (then code).
    public var units: [Unit]
}

extension RegionStore {
    /// Every flight, in time order.
    public func flights() throws -> [FlightRecord] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM flights ORDER BY start, id").map { row in
                FlightRecord(
                    from: row["from_name"], fromCode: row["from_code"], to: row["to_name"], toCode: row["to_code"],
                    start: StoreTime.date(row["start"]) ?? .distantPast, end: StoreTime.date(row["end"]) ?? .distantPast,
                    km: row["km"], fixes: row["fixes"])
            }
        }
    }

    /// The tiles ground fixes touched, at zoom 17 or any coarser zoom.
    public func visitedTiles(zoom: Int) throws -> Set<Tile> {
        try read { db in try Self.visitedTiles(db, zoom: zoom) }
    }

    /// As `visitedTiles(zoom:)` inside a transaction already open (the achievements').
    public static func visitedTiles(_ db: Database, zoom: Int) throws -> Set<Tile> {
        precondition((0...TravelRecorder.tileZoom).contains(zoom))
        let shift = TravelRecorder.tileZoom - zoom
        var tiles = Set<Tile>()
        // Read by position, a row whose x or y is not an integer (edited by hand) passed over:
        // GRDB's typed subscript counted 'abc' as tile 0 and 2.5 as 2, and cost a tenth more at
        // 800 k tiles. Rows come in key order, x then y, so the tiles a column of level-17 tiles
        // makes at `zoom` follow each other: one equal to the last is not hashed again.
        let statement = try db.makeStatement(sql: "SELECT x, y FROM tiles")
        let rows = try Row.fetchCursor(statement)
        var last: Tile?
        while try rows.next() != nil {
            let s = statement.sqliteStatement
            guard sqlite3_column_type(s, 0) == SQLITE_INTEGER, sqlite3_column_type(s, 1) == SQLITE_INTEGER else { continue }
            let tile = Tile(x: Int(sqlite3_column_int64(s, 0)) >> shift, y: Int(sqlite3_column_int64(s, 1)) >> shift)
            if tile != last {
                tiles.insert(tile)
                last = tile
            }
        }
        return tiles
    }

    /// The `presence` rows every query counts: a quarter-hour that is not an integer (a row edited
    /// by hand: 3.7 was counted as quarter-hour 3 of 1970, 'abc' as 0) is passed over, as tiles are.
    static let integerBucket = "typeof(bucket) = 'integer'"

    /// Days (in `zone`'s calendar, all years) with a ground fix in a country other than home,
    /// home being the country with the most such days. A day at home and abroad counts.
    public static func daysAbroad(_ db: Database, zone: TimeZone) throws -> Int {
        var days: [String: Set<Int>] = [:]
        var offsets: [Int: Int] = [:]
        let rows = try Row.fetchCursor(
            db, sql: "SELECT DISTINCT bucket, country_code FROM presence WHERE \(Self.integerBucket) AND country_code <> ''")
        while let row = try rows.next() {
            let bucket: Int = row[0], code: String = row[1]
            days[code, default: []].insert(localDay(bucket: bucket, zone: zone, offsets: &offsets))
        }
        guard let home = days.max(by: { ($0.value.count, $1.key) < ($1.value.count, $0.key) })?.key else { return 0 }
        return days.filter { $0.key != home }.values.reduce(into: Set<Int>()) { $0.formUnion($1) }.count
    }

    /// The local day number (days since 1970-01-01 in `zone`) of a quarter-hour, the zone's offset
    /// looked up once per UTC hour (`offsets` caches them).
    static func localDay(bucket: Int, zone: TimeZone, offsets: inout [Int: Int]) -> Int {
        let seconds = Double(bucket) * TravelRecorder.bucketSeconds
        let hour = Int(seconds / 3600)
        let offset =
            offsets[hour]
            ?? {
                let value = zone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds))
                offsets[hour] = value
                return value
            }()
        return Int(((seconds + Double(offset)) / 86_400).rounded(.down))
    }

    /// Calendar days of `year` in `zone` with at least one ground fix in each unit of `level`
    /// (a day in two units counts for both). `level` is `country`, `province` or `district`.
    public func days(year: Int, level: AdminLevel, zone: TimeZone) throws -> DaysReport {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard let first = calendar.date(from: DateComponents(year: year, month: 1, day: 1)),
            let after = calendar.date(from: DateComponents(year: year + 1, month: 1, day: 1))
        else {
            return DaysReport(year: year, level: level.description, timeZone: zone.identifier, units: [])
        }
        let column =
            switch level {
            case .country: "country_code"
            case .province: "province_code"
            case .district: "district_code"
            }
        let low = TravelRecorder.bucket(first), high = TravelRecorder.bucket(after) - 1
        return try read { db in
            var days: [String: Set<Int>] = [:]
            // Each quarter-hour lies in one local day.
            var offsets: [Int: Int] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT DISTINCT bucket, \(column) FROM presence WHERE \(Self.integerBucket) AND bucket BETWEEN ? AND ? AND \(column) <> ''
                    """, arguments: [low, high])
            while let row = try rows.next() {
                let bucket: Int = row[0], code: String = row[1]
                days[code, default: []].insert(Self.localDay(bucket: bucket, zone: zone, offsets: &offsets))
            }
            let names = try Self.unitNames(db, level: level, codes: Set(days.keys), buckets: low...high)
            let units = days.map { DaysReport.Unit(code: $0.key, name: names[$0.key] ?? $0.key, days: $0.value.count) }
                .sorted { ($1.days, $0.code) < ($0.days, $1.code) }
            return DaysReport(year: year, level: level.description, timeZone: zone.identifier, units: units)
        }
    }

    /// The name regions' places give each of `codes` (the code itself when none has one), looked
    /// up from each unit's country, province and district in `presence` (a scan of every region
    /// for its names took 0.2 s at a million regions).
    static func unitNames(_ db: Database, level: AdminLevel, codes: Set<String>, buckets: ClosedRange<Int>) throws -> [String: String] {
        let (code, name) =
            switch level {
            case .country: ("country_code", "country")
            case .province: ("province_code", "province")
            case .district: ("district_code", "district")
            }
        var names: [String: String] = [:]
        let units = try Row.fetchCursor(
            db,
            sql: """
                SELECT DISTINCT country_code, province_code, district_code FROM presence WHERE \(Self.integerBucket) AND bucket BETWEEN ? AND ?
                """, arguments: [buckets.lowerBound, buckets.upperBound])
        let path = ["country_code", "province_code", "district_code"].prefix { $0 != code } + [code]
        let lookup = try db.makeStatement(
            sql: """
                SELECT \(name) FROM places WHERE \(path.map { "\($0) IS ?" }.joined(separator: " AND ")) AND \(name) IS NOT NULL
                ORDER BY id LIMIT 1
                """)
        while let row = try units.next() {
            let codes3: [String] = [row[0], row[1], row[2]]
            let unit = codes3[path.count - 1]
            guard codes.contains(unit), names[unit] == nil else { continue }
            // `presence` writes '' where a region has no code (NULL).
            let arguments = StatementArguments(codes3.prefix(path.count).map { $0.isEmpty ? nil : $0 })
            names[unit] = try String.fetchOne(lookup, arguments: arguments)
        }
        for unit in codes where names[unit] == nil { names[unit] = unit }
        return names
    }

    /// When the last ground fix was (to its quarter-hour), or nil when none is recorded.
    public func lastOnTheGround() throws -> Date? {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT MAX(bucket) FROM presence WHERE \(Self.integerBucket)").map {
                Date(timeIntervalSince1970: Double($0) * TravelRecorder.bucketSeconds)
            }
        }
    }

    /// When the first ground fix was (to its quarter-hour), or nil when none is recorded.
    public func firstOnTheGround() throws -> Date? {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT MIN(bucket) FROM presence WHERE \(Self.integerBucket)").map {
                Date(timeIntervalSince1970: Double($0) * TravelRecorder.bucketSeconds)
            }
        }
    }

    /// What upgrades of the store changed, newest first, with when.
    public func upgradeNotes() throws -> [(at: Date, message: String)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT at, message FROM upgrade_notes ORDER BY id DESC").map {
                (StoreTime.date($0["at"]) ?? .distantPast, $0["message"])
            }
        }
    }
}
