import Foundation
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
    /// The asked level lies above the unit's own (a province's countries).
    case levelAbove(name: String, code: String, unitLevel: String, level: String)
    /// The unit has no descendants at the asked level; `deepest` is the deepest level it has.
    case nothingAtLevel(name: String, code: String, level: String, deepest: String)
    /// The boundary DB has no geometry row for a unit the hierarchy lists.
    case missingGeometry(code: String)
    /// The asked width is outside 100…20000 pixels.
    case badWidth(Double)

    /// One line naming the unit or value and, where there is one, the fix.
    public var description: String {
        switch self {
        case let .levelAbove(name, code, unitLevel, level):
            "\(name) (\(code)) is a \(unitLevel), so it holds no \(level); pass --level \(unitLevel) or a level below it"
        case let .nothingAtLevel(name, code, level, deepest):
            "\(name) (\(code)) has no \(level) units in the boundary database; pass --level \(deepest), "
                + "or add a \(level) layer (roqua import --add)"
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
    /// A unit with nothing below it (a district), or asked at its own level, is drawn alone.
    ///
    /// - Throws: `BoundaryHierarchy.LookupError` when `query` names no single unit;
    ///   `MapError.levelAbove` or `MapError.nothingAtLevel` when nothing lies at the wanted level.
    public static func resolve(_ query: String, level: AdminLevel? = nil, in hierarchy: BoundaryHierarchy) throws -> MapScope {
        let roots: [String]
        let code: String, name: String
        let own: AdminLevel?  // nil: the world
        if NameFolding.fold(query) == NameFolding.fold(worldCode) {
            roots = hierarchy.units.values.filter { $0.parent == nil && $0.level == .country }.map(\.code).sorted()
            (code, name, own) = (worldCode, "World", nil)
        } else {
            let unit = try hierarchy.unit(named: query)
            roots = hierarchy.children[unit.code] ?? []
            (code, name, own) = (unit.code, unit.name, unit.level)
        }
        let alone = MapScope(code: code, name: name, childLevel: own?.description ?? "", children: [code])
        if let own {
            if level == own || (level == nil && roots.isEmpty) { return alone }
            if let level, level < own {
                throw MapError.levelAbove(name: name, code: code, unitLevel: own.description, level: level.description)
            }
        }
        let wanted = level ?? own.flatMap { AdminLevel(rawValue: $0.rawValue + 1) } ?? .country
        // Walk down from the first level below the unit to the wanted one.
        var codes = roots
        var deepest = own ?? .country
        while let first = codes.first, let unit = hierarchy.units[first], unit.level < wanted {
            deepest = unit.level
            codes = codes.flatMap { hierarchy.children[$0] ?? [] }
        }
        codes = codes.filter { hierarchy.units[$0]?.level == wanted }
        guard !codes.isEmpty else {
            throw MapError.nothingAtLevel(name: name, code: code, level: wanted.description, deepest: deepest.description)
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
        let context = GEOSContext()
        var units: [MapUnit] = []
        units.reserveCapacity(codes.count)
        try database.forEachGeometry(of: codes) { row in
            // A code the DB lacks leaves a gap, named below.
            guard units.count < codes.count, codes[units.count] == row.code else {
                throw MapError.missingGeometry(code: codes[units.count])
            }
            let geometry = try context.geometry(wkb: row.wkb)
            let label = try geometry.pointOnSurface()
            units.append(
                MapUnit(
                    code: row.code, name: row.name, polygons: try geometry.polygonRings(),
                    labelPoint: (label.x, label.y), box: try geometry.bounds()))
        }
        if units.count < codes.count { throw MapError.missingGeometry(code: codes[units.count]) }
        return units
    }
}
