import Foundation
import GRDB
import RoquaBoundaries

/// Schema v4: flights, days per place and explorer tiles — and a store from before them
/// re-evaluated once. Its fixes were never kept, only its regions, so each region's first and
/// last visit stand in for fixes: run through `FlightFilter` in time order, a region none of
/// whose times is on the ground (a fix in flight, or a glitch) is moved to `flight_regions`
/// (kept, no longer counted), the flights found are recorded, and presence and tiles are filled
/// from the regions that stay. What changed is left in `upgrade_notes` for `roqua stats` to say.
enum TravelUpgrade {
    static func migrate(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE flights (
                    id INTEGER PRIMARY KEY,
                    start TEXT NOT NULL,
                    end TEXT NOT NULL,
                    from_latitude REAL NOT NULL,
                    from_longitude REAL NOT NULL,
                    to_latitude REAL NOT NULL,
                    to_longitude REAL NOT NULL,
                    from_code TEXT,
                    from_name TEXT,
                    to_code TEXT,
                    to_name TEXT,
                    km REAL NOT NULL,
                    fixes INTEGER NOT NULL,
                    path TEXT NOT NULL,
                    UNIQUE (start, end)
                );
                CREATE TABLE presence (
                    bucket INTEGER NOT NULL,
                    country_code TEXT NOT NULL,
                    province_code TEXT NOT NULL,
                    district_code TEXT NOT NULL,
                    PRIMARY KEY (bucket, country_code, province_code, district_code)
                ) WITHOUT ROWID;
                CREATE TABLE tiles (x INTEGER NOT NULL, y INTEGER NOT NULL, PRIMARY KEY (x, y)) WITHOUT ROWID;
                CREATE TABLE flight_regions AS SELECT * FROM visited_regions WHERE 0;
                CREATE TABLE upgrade_notes (id INTEGER PRIMARY KEY, at TEXT NOT NULL, message TEXT NOT NULL,
                                            shown INTEGER NOT NULL DEFAULT 0);
                """)
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT id, latitude, longitude, timestamp_start, timestamp_end, country, city, district,
                       country_code, province_code, district_code FROM visited_regions
                """)
        guard !rows.isEmpty else { return }
        struct Stand {
            var id: Int64
            var row: Row
        }
        var stands: [Stand] = []
        var fixes: [Fix] = []
        for row in rows {
            guard let start = StoreTime.date(row["timestamp_start"]) else { continue }
            let coordinate = Coordinate(latitude: row["latitude"], longitude: row["longitude"])
            for time in Set([start, (row["timestamp_end"] as String?).flatMap(StoreTime.date) ?? start]) {
                fixes.append(Fix(coordinate: coordinate, timestamp: time, position: stands.count))
                stands.append(Stand(id: row["id"], row: row))
            }
        }
        fixes.sort { ($0.timestamp, $0.position) < ($1.timestamp, $1.position) }
        var filter = FlightFilter()
        var ground = Set<Int64>(), flights: [Flight] = []
        var travel = TravelRecorder()
        for decision in fixes.flatMap({ filter.push($0) }) + filter.finish() {
            switch decision {
            case let .ground(fix):
                ground.insert(stands[fix.position].id)
                travel.ground(fix, region: fix.position)
            case let .flight(flight): flights.append(flight)
            case .glitch: break
            }
        }
        var places: [String: (code: String?, name: String?)] = [:]
        for stand in stands {
            let key = "\(stand.row["latitude"] as Double),\(stand.row["longitude"] as Double)"
            places[key] = (stand.row["country_code"], stand.row["district"] ?? stand.row["city"] ?? stand.row["country"])
        }
        for flight in flights { travel.flight(flight) }
        // Presence and tiles need only a region's codes.
        let codes = stands.map { stand in
            VisitedRegion(
                latitude: stand.row["latitude"], longitude: stand.row["longitude"], radius: 0, timestampStart: .distantPast,
                countryCode: stand.row["country_code"], provinceCode: stand.row["province_code"],
                districtCode: stand.row["district_code"], geohash: "")
        }
        try travel.write(
            db, region: { codes[$0] },
            place: { places["\($0.latitude),\($0.longitude)"] ?? (nil, nil) })
        let moved = Set(stands.map(\.id)).subtracting(ground).sorted()
        for id in moved {
            try db.execute(sql: "INSERT INTO flight_regions SELECT * FROM visited_regions WHERE id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM visited_regions WHERE id = ?", arguments: [id])
        }
        let message =
            "Upgraded for flights, days per place and explorer tiles: \(moved.count) region(s) taken in flight or "
            + "from a GPS glitch no longer count (kept apart), \(flights.count) flight(s) found. Days and tiles from before the "
            + "upgrade come from each region's first and last visit only (the store kept no other fixes)."
        try db.execute(sql: "INSERT INTO upgrade_notes (at, message) VALUES (?, ?)", arguments: [try StoreTime.text(Date()), message])
    }
}
