import Foundation
import GRDB
import Synchronization

/// Everything the resolver shares between threads, loaded once at open: the units with their
/// hierarchy and decision order, and the precomputed cell index (whose tiles are read on first
/// use). The pieces' boxes for the GEOS path are read only if some point needs that path.
/// Immutable once built, so Sendable: open it once and give it to every `Resolver`.
public final class ResolverIndex: Sendable {
    struct Unit: Sendable {
        var reference: UnitReference
        var level: AdminLevel
        var parent: Int32  // index into `units`, -1 for none
        var country: String
    }

    /// The open boundary DB the index was loaded from; the GEOS path reads pieces from it.
    public let database: BoundaryDatabase
    let units: [Unit]
    /// Per unit, the answer it stands for (its ancestors filled in), copied for each point.
    private let answers: [Resolution]
    package let table: UnitTable
    package let cells: CellIndex
    private let pieceTable = Mutex<PieceTable?>(nil)
    private let localityTable = Mutex<LocalityIndex?>(nil)

    /// Opens the boundary DB at `path` and loads its index.
    /// - Throws: `BoundaryDatabaseError` when the file is missing, not a boundary DB, of another
    ///   schema version, or its cell index is damaged.
    public convenience init(path: String) throws {
        try self.init(database: BoundaryDatabase(path: path))
    }

    /// Loads the index of an open boundary DB.
    /// - Throws: `BoundaryDatabaseError` as `init(path:)`, or a GRDB `DatabaseError` when a read fails.
    public init(database: BoundaryDatabase) throws {
        self.database = database
        var unitIndex: [Int64: Int32] = [:]
        var units: [Unit] = []
        var parentIDs: [Int64?] = []
        var precisions: [Int] = []
        try database.read { db in
            let rows = try Row.fetchCursor(db, sql: BoundarySchema.unitQuery)
            while let row = try rows.next() {
                unitIndex[row[0]] = Int32(units.count)
                units.append(
                    Unit(
                        reference: UnitReference(code: row[2], name: row[3], nameEn: row[4], nameTr: row[5]),
                        level: AdminLevel(rawValue: row[1]) ?? .country, parent: -1, country: row[7]))
                parentIDs.append(row[6])
                precisions.append(row[8])
            }
        }
        for (i, parent) in parentIDs.enumerated() {
            if let parent, let index = unitIndex[parent] { units[i].parent = index }
        }
        self.units = units
        answers = units.indices.map { unit in
            var answer = Resolution(coordinate: Coordinate(latitude: 0, longitude: 0), approximate: false, distanceMeters: nil)
            var current = Int32(unit)
            while current >= 0 {
                let u = units[Int(current)]
                switch u.level {
                case .country: answer.country = u.reference
                case .province: answer.province = u.reference
                case .district: answer.district = u.reference
                }
                current = u.parent
            }
            return answer
        }
        table = UnitTable(
            levels: units.map(\.level), parents: units.map(\.parent), countryCodes: units.map(\.country),
            codes: units.map(\.reference.code), precisions: precisions)
        cells = try CellIndex(database: database, unitCount: units.count)
    }

    /// The fallback distance the cell index lists nearby units for; a resolver asked for more
    /// answers the points that need it through GEOS (correct, slower).
    public var indexedFallbackMeters: Double { cells.fallbackMeters }

    /// The unit and its ancestors as an answer.
    func resolution(for unit: Int32, at coordinate: Coordinate, approximate: Bool, distance: Double?) -> Resolution {
        var result = answers[Int(unit)]
        result.coordinate = coordinate
        result.approximate = approximate
        result.distanceMeters = distance
        return result
    }

    /// The answer a placement stands for, at `coordinate`.
    public func resolution(for placement: Placement, at coordinate: Coordinate) -> Resolution {
        guard let unit = placement.unit else {
            return Resolution(coordinate: coordinate, approximate: false, distanceMeters: nil)
        }
        return resolution(for: unit.raw, at: coordinate, approximate: placement.approximate, distance: placement.distanceMeters)
    }

    /// The unit a placement names: code and names (local, English, Turkish).
    public func reference(_ unit: UnitID) -> UnitReference { units[Int(unit.raw)].reference }

    /// The unit's parent (province of a district, country of a province), nil for a country.
    public func parent(_ unit: UnitID) -> UnitID? {
        let parent = units[Int(unit.raw)].parent
        return parent >= 0 ? UnitID(raw: parent) : nil
    }

    /// The unit's level.
    public func level(_ unit: UnitID) -> AdminLevel { units[Int(unit.raw)].level }

    /// Every unit, as `UnitID`s in the DB's order.
    public var unitIDs: [UnitID] { (0..<Int32(units.count)).map { UnitID(raw: $0) } }

    /// The pieces' boxes and grid for the GEOS path, read from the DB the first time any
    /// resolver needs them.
    func pieces() throws -> PieceTable {
        try pieceTable.withLock { table in
            if let table { return table }
            let loaded = try PieceTable(database: database, units: units)
            table = loaded
            return loaded
        }
    }

    /// The DB's populated places, read a country at a time the first time an answer asks for
    /// its locality: the plain resolver never pays for them.
    /// - Parameter countriesReadAlone: see `LocalityIndex.init`; what the first caller asks for
    ///   holds for every later one.
    public func localities(countriesReadAlone: Int = LocalityIndex.countriesReadAlone) -> LocalityIndex {
        localityTable.withLock { table in
            if let table { return table }
            let loaded = LocalityIndex(
                database: database, unitCodes: units.map(\.reference.code), countriesReadAlone: countriesReadAlone)
            table = loaded
            return loaded
        }
    }

    /// `resolution` with its locality filled in (see `LocalityIndex`); nil where no place of the
    /// answer's country reaches the point, or the point is in no country. Until `localities()`
    /// has loaded the table, one R*Tree query answers (cheap for a single point).
    /// - Throws: GRDB's `DatabaseError` when the places cannot be read.
    public func withLocality(_ resolution: Resolution) throws -> Resolution {
        var answer = resolution
        answer.localityChecked = true
        guard let country = resolution.country else { return answer }
        let (province, district) = (resolution.province?.code, resolution.district?.code)
        if let loaded = localityTable.withLock({ $0 }) {
            answer.locality = try loaded.locality(at: resolution.coordinate, country: country.code, province: province, district: district)
        } else {
            answer.locality = try LocalityIndex.locality(
                in: database, at: resolution.coordinate, country: country.code,
                province: province, district: district)
        }
        return answer
    }
}

/// A unit, as an index into its `ResolverIndex` (valid only with the index it came from).
public struct UnitID: Hashable, Sendable {
    package let raw: Int32
}

/// A compact answer: the deepest unit of the answer (its ancestors complete it) and how it was
/// found. `Resolver.placement(_:)` gives it without building names; `ResolverIndex.resolution`
/// turns it into a `Resolution`.
public struct Placement: Sendable, Equatable {
    /// The deepest unit of the answer; nil when no unit holds the point or lies near it.
    public var unit: UnitID?
    /// True when the unit was found as the nearest within the fallback distance.
    public var approximate: Bool
    /// Metres to the nearest boundary used, when approximate.
    public var distanceMeters: Double?

    static let nowhere = Placement(unit: nil, approximate: false, distanceMeters: nil)

    static func exact(_ unit: Int32) -> Placement { Placement(unit: UnitID(raw: unit), approximate: false, distanceMeters: nil) }
}

/// Every piece's unit, level, box and vertex count, with a world grid over the boxes: what the
/// GEOS path walks. Deepest level first in each grid cell.
final class PieceTable: Sendable {
    let pieceIDs: [Int64]
    let pieceUnits: [Int32]
    let pieceBoxes: [BoundingBox]
    let pieceVertices: [Int32]
    let pieceLevels: [AdminLevel]
    let grid: GridIndex

    init(database: BoundaryDatabase, units: [ResolverIndex.Unit]) throws {
        var ids: [Int64] = [], owners: [Int32] = [], boxes: [BoundingBox] = [], vertices: [Int32] = [], levels: [AdminLevel] = []
        try database.read { db in
            // Units are numbered in boundary id order: the row number of `boundary_id`.
            let unitOf = Dictionary(
                uniqueKeysWithValues: try Int64.fetchAll(db, sql: BoundarySchema.unitIDQuery)
                    .enumerated().map { ($1, Int32($0)) })
            let rows = try Row.fetchCursor(db, sql: BoundarySchema.pieceQuery)
            while let row = try rows.next() {
                guard let unit = unitOf[row[1]] else { continue }
                ids.append(row[0])
                owners.append(unit)
                boxes.append(BoundingBox(minX: row[2], minY: row[3], maxX: row[4], maxY: row[5]))
                vertices.append(row[6])
                levels.append(units[Int(unit)].level)
            }
        }
        (pieceIDs, pieceUnits, pieceBoxes, pieceVertices, pieceLevels) = (ids, owners, boxes, vertices, levels)
        let order = levels.indices.sorted { (levels[$0], $1) > (levels[$1], $0) }
        grid = GridIndex(boxes: order.map { boxes[$0] }, members: order.map { Int32($0) })
    }
}
