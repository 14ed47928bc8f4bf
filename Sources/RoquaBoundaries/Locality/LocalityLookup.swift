import Foundation
import GRDB

extension LocalityIndex {
    /// The same answer as `locality(at:country:province:district:)`, read through the DB's
    /// R*Tree of reach boxes instead of the loaded table: one query, no 1-2 s load of every place,
    /// for single answers (`roqua resolve LAT LON`, enriching a few regions).
    /// - Throws: GRDB's `DatabaseError` when the query fails.
    public static func locality(
        in database: BoundaryDatabase, at point: Coordinate, country: String, province: String?,
        district: String? = nil
    ) throws -> Locality? {
        let rows = try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT l.id, l.name, l.latitude, l.longitude, l.population, l.reach_m
                    FROM locality_index r JOIN localities l ON l.id = r.id
                    WHERE r.min_x <= ?1 AND r.max_x >= ?1 AND r.min_y <= ?2 AND r.max_y >= ?2
                      AND l.country_code = ?3 AND l.part_of IS NULL
                      AND (?4 IS NULL OR l.province_code IS NULL OR l.province_code = ?4)
                      AND (?5 IS NULL OR l.district_code IS NULL OR l.district_code = ?5)
                    """, arguments: [point.longitude, point.latitude, country, province, district])
        }
        let nearest = country == "TR"
        var best: (locality: Locality, score: Double)?
        for row in rows {
            let reach: Double = row[5]
            let meters = Geodesy.haversineMeters(point, Coordinate(latitude: row[2], longitude: row[3]))
            guard meters <= reach else { continue }
            let score = nearest ? meters : meters / reach
            let id: Int64 = row[0]
            if let b = best, (b.score, b.locality.geonameID) <= (score, id) { continue }
            best = (Locality(geonameID: id, name: row[1], population: Int(clamping: row[4] as Int64), distanceMeters: meters), score)
        }
        return best?.locality
    }
}
