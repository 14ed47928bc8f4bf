import Foundation
import GRDB

/// A unit's names and box as the boundary DB records them, without its geometry.
public struct BoundaryRecord: Sendable, Equatable {
    /// The unit's code, unique in the DB.
    public var code: String
    /// The unit's level.
    public var level: AdminLevel
    /// The unit's local name.
    public var name: String
    /// The unit's English name.
    public var nameEn: String
    /// The unit's Turkish name.
    public var nameTr: String
    /// The code of the unit's country (its own code for a country).
    public var country: String
    /// The box of the unit's full geometry.
    public var box: BoundingBox
}

/// A unit's full geometry as the boundary DB stores it: WKB, for a `GEOSContext` to read.
public struct BoundaryGeometry: Sendable {
    /// The unit's code.
    public var code: String
    /// The unit's local name.
    public var name: String
    /// The geometry as WKB (a Polygon or MultiPolygon in degrees).
    public var wkb: Data
}

/// A populated place of the boundary DB (see `LocalityIndex`) with where it lies.
public struct LocalityRecord: Sendable, Equatable {
    /// The GeoNames id.
    public var id: Int64
    /// The place's name.
    public var name: String
    /// The place's point, degrees.
    public var latitude: Double
    /// The place's point, degrees.
    public var longitude: Double
    /// The place's population (GeoNames' figure).
    public var population: Int
}

/// What one layer put in the boundary DB: its units, the distinct parents they hang under, and
/// the box around them.
public struct LayerExtent: Sendable, Equatable {
    /// Units the layer added.
    public var units: Int
    /// Distinct parent units of those.
    public var parents: Int
    /// The box around the layer's units; nil when it added none.
    public var box: BoundingBox?
}

/// What maps and the server ask the boundary DB besides resolving: the queries are said here, in
/// the module that owns the DB's layout, and callers ask for records.
extension BoundaryDatabase {
    /// Codes looked up per statement: well under SQLite's limit on bound variables.
    package static let codesPerQuery = 500

    /// Every unit's names and box, in the DB's order.
    /// - Throws: GRDB's `DatabaseError` when the `boundaries` table cannot be read.
    public func records() throws -> [BoundaryRecord] {
        try read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT code, level, name, name_en, name_tr, country_code, min_x, min_y, max_x, max_y FROM boundaries ORDER BY id
                    """)
            var records: [BoundaryRecord] = []
            while let row = try rows.next() {
                records.append(
                    BoundaryRecord(
                        code: row[0], level: AdminLevel(rawValue: row[1]) ?? .country, name: row[2],
                        nameEn: row[3], nameTr: row[4], country: row[5],
                        box: BoundingBox(minX: row[6], minY: row[7], maxX: row[8], maxY: row[9])))
            }
            return records
        }
    }

    /// The geometry of the unit with `code`, or nil when the DB has no such unit.
    /// - Throws: GRDB's `DatabaseError` when the read fails.
    public func geometry(of code: String) throws -> BoundaryGeometry? {
        var found: BoundaryGeometry?
        try forEachGeometry(of: [code]) { found = $0 }
        return found
    }

    /// Calls `body` with the geometry of each of `codes` the DB has, in the order of `codes`
    /// (codes it does not have are skipped). Geometries are read a few hundred at a time, so
    /// only one batch of them is held at once.
    /// - Throws: GRDB's `DatabaseError` when the read fails, or what `body` throws.
    public func forEachGeometry(of codes: [String], _ body: (BoundaryGeometry) throws -> Void) throws {
        for start in stride(from: 0, to: codes.count, by: Self.codesPerQuery) {
            let batch = Array(codes[start..<min(start + Self.codesPerQuery, codes.count)])
            let marks = Array(repeating: "?", count: batch.count).joined(separator: ",")
            let found = try read { db in
                var found: [String: BoundaryGeometry] = [:]
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT code, name, geometry FROM boundaries WHERE code IN (\(marks))",
                    arguments: StatementArguments(batch))
                while let row = try rows.next() {
                    let geometry = BoundaryGeometry(code: row[0], name: row[1], wkb: row[2])
                    found[geometry.code] = geometry
                }
                return found
            }
            for code in batch {
                if let geometry = found[code] { try body(geometry) }
            }
        }
    }

    /// The populated places with these GeoNames ids, biggest first (then by id); none when the
    /// DB predates localities.
    /// - Throws: GRDB's `DatabaseError` when the places cannot be read.
    public func localities(ids: [Int64]) throws -> [LocalityRecord] {
        let ids = Array(Set(ids))
        guard !ids.isEmpty else { return [] }
        var places: [LocalityRecord] = []
        try read { db in
            guard try db.tableExists("localities") else { return }
            for start in stride(from: 0, to: ids.count, by: Self.codesPerQuery) {
                let batch = Array(ids[start..<min(start + Self.codesPerQuery, ids.count)])
                let marks = Array(repeating: "?", count: batch.count).joined(separator: ",")
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT id, name, latitude, longitude, population FROM localities WHERE id IN (\(marks))
                        """, arguments: StatementArguments(batch))
                while let row = try rows.next() {
                    places.append(
                        LocalityRecord(
                            id: row[0], name: row[1], latitude: row[2], longitude: row[3],
                            population: Int(clamping: row[4] as Int64)))
                }
            }
        }
        return places.sorted { ($1.population, $0.id) < ($0.population, $1.id) }
    }

    /// What the layer named `layer` (its `sources.layer`) put in the DB.
    /// - Throws: GRDB's `DatabaseError` when the tables cannot be read.
    public func extent(ofLayer layer: String) throws -> LayerExtent {
        try read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) AS n, COUNT(DISTINCT b.parent_id) AS parents, MIN(b.min_x) AS x0, MIN(b.min_y) AS y0,
                           MAX(b.max_x) AS x1, MAX(b.max_y) AS y1
                    FROM boundaries b JOIN sources s ON s.id = b.source_id WHERE s.layer = ?
                    """, arguments: [layer])
            let units: Int = row?["n"] ?? 0
            let box: BoundingBox? =
                units == 0
                ? nil : BoundingBox(minX: row?["x0"] ?? 0, minY: row?["y0"] ?? 0, maxX: row?["x1"] ?? 0, maxY: row?["y1"] ?? 0)
            return LayerExtent(units: units, parents: row?["parents"] ?? 0, box: box)
        }
    }
}
