import Foundation
import RoquaBoundaries

/// A GeoJSON FeatureCollection of polygons, turned into a shapefile (UTF-8 DBF, rings oriented as
/// shapefiles want them) so that an added layer is read like every other. Property names become
/// DBF field names (10 bytes at most, made unique); `fields` maps each property to its column.
enum GeoJSONLayer {
    struct Converted {
        /// The written `.shp`.
        var shapefile: String
        /// Property name → DBF field name.
        var fields: [String: String]
        /// The legacy `crs` member's CRS (`EPSG:NNNN`), nil for RFC 7946's WGS 84.
        var crs: String?
    }


    /// Writes `file`'s features as `directory/name.shp` (+ `.shx`, `.dbf`, `.cpg`).
    /// - Throws: `AddedLayers.Failure` for a file that is not a FeatureCollection, a feature that is not a
    ///   polygon or multipolygon (named by its index), or coordinates that are not numbers.
    static func convert(_ file: String, into directory: String, name: String) throws -> Converted {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
            throw AddedLayers.Failure(description: "\(file): cannot read it: \(error.localizedDescription)")
        }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              root["type"] as? String == "FeatureCollection", let features = root["features"] as? [Any] else {
            throw AddedLayers.Failure(description: "\(file): not a GeoJSON FeatureCollection")
        }
        var records: [(rings: [Ring], properties: [String: String])] = []
        var keys: [String] = []
        var seen = Set<String>()
        for (index, item) in features.enumerated() {
            let label = "\(file): feature \(index + 1)"
            guard let feature = item as? [String: Any], let geometry = feature["geometry"] as? [String: Any],
                  let type = geometry["type"] as? String else {
                throw AddedLayers.Failure(description: "\(label) has no geometry")
            }
            let polygons: [Any]
            switch type {
            case "Polygon": polygons = [geometry["coordinates"] as Any]
            case "MultiPolygon": polygons = geometry["coordinates"] as? [Any] ?? []
            default: throw AddedLayers.Failure(description: "\(label) is a \(type); only Polygon and MultiPolygon features can be boundaries")
            }
            var shapes: [[Ring]] = []
            for polygon in polygons {
                guard let parts = polygon as? [Any] else { throw AddedLayers.Failure(description: "\(label): coordinates are not rings") }
                var rings: [Ring] = []
                for ring in parts {
                    guard let points = ring as? [[Any]], points.count >= 4 else {
                        throw AddedLayers.Failure(description: "\(label): a ring has fewer than 4 positions")
                    }
                    var xs: [Double] = [], ys: [Double] = []
                    for point in points {
                        guard point.count >= 2, let x = (point[0] as? NSNumber)?.doubleValue, let y = (point[1] as? NSNumber)?.doubleValue,
                              x.isFinite, y.isFinite else {
                            throw AddedLayers.Failure(description: "\(label): a position is not two numbers")
                        }
                        xs.append(x)
                        ys.append(y)
                    }
                    rings.append(Ring(xs: xs, ys: ys))
                }
                shapes.append(rings)
            }
            // Shapefiles: shells clockwise, holes counter-clockwise (GeoJSON says the opposite).
            let rings = LayerShapefile.oriented(shapes)
            var properties: [String: String] = [:]
            for (key, value) in feature["properties"] as? [String: Any] ?? [:] {
                let text: String?
                switch value {
                case let string as String: text = string
                case let number as NSNumber: text = number.stringValue
                default: text = nil
                }
                guard let text else { continue }
                properties[key] = text
                if seen.insert(key).inserted { keys.append(key) }
            }
            records.append((rings, properties))
        }
        guard !records.isEmpty else { throw AddedLayers.Failure(description: "\(file): the FeatureCollection has no features") }
        let fields = LayerShapefile.dbfNames(keys)
        let base = (directory as NSString).appendingPathComponent(name)
        try LayerShapefile.write(base: base, keys: keys, fields: fields, records: records)
        return Converted(shapefile: base + ".shp", fields: fields, crs: legacyCRS(root["crs"]))
    }

    /// `urn:ogc:def:crs:EPSG::3857` (or `EPSG:3857`) as `EPSG:3857`; CRS84 and WGS 84 as nil.
    static func legacyCRS(_ member: Any?) -> String? {
        guard let crs = member as? [String: Any], let properties = crs["properties"] as? [String: Any],
              let name = properties["name"] as? String else { return nil }
        let upper = name.uppercased()
        if upper.hasSuffix("CRS84") || upper.hasSuffix("EPSG::4326") || upper == "EPSG:4326" { return nil }
        if let range = upper.range(of: "EPSG::") { return "EPSG:" + upper[range.upperBound...] }
        return name
    }
}
