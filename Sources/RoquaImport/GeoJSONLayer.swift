import Foundation
import RoquaBoundaries
import RoquaIO

/// A GeoJSON FeatureCollection of polygons, turned into a shapefile (UTF-8 DBF, rings oriented as
/// shapefiles want them) so that an added layer is read like every other. Property names become
/// DBF field names (10 bytes at most, made unique); `fields` maps each property to its column.
package enum GeoJSONLayer {
    package struct Converted {
        /// The written `.shp`.
        package var shapefile: String
        /// Property name → DBF field name.
        package var fields: [String: String]
        /// The legacy `crs` member's CRS (`EPSG:NNNN`), nil for RFC 7946's WGS 84.
        package var crs: String?
    }

    /// Writes `file`'s features as `directory/name.shp` (+ `.shx`, `.dbf`, `.cpg`). The file is
    /// read as a stream, one feature at a time (`JSONScanner`): memory holds the rings as numbers,
    /// never the whole text or its parsed tree.
    /// - Throws: `AddedLayers.Failure` for a file that is not a FeatureCollection or not JSON
    ///   (naming the line), a feature that is not a polygon or multipolygon (named by its index),
    ///   coordinates that are not numbers, more features or vertices than `limits`.
    package static func convert(
        _ file: String, into directory: String, name: String,
        limits: LayerLimits = LayerLimits()
    ) throws -> Converted {
        var records: [(rings: [Ring], properties: [String: String])] = []
        var vertices = 0
        var keys: [String] = []
        var seen = Set<String>()
        var type: String?
        var crs: JSONValue?
        var sawFeatures = false
        do {
            let scanner = JSONScanner(stream: try ByteStream(path: file))
            guard try scanner.peekToken() == UInt8(ascii: "{") else {
                throw AddedLayers.Failure(description: "\(file): not a GeoJSON FeatureCollection")
            }
            try scanner.beginObject("a GeoJSON FeatureCollection")
            while let key = try scanner.nextKey() {
                switch key {
                case "type": type = try scanner.readValue().string
                case "crs": crs = try scanner.readValue()
                case "features":
                    sawFeatures = true
                    try scanner.beginArray("the features")
                    while try scanner.nextElement() {
                        let feature = try scanner.readValue(keeping: ["geometry", "properties"])
                        let record = try Self.record(feature, label: "\(file): feature \(records.count + 1)")
                        // DBF fields in the order the file first names them.
                        for (key, _) in record.properties where seen.insert(key).inserted { keys.append(key) }
                        records.append((record.rings, Dictionary(record.properties, uniquingKeysWith: { _, last in last })))
                        vertices += record.rings.reduce(0) { $0 + $1.count }
                        try limits.check(features: records.count, vertices: vertices, file: file)
                    }
                default: try scanner.skipValue()
                }
            }
            try scanner.expectEnd()
        } catch let error as InputError {
            throw AddedLayers.Failure(description: error.description)
        }
        guard type == "FeatureCollection", sawFeatures else {
            throw AddedLayers.Failure(description: "\(file): not a GeoJSON FeatureCollection")
        }
        guard !records.isEmpty else { throw AddedLayers.Failure(description: "\(file): the FeatureCollection has no features") }
        let fields = LayerShapefile.dbfNames(keys)
        let base = (directory as NSString).appendingPathComponent(name)
        try LayerShapefile.write(base: base, keys: keys, fields: fields, records: records)
        return Converted(shapefile: base + ".shp", fields: fields, crs: legacyCRS(crs))
    }

    /// One feature's rings (oriented as shapefiles want them) and its properties as text.
    private static func record(_ feature: JSONValue, label: String) throws -> (rings: [Ring], properties: [(String, String)]) {
        guard let geometry = feature["geometry"], let type = geometry["type"]?.string else {
            throw AddedLayers.Failure(description: "\(label) has no geometry")
        }
        let polygons: [JSONValue]
        switch type {
        case "Polygon": polygons = geometry["coordinates"].map { [$0] } ?? []
        case "MultiPolygon": polygons = geometry["coordinates"]?.array ?? []
        default: throw AddedLayers.Failure(description: "\(label) is a \(type); only Polygon and MultiPolygon features can be boundaries")
        }
        var shapes: [[Ring]] = []
        for polygon in polygons {
            guard let parts = polygon.array else { throw AddedLayers.Failure(description: "\(label): coordinates are not rings") }
            var rings: [Ring] = []
            for ring in parts {
                guard let points = ring.array, points.count >= 4 else {
                    throw AddedLayers.Failure(description: "\(label): a ring has fewer than 4 positions")
                }
                var xs: [Double] = [], ys: [Double] = []
                xs.reserveCapacity(points.count)
                ys.reserveCapacity(points.count)
                for point in points {
                    guard let pair = point.array, pair.count >= 2, let x = pair[0].number, let y = pair[1].number,
                        x.isFinite, y.isFinite
                    else {
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
        var properties: [(String, String)] = []
        if case let .object(members, _) = feature["properties"] {
            for (key, value) in members {
                switch value {
                case let .string(text, _): properties.append((key, text))
                case let .number(number, _):
                    properties.append((key, number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)))
                case let .bool(flag, _): properties.append((key, String(flag)))
                case .null, .array, .object: continue
                }
            }
        }
        return (LayerShapefile.oriented(shapes), properties)
    }

    /// `urn:ogc:def:crs:EPSG::3857` (or `EPSG:3857`) as `EPSG:3857`; CRS84 and WGS 84 as nil.
    static func legacyCRS(_ member: JSONValue?) -> String? {
        guard let name = member?["properties"]?["name"]?.string else { return nil }
        let upper = name.uppercased()
        if upper.hasSuffix("CRS84") || upper.hasSuffix("EPSG::4326") || upper == "EPSG:4326" { return nil }
        if let range = upper.range(of: "EPSG::") { return "EPSG:" + upper[range.upperBound...] }
        return name
    }
}
