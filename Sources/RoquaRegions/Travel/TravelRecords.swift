import Foundation
import GRDB
import RoquaBoundaries

/// A Web-Mercator map tile (the slippy-map scheme: x east from −180°, y south from ~85.05°N).
public struct Tile: Hashable, Sendable, Comparable {
    public var x: Int
    public var y: Int

    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    /// The tile holding a point at `zoom` (latitudes clamped to Web Mercator's ±85.0511°).
    public init(latitude: Double, longitude: Double, zoom: Int) {
        let position = Self.position(latitude: latitude, longitude: longitude, zoom: zoom)
        x = min(Int(position.x.rounded(.down)), (1 << zoom) - 1)
        y = min(Int(position.y.rounded(.down)), (1 << zoom) - 1)
    }

    /// Where a point lies at `zoom`, in tiles (fractional; latitudes clamped to ±85.0511°).
    public static func position(latitude: Double, longitude: Double, zoom: Int) -> (x: Double, y: Double) {
        let n = Double(1 << zoom)
        let lat = min(max(latitude, -85.05112878), 85.05112878) * .pi / 180
        return ((longitude + 180) / 360 * n, (1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * n)
    }

    /// The tile's edges in degrees at `zoom` (north and south by the inverse Mercator).
    public func bounds(zoom: Int) -> (west: Double, east: Double, north: Double, south: Double) {
        let n = Double(1 << zoom)
        func latitude(_ y: Int) -> Double { atan(sinh(.pi * (1 - 2 * Double(y) / n))) * 180 / .pi }
        return (Double(x) / n * 360 - 180, Double(x + 1) / n * 360 - 180, latitude(y), latitude(y + 1))
    }

    /// The tile holding this one at a coarser zoom (`levels` fewer).
    public func parent(levels: Int) -> Tile { Tile(x: x >> levels, y: y >> levels) }

    public static func < (a: Tile, b: Tile) -> Bool { (a.y, a.x) < (b.y, b.x) }
}

/// What an import adds to the travel records beside its regions: the quarter-hours it was
/// on the ground in each region (for days per place), the zoom-17 tiles its ground fixes
/// touched, its flights.
struct TravelRecorder {
    /// Tiles are kept at zoom 17; zoom 14 is each one's parent three levels up.
    static let tileZoom = 17
    /// Presence is kept per quarter-hour (UTC): every time zone's offset is a multiple of 15
    /// minutes, so each quarter lies in one local day whatever zone days are counted in.
    static let bucketSeconds = 900.0

    /// Quarter hours and the regions in them, packed (`bucket << 32 | region`), in the order met;
    /// sorted and made unique when they pass `compactAt` and when written: 8 bytes an entry and
    /// no hash table (a set of them was 34 MB of a ten-year history's import).
    private(set) var presence: [Int64] = []
    private(set) var tiles = Set<Tile>()
    private(set) var flights: [Flight] = []
    /// Entries kept before duplicates are first removed (then again each time they have doubled):
    /// memory stays within twice the distinct quarter hours and regions even for a file that goes
    /// back and forth between two regions, and sorting stays O(n log n) in all.
    static let compactAt = 1 << 20
    private var compactedCount = 0

    static func bucket(_ date: Date) -> Int { Int((date.timeIntervalSince1970 / bucketSeconds).rounded(.down)) }

    /// The last presence and tile recorded, and the tile's bounds in degrees: consecutive fixes
    /// mostly share them, and are then not hashed again (nor their tile computed).
    private var lastPresence: Int64?
    private var lastTile: (west: Double, east: Double, north: Double, south: Double)?

    mutating func ground(_ fix: Fix, region: Int) {
        // Buckets of 1970–2100 (the time window every fix is in) and region indices fit 32 bits.
        let packed = Int64(Self.bucket(fix.timestamp)) << 32 | Int64(UInt32(truncatingIfNeeded: region))
        if packed != lastPresence {
            presence.append(packed)
            lastPresence = packed
            if presence.count >= max(Self.compactAt, 2 * compactedCount) {
                Self.sortUnique(&presence)
                compactedCount = presence.count
            }
        }
        let (lat, lon) = (fix.coordinate.latitude, fix.coordinate.longitude)
        if let box = lastTile, lon > box.west, lon < box.east, lat < box.north, lat > box.south { return }
        let tile = Tile(latitude: lat, longitude: lon, zoom: Self.tileZoom)
        tiles.insert(tile)
        // A hair inside the edges: a fix within rounding of one is computed, never guessed.
        let edges = tile.bounds(zoom: Self.tileZoom), hair = 1e-9
        lastTile = (edges.west + hair, edges.east - hair, edges.north - hair, edges.south + hair)
    }

    mutating func flight(_ flight: Flight) { flights.append(flight) }

    private static func sortUnique(_ entries: inout [Int64]) {
        entries.sort()
        var kept = 0
        for i in entries.indices where kept == 0 || entries[kept - 1] != entries[i] {
            entries[kept] = entries[i]
            kept += 1
        }
        entries.removeLast(entries.count - kept)
    }

    /// Writes what was recorded; `region(i)` gives the (enriched) region at engine index `i`,
    /// `place` names a point (country code, place name) for the flights' ends.
    /// The presence entries are handed over to the write (the recorder keeps none): turned into
    /// rows where they lie, not copied (a decade's quarter hours were 17 MB, twice).
    mutating func write(_ db: Database, region: (Int) -> VisitedRegion, place: (Coordinate) -> (code: String?, name: String?)) throws {
        let presenceWriter = try RowWriter(
            db, sql: "INSERT OR IGNORE INTO presence (bucket, country_code, province_code, district_code) VALUES (?, ?, ?, ?)")
        // Many regions of one district share a quarter hour: each row is written once. Rows are
        // packed like `presence`, with the index of the region's units in `places`.
        struct Units: Hashable {
            var country: String, province: String, district: String
        }
        var places: [Units] = [], placeIndex: [Units: Int64] = [:], placeOfRegion: [Int32: Int64] = [:]
        func row(_ entry: Int64) -> Int64 {
            let index = Int32(truncatingIfNeeded: entry)
            if let known = placeOfRegion[index] { return entry & ~0xFFFF_FFFF | known }
            let r = region(Int(index))
            let units = Units(country: r.countryCode ?? "", province: r.provinceCode ?? "", district: r.districtCode ?? "")
            let place =
                placeIndex[units]
                ?? {
                    places.append(units)
                    placeIndex[units] = Int64(places.count - 1)
                    return Int64(places.count - 1)
                }()
            placeOfRegion[index] = place
            return entry & ~0xFFFF_FFFF | place
        }
        var rows = presence
        (presence, lastPresence, compactedCount) = ([], nil, 0)
        for i in rows.indices { rows[i] = row(rows[i]) }
        Self.sortUnique(&rows)
        for row in rows {
            let units = places[Int(row & 0xFFFF_FFFF)]
            try presenceWriter.write { values in
                values.add(row >> 32)
                values.add(units.country)
                values.add(units.province)
                values.add(units.district)
            }
        }
        let tileWriter = try RowWriter(db, sql: "INSERT OR IGNORE INTO tiles (x, y) VALUES (?, ?)")
        for tile in tiles {
            try tileWriter.write { values in
                values.add(Int64(tile.x))
                values.add(Int64(tile.y))
            }
        }
        for flight in flights { try Self.insert(flight, db: db, place: place) }
    }

    static func insert(_ flight: Flight, db: Database, place: (Coordinate) -> (code: String?, name: String?)) throws {
        let path = flight.path
        guard let first = path.first, let last = path.last else { return }
        let from = place(first.coordinate), to = place(last.coordinate)
        let points = path.map { "[\($0.coordinate.longitude),\($0.coordinate.latitude),\(Int($0.timestamp.timeIntervalSince1970))]" }
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO flights (start, end, from_latitude, from_longitude, to_latitude, to_longitude,
                                               from_code, from_name, to_code, to_name, km, fixes, path)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                try StoreTime.text(flight.start), try StoreTime.text(flight.end),
                first.coordinate.latitude, first.coordinate.longitude, last.coordinate.latitude, last.coordinate.longitude,
                from.code, from.name, to.code, to.name, flight.kilometres, flight.fixCount,
                "[" + points.joined(separator: ",") + "]",
            ])
    }
}
