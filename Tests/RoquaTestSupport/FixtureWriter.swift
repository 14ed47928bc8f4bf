import CShapelib
import Foundation
import RoquaBoundaries
import RoquaIO
import RoquaImport

/// A DBF value: text (written as UTF-8 bytes), raw bytes (for legacy code pages), or NULL.
package enum FieldValue: Sendable, Equatable, ExpressibleByStringLiteral {
    case text(String)
    case bytes([UInt8])
    case null

    package init(stringLiteral value: String) { self = .text(value) }
}

/// What one shapefile record holds, written as given: no ring is closed or reoriented.
package enum FixtureShape: Sendable {
    /// Polygon parts (shells and holes) in file order.
    case polygon([Ring])
    case point(x: Double, y: Double)
    /// Line parts.
    case line([Ring])
    case null
}

package struct FixtureRecord: Sendable {
    package var shape: FixtureShape
    package var values: [String: FieldValue]

    package init(_ shape: FixtureShape, _ values: [String: FieldValue]) {
        self.shape = shape
        self.values = values
    }
}

/// The `.prj` beside a shapefile.
package enum Projection: Sendable {
    case wgs84
    case utm35N
    case custom(String)

    package var wkt: String {
        switch self {
        case .wgs84: Self.wgs84WKT
        case .utm35N: Self.utm35NWKT
        case let .custom(text): text
        }
    }

    package static let wgs84WKT =
        #"GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]"#

    package static let utm35NWKT =
        #"PROJCS["WGS_1984_UTM_Zone_35N",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",27.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#
}

package enum FixtureShapeType: Sendable {
    case polygon, point, line

    var shapelibType: Int32 {
        switch self {
        case .polygon: SHPT_POLYGON
        case .point: SHPT_POINT
        case .line: SHPT_ARC
        }
    }
}

package struct FixtureError: Error, CustomStringConvertible {
    package var description: String
}

/// Writes shapefiles with shapelib's own writer, so fixtures are what a real writer produces.
package enum FixtureWriter {
    /// Writes `base.shp`, `.shx`, `.dbf` (and `.cpg` when shapelib writes one for `codePage`),
    /// and `.prj` unless `projection` is nil.
    ///
    /// - `fields`: DBF string fields, each `width` bytes wide, in column order.
    /// - `codePage`: handed to `DBFCreateEx`: "UTF-8", "1254", … write a `.cpg`; "LDID/202" sets the
    ///   DBF's language driver byte instead; nil writes neither (readers then guess).
    /// - `dbfRecordLimit`: write only this many DBF records (to make .dbf and .shp disagree).
    package static func write(
        base: String, type: FixtureShapeType = .polygon, fields: [String],
        records: [FixtureRecord], codePage: String? = "UTF-8",
        projection: Projection? = .wgs84, width: Int32 = 64,
        dbfRecordLimit: Int? = nil
    ) throws {
        try writeShapes(base: base, type: type, shapes: records.map(\.shape))
        let dbfRecords = Array(records.prefix(dbfRecordLimit ?? records.count)).map(\.values)
        try writeDBF(base: base, fields: fields, records: dbfRecords, codePage: codePage, width: width)
        if let projection { try writePRJ(base: base, projection) }
    }

    /// Writes `base.shp` and `base.shx` only.
    package static func writeShapes(base: String, type: FixtureShapeType, shapes: [FixtureShape]) throws {
        guard let shp = SHPCreate(base, type.shapelibType) else {
            throw FixtureError(description: "SHPCreate(\(base)) failed")
        }
        defer { SHPClose(shp) }
        for shape in shapes {
            guard let object = makeObject(shape) else {
                throw FixtureError(description: "SHPCreateObject failed for \(shape)")
            }
            defer { SHPDestroyObject(object) }
            guard SHPWriteObject(shp, -1, object) >= 0 else {
                throw FixtureError(description: "SHPWriteObject(\(base)) failed")
            }
        }
    }

    private static func makeObject(_ shape: FixtureShape) -> UnsafeMutablePointer<SHPObject>? {
        switch shape {
        case .null:
            return SHPCreateSimpleObject(SHPT_NULL, 0, nil, nil, nil)
        case let .point(x, y):
            var xs = [x], ys = [y]
            return SHPCreateSimpleObject(SHPT_POINT, 1, &xs, &ys, nil)
        case let .polygon(parts):
            return makeMultipart(SHPT_POLYGON, parts)
        case let .line(parts):
            return makeMultipart(SHPT_ARC, parts)
        }
    }

    private static func makeMultipart(_ type: Int32, _ parts: [Ring]) -> UnsafeMutablePointer<SHPObject>? {
        var starts: [Int32] = [], xs: [Double] = [], ys: [Double] = []
        for part in parts {
            starts.append(Int32(xs.count))
            xs += part.xs
            ys += part.ys
        }
        return SHPCreateObject(type, -1, Int32(parts.count), starts, nil, Int32(xs.count), xs, ys, nil, nil)
    }

    /// Writes `base.dbf` with string fields; values missing from a record's dictionary are NULL.
    package static func writeDBF(
        base: String, fields: [String], records: [[String: FieldValue]],
        codePage: String? = "UTF-8", width: Int32 = 64
    ) throws {
        guard let dbf = DBFCreateEx(base + ".dbf", codePage) else {
            throw FixtureError(description: "DBFCreateEx(\(base).dbf, \(codePage ?? "nil")) failed")
        }
        defer { DBFClose(dbf) }
        for field in fields {
            guard DBFAddField(dbf, field, FTString, width, 0) >= 0 else {
                throw FixtureError(description: "DBFAddField(\(field)) failed")
            }
        }
        for (row, values) in records.enumerated() {
            for (column, field) in fields.enumerated() {
                let ok: Int32
                switch values[field] ?? .null {
                case .null:
                    ok = DBFWriteNULLAttribute(dbf, Int32(row), Int32(column))
                case let .text(text):
                    ok = DBFWriteStringAttribute(dbf, Int32(row), Int32(column), text)
                case let .bytes(bytes):
                    let cString = bytes.map { CChar(bitPattern: $0) } + [0]
                    ok = DBFWriteStringAttribute(dbf, Int32(row), Int32(column), cString)
                }
                guard ok != 0 else {
                    throw FixtureError(description: "writing \(field) of record \(row + 1) in \(base).dbf failed")
                }
            }
        }
    }

    package static func writePRJ(base: String, _ projection: Projection) throws {
        try projection.wkt.write(toFile: base + ".prj", atomically: false, encoding: .utf8)
    }

    /// Writes (or replaces) `base.cpg` with `text`, as GDAL and ArcGIS do.
    package static func writeCPG(base: String, _ text: String) throws {
        try text.write(toFile: base + ".cpg", atomically: false, encoding: .utf8)
    }

    /// Cuts `count` bytes off the end of a file.
    package static func truncate(_ path: String, by count: Int) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        try handle.truncate(atOffset: size - min(size, UInt64(count)))
    }

    /// Overwrites vertex `vertex` (0-based) of polygon record `record` (1-based) in the .shp,
    /// leaving the header's bounds as they were: what a corrupt or hostile file looks like.
    package static func setVertex(shp path: String, record: Int, vertex: Int, x: Double, y: Double) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let shx = try Data(contentsOf: URL(fileURLWithPath: String(path.dropLast(3)) + "shx"))
        func bigEndian32(_ d: Data, _ at: Int) -> Int { d[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        func littleEndian32(_ at: Int) -> Int { data[at..<(at + 4)].reversed().reduce(0) { $0 << 8 | Int($1) } }
        let recordStart = bigEndian32(shx, 100 + (record - 1) * 8) * 2
        let content = recordStart + 8
        let parts = littleEndian32(content + 36)
        let point = content + 44 + 4 * parts + 16 * vertex
        withUnsafeBytes(of: x.bitPattern.littleEndian) { data.replaceSubrange(point..<(point + 8), with: $0) }
        withUnsafeBytes(of: y.bitPattern.littleEndian) { data.replaceSubrange((point + 8)..<(point + 16), with: $0) }
        try data.write(to: URL(fileURLWithPath: path))
    }
}
