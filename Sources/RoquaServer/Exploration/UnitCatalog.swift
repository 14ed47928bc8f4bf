import Foundation
import GRDB
import RoquaBoundaries
import Synchronization

/// What the API tells about a unit besides its name in an answer: names in every language,
/// its box, and a point inside it (for Nominatim's `lat`/`lon`), read from the boundary DB.
final class UnitCatalog: Sendable {
    struct Record: Sendable {
        var code: String
        var level: AdminLevel
        var name: String
        var nameEn: String
        var nameTr: String
        var country: String
        var box: BoundingBox
    }

    let database: BoundaryDatabase
    let records: [String: Record]
    /// Label points computed on first use (a GEOS point-on-surface of the full geometry).
    private let labels = Mutex<[String: (latitude: Double, longitude: Double)]>([:])

    /// - Throws: `DatabaseError` when the boundary DB cannot be read.
    init(database: BoundaryDatabase) throws {
        self.database = database
        var records: [String: Record] = [:]
        try database.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT code, level, name, name_en, name_tr, country_code, min_x, min_y, max_x, max_y FROM boundaries
                """)
            while let row = try rows.next() {
                let record = Record(code: row[0], level: AdminLevel(rawValue: row[1]) ?? .country, name: row[2], nameEn: row[3],
                                    nameTr: row[4], country: row[5],
                                    box: BoundingBox(minX: row[6], minY: row[7], maxX: row[8], maxY: row[9]))
                records[record.code] = record
            }
        }
        self.records = records
    }

    /// A point inside the unit; its box's centre when the geometry cannot be read.
    func labelPoint(_ code: String) -> (latitude: Double, longitude: Double)? {
        if let known = labels.withLock({ $0[code] }) { return known }
        guard let record = records[code] else { return nil }
        let centre = (latitude: (record.box.minY + record.box.maxY) / 2, longitude: (record.box.minX + record.box.maxX) / 2)
        let point: (latitude: Double, longitude: Double)
        do {
            let wkb = try database.read { db in
                try Data.fetchOne(db, sql: "SELECT geometry FROM boundaries WHERE code = ?", arguments: [code])
            }
            if let wkb {
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
