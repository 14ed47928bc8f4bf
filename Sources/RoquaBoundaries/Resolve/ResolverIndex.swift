import Foundation
import GRDB

/// Everything the resolver shares between threads, loaded once at open: the units with their
/// hierarchy, every piece's box, and one grid per level. Immutable, so Sendable; geometry stays
/// on disk until a worker needs a piece (see `PieceCache`).
public final class ResolverIndex: Sendable {
    struct Unit: Sendable {
        var reference: UnitReference
        var level: AdminLevel
        var parent: Int32  // index into `units`, -1 for none
        var country: String
    }

    public let database: BoundaryDatabase
    let units: [Unit]
    let pieceIDs: [Int64]
    let pieceUnits: [Int32]
    let pieceBoxes: [BoundingBox]
    let pieceVertices: [Int32]
    let pieceLevels: [AdminLevel]
    /// One grid for all levels; in each cell the deepest level's pieces come first.
    let grid: GridIndex
    /// Each unit's position in code order: the border tie rule compares integers, not strings.
    let codeRank: [Int32]

    public convenience init(path: String) throws {
        try self.init(database: BoundaryDatabase(path: path))
    }

    public init(database: BoundaryDatabase) throws {
        self.database = database
        var unitIndex: [Int64: Int32] = [:]
        var units: [Unit] = []
        var parentIDs: [Int64?] = []
        var pieceIDs: [Int64] = [], pieceUnits: [Int32] = [], pieceBoxes: [BoundingBox] = [], pieceVertices: [Int32] = []
        var pieceLevels: [AdminLevel] = []
        try database.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT id, level, code, name, name_en, name_tr, parent_id, country_code FROM boundaries ORDER BY id
                """)
            while let row = try rows.next() {
                unitIndex[row[0]] = Int32(units.count)
                units.append(Unit(reference: UnitReference(code: row[2], name: row[3], nameEn: row[4], nameTr: row[5]),
                                  level: AdminLevel(rawValue: row[1]) ?? .country, parent: -1, country: row[7]))
                parentIDs.append(row[6])
            }
            let pieces = try Row.fetchCursor(db, sql: "SELECT id, boundary_id, min_x, min_y, max_x, max_y, vertex_count FROM pieces ORDER BY id")
            while let row = try pieces.next() {
                guard let unit = unitIndex[row[1]] else { continue }
                pieceIDs.append(row[0])
                pieceUnits.append(unit)
                pieceBoxes.append(BoundingBox(minX: row[2], minY: row[3], maxX: row[4], maxY: row[5]))
                pieceVertices.append(row[6])
                pieceLevels.append(units[Int(unit)].level)
            }
        }
        for (i, parent) in parentIDs.enumerated() {
            if let parent, let index = unitIndex[parent] { units[i].parent = index }
        }
        self.units = units
        var rank = [Int32](repeating: 0, count: units.count)
        for (position, unit) in units.indices.sorted(by: { units[$0].reference.code < units[$1].reference.code }).enumerated() {
            rank[unit] = Int32(position)
        }
        codeRank = rank
        self.pieceIDs = pieceIDs
        self.pieceUnits = pieceUnits
        self.pieceBoxes = pieceBoxes
        self.pieceVertices = pieceVertices
        self.pieceLevels = pieceLevels
        let order = pieceLevels.indices.sorted { (pieceLevels[$0], $1) > (pieceLevels[$1], $0) }
        grid = GridIndex(boxes: order.map { pieceBoxes[$0] }, members: order.map { Int32($0) })
    }

    /// The unit and its ancestors as an answer.
    func resolution(for unit: Int32, at coordinate: Coordinate, approximate: Bool, distance: Double?) -> Resolution {
        var result = Resolution(coordinate: coordinate, approximate: approximate, distanceMeters: distance)
        var current = unit
        while current >= 0 {
            let u = units[Int(current)]
            switch u.level {
            case .country: result.country = u.reference
            case .province: result.province = u.reference
            case .district: result.district = u.reference
            }
            current = u.parent
        }
        return result
    }

    /// The levels each country has units at (a point in such a country should get one at each).
    var levelsByCountry: [String: Set<AdminLevel>] {
        units.reduce(into: [:]) { $0[$1.country, default: []].insert($1.level) }
    }
}
