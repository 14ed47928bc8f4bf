import Foundation
import RoquaBoundaries
import Synchronization

/// What the API tells about a unit besides its name in an answer: names in every language,
/// its box, and a point inside it (for Nominatim's `lat`/`lon`), read from the boundary DB.
final class UnitCatalog: Sendable {
    let database: BoundaryDatabase
    let records: [String: BoundaryRecord]
    /// Label points computed on first use (a GEOS point-on-surface of the full geometry).
    private let labels = Mutex<[String: (latitude: Double, longitude: Double)]>([:])

    /// - Throws: `DatabaseError` when the boundary DB cannot be read.
    init(database: BoundaryDatabase) throws {
        self.database = database
        records = Dictionary(try database.records().map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// A point inside the unit; its box's centre when the geometry cannot be read.
    func labelPoint(_ code: String) -> (latitude: Double, longitude: Double)? {
        if let known = labels.withLock({ $0[code] }) { return known }
        guard let record = records[code] else { return nil }
        let centre = (latitude: (record.box.minY + record.box.maxY) / 2, longitude: (record.box.minX + record.box.maxX) / 2)
        let point: (latitude: Double, longitude: Double)
        do {
            if let wkb = try database.geometry(of: code)?.wkb {
                let p = try GEOSContext().geometry(wkb: wkb).pointOnSurface()
                point = (p.y, p.x)
            } else {
                point = centre
            }
        } catch {
            // A label point is cosmetic (Nominatim's "centroid"): the box's centre is an honest stand-in.
            point = centre
        }
        labels.withLock { $0[code] = point }
        return point
    }
}
