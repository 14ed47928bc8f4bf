import Foundation
import GRDB
import RoquaBoundaries
import RoquaProgress

/// A unit to draw: its polygons in degrees (shell first, then holes) and where its label goes.
package struct MapUnit: Sendable {
    package var code: String
    package var name: String
    package var polygons: [[Ring]]
    /// A point inside the unit (GEOS point on surface), longitude/latitude.
    package var labelPoint: (longitude: Double, latitude: Double)
    package var box: BoundingBox
}

/// Why a map cannot be drawn; each case names the unit or the value.
public enum MapError: Error, CustomStringConvertible, Equatable, Sendable {
    /// No level was asked for and nothing lies below the unit (a district, or a unit without children).
    case noSubdivisions(name: String, code: String)
    /// The unit has no descendants at the asked level, or the level is not below the unit's.
    case nothingAtLevel(name: String, code: String, level: String)
    /// The boundary DB has no geometry row for a unit the hierarchy lists.
    case missingGeometry(code: String)
    /// The asked width is outside 100…20000 pixels.
    case badWidth(Double)

    /// One line naming the unit or value and, where there is one, the fix.
    public var description: String {
        switch self {
        case let .noSubdivisions(name, code):
            "\(name) (\(code)) has no subdivisions in the boundary database; map its parent, or pass --level"
        case let .nothingAtLevel(name, code, level):
            "\(name) (\(code)) has no \(level) units in the boundary database"
        case let .missingGeometry(code): "the boundary database has no geometry for \(code)"
        case let .badWidth(width): "a map must be between 100 and 20000 pixels wide (got \(width))"
        }
    }
}

/// What a map shows: a unit (or the world) and the codes of the units drawn inside it.
public struct MapScope: Sendable, Equatable {
    /// The unit's code, or `world`.
    public var code: String
    /// The unit's name, or `World`.
    public var name: String
    /// The drawn units' level as a word: "district", "province", "country".
    public var childLevel: String
    /// Codes of the drawn units, in code order per parent.
    public var children: [String]

    /// The query and code that stand for the whole world (all countries).
    public static let worldCode = "world"

    /// `query` names a unit (or `world`); its children are drawn, or its descendants at `level`.
    ///
    /// - Throws: `BoundaryHierarchy.LookupError` when `query` names no single unit;
    ///   `MapError.noSubdivisions` or `MapError.nothingAtLevel` when nothing lies at the wanted level.
    public static func resolve(_ query: String, level: AdminLevel? = nil, in hierarchy: BoundaryHierarchy) throws -> MapScope {
        let isWorld = NameFolding.fold(query) == NameFolding.fold(worldCode)
        let roots: [String]
        let code: String, name: String, rootLevel: Int
        if isWorld {
            roots = hierarchy.units.values.filter { $0.parent == nil && $0.level == .country }.map(\.code).sorted()
            (code, name, rootLevel) = (worldCode, "World", -1)
        } else {
            let unit = try hierarchy.unit(named: query)
            roots = hierarchy.children[unit.code] ?? []
            (code, name, rootLevel) = (unit.code, unit.name, unit.level.rawValue)
        }
        let wanted = level ?? AdminLevel(rawValue: rootLevel + 1)
        guard let wanted else { throw MapError.noSubdivisions(name: name, code: code) }
        guard wanted.rawValue > rootLevel else {
            throw MapError.nothingAtLevel(name: name, code: code, level: wanted.description)
        }
        // Walk down from the first level below the unit to the wanted one.
        var codes = roots
        while let first = codes.first, let unit = hierarchy.units[first], unit.level < wanted {
            codes = codes.flatMap { hierarchy.children[$0] ?? [] }
        }
        codes = codes.filter { hierarchy.units[$0]?.level == wanted }
        guard !codes.isEmpty else {
            if level == nil { throw MapError.noSubdivisions(name: name, code: code) }
            throw MapError.nothingAtLevel(name: name, code: code, level: wanted.description)
        }
        return MapScope(code: code, name: name, childLevel: wanted.description, children: codes)
    }

    /// Whether a region counts towards this map: it lies in the unit (any region for the world).
    func contains(_ codes: [String?]) -> Bool {
        code == Self.worldCode || codes.contains(code)
    }
}

extension MapUnit {
    /// The geometry of each code from the boundary DB, in the order of `codes`.
    static func load(_ codes: [String], from database: BoundaryDatabase) throws -> [MapUnit] {
        var rows: [String: (name: String, wkb: Data)] = [:]
        try database.read { db in
            for chunk in stride(from: 0, to: codes.count, by: 500).map({ Array(codes[$0..<min($0 + 500, codes.count)]) }) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                for row in try Row.fetchAll(db, sql: "SELECT code, name, geometry FROM boundaries WHERE code IN (\(marks))",
                                            arguments: StatementArguments(chunk)) {
                    rows[row["code"]] = (row["name"], row["geometry"])
                }
            }
        }
        let context = GEOSContext()
        return try codes.map { code in
            guard let row = rows[code] else { throw MapError.missingGeometry(code: code) }
            let geometry = try context.geometry(wkb: row.wkb)
            let label = try geometry.pointOnSurface()
            return MapUnit(code: code, name: row.name, polygons: try geometry.polygonRings(),
                           labelPoint: (label.x, label.y), box: try geometry.bounds())
        }
    }
}
