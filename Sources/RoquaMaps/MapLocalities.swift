import Foundation
import GRDB
import RoquaBoundaries
import RoquaRegions

/// A visited locality (a GeoNames town or city, see `LocalityLookup`) where a map draws it: a dot
/// at the place and its name, under the units' labels, biggest place first.
struct MapLocality {
    var name: String
    var longitude: Double
    var latitude: Double
    var population: Int

    /// The localities of `regions`, biggest first; none when the boundary DB predates localities.
    /// - Throws: GRDB's `DatabaseError` when the places cannot be read.
    static func load(_ regions: [RegionFacts], from database: BoundaryDatabase) throws -> [MapLocality] {
        let ids = Set(regions.compactMap(\.localityID)).sorted()
        guard !ids.isEmpty else { return [] }
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        return try database.read { db in
            guard try db.tableExists("localities") else { return [] }
            return try Row.fetchAll(db, sql: """
                SELECT name, longitude, latitude, population FROM localities
                WHERE id IN (SELECT value FROM json_each(?)) ORDER BY population DESC, id
                """, arguments: [list]).map { row in
                MapLocality(name: row[0], longitude: row[1], latitude: row[2], population: row[3])
            }
        }
    }
}
