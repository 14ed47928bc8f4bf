import Foundation
import RoquaBoundaries
import RoquaIO
import Synchronization

/// The children of a unit (or of the world) as GeoJSON for the page, simplified for display and
/// cached as the bytes sent: boundaries never change while the server runs.
final class UnitShapes: Sendable {
    let catalog: UnitCatalog
    let hierarchy: BoundaryHierarchy
    private let cache = Mutex<[String: [UInt8]]>([:])

    static let worldCode = "world"

    init(catalog: UnitCatalog, hierarchy: BoundaryHierarchy) {
        self.catalog = catalog
        self.hierarchy = hierarchy
    }

    /// The children's codes (countries for `world`), or nil for an unknown code.
    func children(of code: String) -> [String]? {
        if code == Self.worldCode {
            return hierarchy.units.values.filter { $0.parent == nil && $0.level == .country }.map(\.code).sorted()
        }
        guard hierarchy.units[code] != nil else { return nil }
        return hierarchy.children[code] ?? []
    }

    /// The FeatureCollection of `code`'s children (empty for a unit without any) as
    /// `OrderedJSONEncoder` wrote it, nil for an unknown code.
    /// - Throws: `DatabaseError` or a GEOS error when the boundary DB cannot be read.
    func geoJSON(childrenOf code: String) throws -> [UInt8]? {
        if let cached = cache.withLock({ $0[code] }) { return cached }
        guard let codes = children(of: code) else { return nil }
        let bytes = try OrderedJSONEncoder().encode(try collection(parent: code, codes: codes), capacity: 1 << 16)
        cache.withLock { $0[code] = bytes }
        return bytes
    }

    private func collection(parent: String, codes: [String]) throws -> UnitCollection {
        let records = codes.compactMap { catalog.records[$0] }
        guard let first = records.first else { return UnitCollection(parent: parent, step: nil, features: []) }
        let box = records.dropFirst().reduce(first.box) {
            BoundingBox(
                minX: min($0.minX, $1.box.minX), minY: min($0.minY, $1.box.minY),
                maxX: max($0.maxX, $1.box.maxX), maxY: max($0.maxY, $1.box.maxY))
        }
        let simplifier = ShapeSimplifier(fitting: box)
        let context = GEOSContext()
        var features: [UnitFeature] = []
        try catalog.database.forEachGeometry(of: records.map(\.code)) { row in
            guard let record = catalog.records[row.code] else { return }
            let polygons = try context.geometry(wkb: row.wkb).polygonRings()
            features.append(
                UnitFeature(
                    record: record, hasChildren: !(hierarchy.children[record.code] ?? []).isEmpty,
                    coordinates: simplifier.multiPolygonCoordinates(polygons) ?? simplifier.marker(record.box)))
        }
        return UnitCollection(parent: parent, step: simplifier.step, features: features)
    }
}

/// `GET /api/units/{code}/children`: `{"type":"FeatureCollection","parent":…,"step":…,"features":[…]}`
/// (no `step` when there are no children).
struct UnitCollection: OrderedJSON {
    var type = "FeatureCollection"
    var parent: String
    /// The simplification grid's step in degrees.
    var step: Double?
    var features: [UnitFeature]
}

/// One child unit: its code, level, names, whether it has children, and its simplified shape.
struct UnitFeature: Encodable {
    let record: BoundaryRecord
    let hasChildren: Bool
    let coordinates: GridCoordinates

    func encode(to encoder: any Encoder) throws {
        var feature = encoder.container(keyedBy: JSONKey.self)
        try feature.encode("Feature", forKey: "type")
        var properties = feature.nestedContainer(keyedBy: JSONKey.self, forKey: "properties")
        try properties.encode(record.code, forKey: "code")
        try properties.encode(record.level.description, forKey: "level")
        try properties.encode(record.name, forKey: "name")
        try properties.encode(record.nameEn, forKey: "name_en")
        try properties.encode(record.nameTr, forKey: "name_tr")
        try properties.encode(hasChildren, forKey: "has_children")
        var geometry = feature.nestedContainer(keyedBy: JSONKey.self, forKey: "geometry")
        try geometry.encode("MultiPolygon", forKey: "type")
        try geometry.encode(coordinates, forKey: "coordinates")
    }
}
