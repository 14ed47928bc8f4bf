import CShapelib
import Foundation
import RoquaBoundaries

/// A layer read from another format (GeoJSON, GeoPackage) written as a shapefile — UTF-8 DBF,
/// shells clockwise and holes counter-clockwise — so that it is imported like every other.
enum LayerShapefile {
    /// Unique DBF field names of at most 10 bytes (ASCII letters, digits and `_`).
    static func dbfNames(_ keys: [String]) -> [String: String] {
        var used = Set<String>()
        var names: [String: String] = [:]
        for key in keys {
            let clean = String(
                key.unicodeScalars.map { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") ? Character($0) : "_" })
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

    static func write(
        base: String, keys: [String], fields: [String: String],
        records: [(rings: [Ring], properties: [String: String])]
    ) throws {
        guard let shp = SHPCreate(base, SHPT_POLYGON) else { throw AddedLayers.Failure(description: "\(base).shp: cannot be written") }
        defer { SHPClose(shp) }
        for record in records {
            var starts: [Int32] = [], xs: [Double] = [], ys: [Double] = []
            for ring in record.rings {
                starts.append(Int32(xs.count))
                xs += ring.xs
                ys += ring.ys
            }
            guard let object = SHPCreateObject(SHPT_POLYGON, -1, Int32(starts.count), starts, nil, Int32(xs.count), xs, ys, nil, nil) else {
                throw AddedLayers.Failure(description: "\(base).shp: a shape cannot be made")
            }
            defer { SHPDestroyObject(object) }
            guard SHPWriteObject(shp, -1, object) >= 0 else { throw AddedLayers.Failure(description: "\(base).shp: cannot be written") }
        }
        guard let dbf = DBFCreateEx(base + ".dbf", "UTF-8") else {
            throw AddedLayers.Failure(description: "\(base).dbf: cannot be written")
        }
        defer { DBFClose(dbf) }
        for key in keys {
            let width = min(254, max(1, records.map { $0.properties[key]?.utf8.count ?? 0 }.max() ?? 1))
            guard DBFAddField(dbf, fields[key] ?? key, FTString, Int32(width), 0) >= 0 else {
                throw AddedLayers.Failure(description: "\(base).dbf: field \(key) cannot be added")
            }
        }
        for (row, record) in records.enumerated() {
            for (column, key) in keys.enumerated() {
                let ok =
                    record.properties[key].map { value in
                        DBFWriteStringAttribute(
                            dbf, Int32(row), Int32(column), String(decoding: Array(value.utf8.prefix(254)), as: UTF8.self))
                    } ?? DBFWriteNULLAttribute(dbf, Int32(row), Int32(column))
                guard ok != 0 else { throw AddedLayers.Failure(description: "\(base).dbf: feature \(row + 1)'s \(key) cannot be written") }
            }
        }
    }

    /// `polygons` (each a shell and its holes) oriented as shapefiles want them.
    static func oriented(_ polygons: [[Ring]]) -> [Ring] {
        polygons.flatMap { rings in
            rings.enumerated().map { part, ring in
                (part == 0) == (ring.signedArea > 0) ? Ring(xs: ring.xs.reversed(), ys: ring.ys.reversed()) : ring
            }
        }
    }
}
