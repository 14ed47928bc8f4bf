import Foundation
import GRDB
import RoquaBoundaries

/// One boundary as every export format writes it: codes, names, hierarchy, the layer and its
/// precision, and the answer it stands for (the codes of itself and its ancestors per level),
/// so that a spatial database can give Roqua's answer from the one unit that decides it.
package struct ExportUnit: Sendable {
    package var id: Int64
    package var code: String
    package var level: AdminLevel
    package var name: String
    package var nameEn: String
    package var nameTr: String
    package var parentCode: String?
    /// The country the unit belongs to (its own code for a country): what "one country per answer" compares.
    package var country: String
    package var continent: String?
    package var layer: String
    /// The layer's precision from the manifest: a more precise layer decides the country.
    package var precision: Int
    /// The answer's codes at country, province and district level when this unit is the answer's deepest unit.
    package var answer: [String?]
}

/// Every unit of a boundary DB, read once, and cursors over the geometry of boundaries and
/// pieces (read row by row: the whole DB's geometry need never be in memory).
package struct ExportCatalog: Sendable {
    package let units: [ExportUnit]
    private let position: [Int64: Int]

    /// - Throws: GRDB's `DatabaseError` when the tables cannot be read.
    package init(database: BoundaryDatabase) throws {
        var units: [ExportUnit] = []
        var parents: [Int64?] = []
        try database.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT b.id, b.code, b.level, b.name, b.name_en, b.name_tr, b.parent_id, b.country_code, b.continent,
                           s.layer, s.precision
                    FROM boundaries b JOIN sources s ON s.id = b.source_id ORDER BY b.id
                    """)
            while let row = try rows.next() {
                units.append(
                    ExportUnit(
                        id: row[0], code: row[1], level: AdminLevel(rawValue: row[2]) ?? .country,
                        name: row[3], nameEn: row[4], nameTr: row[5], parentCode: nil, country: row[7],
                        continent: row[8], layer: row[9], precision: row[10], answer: [nil, nil, nil]))
                parents.append(row[6])
            }
        }
        let position = Dictionary(uniqueKeysWithValues: units.enumerated().map { ($1.id, $0) })
        for i in units.indices {
            units[i].parentCode = parents[i].flatMap { position[$0] }.map { units[$0].code }
            // The answer is the unit and its ancestors, as the resolver builds it.
            var current: Int? = i, steps = 0
            while let unit = current, steps <= AdminLevel.allCases.count {
                units[i].answer[units[unit].level.rawValue] = units[unit].code
                current = parents[unit].flatMap { position[$0] }
                steps += 1
            }
        }
        self.units = units
        self.position = position
    }

    /// The unit with boundary id `id`, if the DB has it.
    package func unit(id: Int64) -> ExportUnit? { position[id].map { units[$0] } }

    /// Calls `body` with each boundary and its WKB, in id order.
    /// - Throws: GRDB's `DatabaseError`, or what `body` throws.
    package func forEachBoundary(in database: BoundaryDatabase, _ body: (ExportUnit, Data) throws -> Void) throws {
        try database.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT id, geometry FROM boundaries ORDER BY id")
            while let row = try rows.next() {
                guard let unit = unit(id: row[0]) else { continue }
                try body(unit, row[1])
            }
        }
    }

    /// Calls `body` with each piece's id, its unit and its WKB, in piece id order.
    /// - Throws: GRDB's `DatabaseError`, or what `body` throws.
    package func forEachPiece(in database: BoundaryDatabase, _ body: (Int64, ExportUnit, Data) throws -> Void) throws {
        try database.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT id, boundary_id, geometry FROM pieces ORDER BY id")
            while let row = try rows.next() {
                guard let unit = unit(id: row[1]) else { continue }
                try body(row[0], unit, row[2])
            }
        }
    }

    /// Piece count, for progress and summaries.
    /// - Throws: GRDB's `DatabaseError`.
    package static func pieceCount(in database: BoundaryDatabase) throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pieces") ?? 0 }
    }
}
