import Foundation
import RoquaBoundaries
import RoquaIO
import Synchronization

/// The children of a unit (or of the world) as GeoJSON for the page, simplified for display and
/// cached: boundaries never change while the server runs.
final class UnitShapes: Sendable {
    let catalog: UnitCatalog
    let hierarchy: BoundaryHierarchy
    private let cache = Mutex<[String: String]>([:])

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

    /// The FeatureCollection of `code`'s children (empty for a unit without any), nil for an unknown code.
    /// - Throws: `DatabaseError` or a GEOS error when the boundary DB cannot be read.
    func geoJSON(childrenOf code: String) throws -> String? {
        if let cached = cache.withLock({ $0[code] }) { return cached }
        guard let codes = children(of: code) else { return nil }
        let text = try build(parent: code, codes: codes)
        cache.withLock { $0[code] = text }
        return text
    }

    private func build(parent: String, codes: [String]) throws -> String {
        let records = codes.compactMap { catalog.records[$0] }
        guard let first = records.first else { return "{\"type\":\"FeatureCollection\",\"parent\":\(JSONText.quote(parent)),\"features\":[]}" }
        let box = records.dropFirst().reduce(first.box) {
            BoundingBox(minX: min($0.minX, $1.box.minX), minY: min($0.minY, $1.box.minY),
                        maxX: max($0.maxX, $1.box.maxX), maxY: max($0.maxY, $1.box.maxY))
        }
        let simplifier = ShapeSimplifier(fitting: box)
        let context = GEOSContext()
        var features: [String] = []
        try catalog.database.forEachGeometry(of: records.map(\.code)) { row in
            guard let record = catalog.records[row.code] else { return }
            let polygons = try context.geometry(wkb: row.wkb).polygonRings()
            let coordinates = simplifier.multiPolygonCoordinates(polygons) ?? simplifier.marker(record.box)
            features.append(feature(record, coordinates: coordinates))
        }
        return "{\"type\":\"FeatureCollection\",\"parent\":\(JSONText.quote(parent)),\"step\":\(simplifier.step),"
            + "\"features\":[" + features.joined(separator: ",") + "]}"
    }

    private func feature(_ record: BoundaryRecord, coordinates: String) -> String {
        let hasChildren = !(hierarchy.children[record.code] ?? []).isEmpty
        return "{\"type\":\"Feature\",\"properties\":{\"code\":\(JSONText.quote(record.code)),\"level\":\"\(record.level)\","
            + "\"name\":\(JSONText.quote(record.name)),\"name_en\":\(JSONText.quote(record.nameEn)),"
            + "\"name_tr\":\(JSONText.quote(record.nameTr)),\"has_children\":\(hasChildren)},"
            + "\"geometry\":{\"type\":\"MultiPolygon\",\"coordinates\":\(coordinates)}}"
    }
}
