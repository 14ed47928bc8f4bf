import Foundation
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
        try database.localities(ids: regions.compactMap(\.localityID)).map {
            MapLocality(name: $0.name, longitude: $0.longitude, latitude: $0.latitude, population: $0.population)
        }
    }
}
