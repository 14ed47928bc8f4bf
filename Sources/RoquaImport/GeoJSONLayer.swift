import CShapelib
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

    /// Why the file cannot be a layer, naming it and the feature.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes `file`'s features as `directory/name.shp` (+ `.shx`, `.dbf`, `.cpg`).
    /// - Throws: `Failure` for a file that is not a FeatureCollection, a feature that is not a
    ///   polygon or multipolygon (named by its index), or coordinates that are not numbers.
    static func convert(_ file: String, into directory: String, name: String) throws -> Converted {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
            throw Failure(description: "\(file): cannot read it: \(error.localizedDescription)")
        }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              root["type"] as? String == "FeatureCollection", let features = root["features"] as? [Any] else {
            throw Failure(description: "\(file): not a GeoJSON FeatureCollection")
        }
        var records: [(rings: [Ring], properties: [String: String])] = []
        var keys: [String] = []
        var seen = Set<String>()
        for (index, item) in features.enumerated() {
            let label = "\(file): feature \(index + 1)"
            guard let feature = item as? [String: Any], let geometry = feature["geometry"] as? [String: Any],
                  let type = geometry["type"] as? String else {
                throw Failure(description: "\(label) has no geometry")
            }
            let polygons: [Any]
            switch type {
            case "Polygon": polygons = [geometry["coordinates"] as Any]
            case "MultiPolygon": polygons = geometry["coordinates"] as? [Any] ?? []
            default: throw Failure(description: "\(label) is a \(type); only Polygon and MultiPolygon features can be boundaries")
            }
            var rings: [Ring] = []
            for polygon in polygons {
                guard let parts = polygon as? [Any] else { throw Failure(description: "\(label): coordinates are not rings") }
                for (part, ring) in parts.enumerated() {
                    guard let points = ring as? [[Any]], points.count >= 4 else {
                        throw Failure(description: "\(label): a ring has fewer than 4 positions")
                    }
                    var xs: [Double] = [], ys: [Double] = []
                    for point in points {
                        guard point.count >= 2, let x = (point[0] as? NSNumber)?.doubleValue, let y = (point[1] as? NSNumber)?.doubleValue,
                              x.isFinite, y.isFinite else {
                            throw Failure(description: "\(label): a position is not two numbers")
                        }
                        xs.append(x)
                        ys.append(y)
                    }
                    var oriented = Ring(xs: xs, ys: ys)
                    // Shapefiles: shells clockwise, holes counter-clockwise (GeoJSON says the opposite).
                    if (part == 0) == (oriented.signedArea > 0) {
                        oriented = Ring(xs: oriented.xs.reversed(), ys: oriented.ys.reversed())
                    }
                    rings.append(oriented)
                }
            }
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
        guard !records.isEmpty else { throw Failure(description: "\(file): the FeatureCollection has no features") }
        let fields = dbfNames(keys)
        let base = (directory as NSString).appendingPathComponent(name)
        try write(base: base, keys: keys, fields: fields, records: records)
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

    /// Unique DBF field names of at most 10 bytes (ASCII letters, digits and `_`).
    static func dbfNames(_ keys: [String]) -> [String: String] {
        var used = Set<String>()
        var names: [String: String] = [:]
        for key in keys {
            let clean = String(key.unicodeScalars.map { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") ? Character($0) : "_" })
            var candidate = String(clean.prefix(10))
            var number = 1
            while candidate.isEmpty || used.contains(candidate.uppercased()) {
                let suffix = "_\(number)"
                candidate = String(clean.prefix(10 - suffix.count)) + suffix
                number += 1
            }
            used.insert(candidate.uppercased())
            names[key] = candidate
        }
        return names
    }

    private static func write(base: String, keys: [String], fields: [String: String],
                              records: [(rings: [Ring], properties: [String: String])]) throws {
        guard let shp = SHPCreate(base, SHPT_POLYGON) else { throw Failure(description: "\(base).shp: cannot be written") }
        defer { SHPClose(shp) }
        for record in records {
            var starts: [Int32] = [], xs: [Double] = [], ys: [Double] = []
            for ring in record.rings {
                starts.append(Int32(xs.count))
                xs += ring.xs
                ys += ring.ys
            }
            guard let object = SHPCreateObject(SHPT_POLYGON, -1, Int32(starts.count), starts, nil, Int32(xs.count), xs, ys, nil, nil) else {
                throw Failure(description: "\(base).shp: a shape cannot be made")
            }
            defer { SHPDestroyObject(object) }
            guard SHPWriteObject(shp, -1, object) >= 0 else { throw Failure(description: "\(base).shp: cannot be written") }
        }
        guard let dbf = DBFCreateEx(base + ".dbf", "UTF-8") else { throw Failure(description: "\(base).dbf: cannot be written") }
        defer { DBFClose(dbf) }
        for key in keys {
            let width = min(254, max(1, records.map { $0.properties[key]?.utf8.count ?? 0 }.max() ?? 1))
            guard DBFAddField(dbf, fields[key] ?? key, FTString, Int32(width), 0) >= 0 else {
                throw Failure(description: "\(base).dbf: field \(key) cannot be added")
            }
        }
        for (row, record) in records.enumerated() {
            for (column, key) in keys.enumerated() {
                let ok = record.properties[key].map { value in
                    DBFWriteStringAttribute(dbf, Int32(row), Int32(column), String(decoding: Array(value.utf8.prefix(254)), as: UTF8.self))
                } ?? DBFWriteNULLAttribute(dbf, Int32(row), Int32(column))
                guard ok != 0 else { throw Failure(description: "\(base).dbf: feature \(row + 1)'s \(key) cannot be written") }
            }
        }
    }
}
