import Foundation
import GRDB
import RoquaBoundaries

/// The feature table of an OGC GeoPackage, read through SQLite (`gpkg_contents`,
/// `gpkg_geometry_columns`, `gpkg_spatial_ref_sys`, each row's GeoPackage geometry header and
/// its WKB, parsed by GEOS) and written as a shapefile like a GeoJSON layer. The file's own SQL
/// never runs (`UntrustedSQLite`): those tables and the feature table must be base tables.
package enum GeoPackageLayer {
    static let metadataTables = ["gpkg_contents", "gpkg_geometry_columns", "gpkg_spatial_ref_sys"]

    /// Writes the GeoPackage's feature table `table` (needed when it has several, as GADM's
    /// `ADM_0`…`ADM_5` in one file) as `directory/name.shp`.
    /// - Throws: `AddedLayers.Failure` for a file that is no GeoPackage, one with no feature table,
    ///   several and none chosen, a chosen one that is not there, a view or virtual table where a
    ///   table belongs, a row whose geometry is not polygonal or not readable, more than `limits`.
    package static func convert(
        _ file: String, table chosen: String? = nil, into directory: String, name: String,
        limits: LayerLimits = LayerLimits()
    ) throws -> GeoJSONLayer.Converted {
        let queue: DatabaseQueue
        do { queue = try UntrustedSQLite.open(file, valueBytes: limits.valueBytes) } catch {
            throw AddedLayers.Failure(description: "\(file): cannot open it as a GeoPackage: \(error)")
        }
        let context = GEOSContext()
        return try queue.read { db in
            for table in metadataTables {
                if let what = try? UntrustedSQLite.notABaseTable(db, table), what != "missing" {
                    throw AddedLayers.Failure(description: "\(file): \(table) is \(what); only tables are read from a GeoPackage")
                }
            }
            let tables: [String]
            do {
                tables = try DatabaseValue.fetchAll(
                    db, sql: "SELECT table_name FROM gpkg_contents WHERE data_type = 'features' ORDER BY table_name"
                )
                .compactMap(Self.text)
            } catch {
                throw AddedLayers.Failure(description: "\(file): not a GeoPackage (no gpkg_contents table)")
            }
            guard !tables.isEmpty else { throw AddedLayers.Failure(description: "\(file): the GeoPackage has no feature table") }
            let table: String
            if let chosen {
                guard let found = tables.first(where: { $0 == chosen }) ?? tables.first(where: { $0.lowercased() == chosen.lowercased() })
                else {
                    throw AddedLayers.Failure(description: "\(file): no feature table \(chosen) (it has \(tables.joined(separator: ", ")))")
                }
                table = found
            } else {
                guard tables.count == 1 else {
                    throw AddedLayers.Failure(
                        description: "\(file): the GeoPackage has \(tables.count) feature tables "
                            + "(\(tables.joined(separator: ", "))); choose one with --table NAME")
                }
                table = tables[0]
            }
            guard
                let column = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT g.column_name, g.srs_id, s.organization, s.organization_coordsys_id, s.definition
                        FROM gpkg_geometry_columns g LEFT JOIN gpkg_spatial_ref_sys s ON s.srs_id = g.srs_id WHERE g.table_name = ?
                        """, arguments: [table])
            else {
                throw AddedLayers.Failure(description: "\(file): table \(table) has no entry in gpkg_geometry_columns")
            }
            // Columns read as whatever they hold: a damaged file may have a number where text belongs.
            guard let geometryColumn = Self.text(column["column_name"]) else {
                throw AddedLayers.Failure(description: "\(file): table \(table) names no geometry column in gpkg_geometry_columns")
            }
            let crs = Self.crs(
                organization: Self.text(column["organization"]),
                code: Self.text(column["organization_coordsys_id"]).flatMap { Int($0) },
                definition: Self.text(column["definition"]))
            if let what = try UntrustedSQLite.notABaseTable(db, table) {
                throw AddedLayers.Failure(description: "\(file): feature table \(table) is \(what); only tables are read from a GeoPackage")
            }
            let columns = try UntrustedSQLite.storedColumns(db, table)
            guard columns.contains(geometryColumn) else {
                throw AddedLayers.Failure(description: "\(file): table \(table) has no stored column \(geometryColumn) (its geometry)")
            }
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT \(columns.map(UntrustedSQLite.quoted).joined(separator: ", ")) "
                    + "FROM \(UntrustedSQLite.quoted(table))")
            var keys: [String] = []
            var records: [(rings: [Ring], properties: [String: String])] = []
            var number = 0, vertices = 0
            while let row = try Self.next(rows, file: file, table: table, number: number + 1) {
                number += 1
                let label = "\(file): \(table) row \(number)"
                guard case let .blob(blob)? = (row[geometryColumn] as DatabaseValue?)?.storage else {
                    throw AddedLayers.Failure(description: "\(label) has no geometry")
                }
                let wkb = try Self.wkb(blob, label: label)
                let polygons: [[Ring]]
                do {
                    polygons = try context.geometry(wkb: wkb).polygonRings()
                } catch {
                    throw AddedLayers.Failure(description: "\(label): its geometry cannot be read: \(error)")
                }
                guard !polygons.isEmpty else {
                    throw AddedLayers.Failure(description: "\(label) is not a polygon; only polygons and multipolygons can be boundaries")
                }
                var properties: [String: String] = [:]
                for (key, value) in row where key != geometryColumn {
                    guard let text = Self.text(value) else { continue }
                    properties[key] = text
                    if !keys.contains(key) { keys.append(key) }
                }
                records.append((LayerShapefile.oriented(polygons), properties))
                vertices += polygons.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
                try limits.check(features: number, vertices: vertices, file: file)
            }
            guard !records.isEmpty else { throw AddedLayers.Failure(description: "\(file): table \(table) has no rows") }
            let fields = LayerShapefile.dbfNames(keys)
            let base = (directory as NSString).appendingPathComponent(name)
            try LayerShapefile.write(base: base, keys: keys, fields: fields, records: records)
            return GeoJSONLayer.Converted(shapefile: base + ".shp", fields: fields, crs: crs)
        }
    }

    /// The next row, or an error naming it (a value longer than the limit, a damaged page).
    private static func next(_ rows: RowCursor, file: String, table: String, number: Int) throws -> Row? {
        do { return try rows.next() } catch {
            throw AddedLayers.Failure(description: "\(file): \(table) row \(number) cannot be read: \(error)")
        }
    }

    /// A column's value as text (numbers written out), nil for NULL and blobs.
    static func text(_ value: DatabaseValue?) -> String? {
        switch value?.storage {
        case .string(let string): string
        case .int64(let integer): String(integer)
        case .double(let double): String(double)
        case .blob, .null, nil: nil
        }
    }

    /// `EPSG:NNNN` for an EPSG SRS, else its WKT; nil for WGS 84 (and the GeoPackage's
    /// "undefined" systems 0 and -1).
    static func crs(organization: String?, code: Int?, definition: String?) -> String? {
        if organization?.uppercased() == "EPSG", let code {
            return code == 4326 ? nil : "EPSG:\(code)"
        }
        guard let definition, !definition.isEmpty, definition.lowercased() != "undefined" else { return nil }
        return definition
    }

    /// The WKB inside a GeoPackage geometry blob (`GeoPackageBinary` reads the header).
    static func wkb(_ blob: Data, label: String) throws -> Data {
        let bytes = [UInt8](blob)
        let header: GeoPackageBinary.Header
        do { header = try GeoPackageBinary.header(bytes) } catch {
            throw AddedLayers.Failure(description: "\(label): \(error)")
        }
        guard bytes[3] & 0b0010_0000 == 0 else {
            throw AddedLayers.Failure(description: "\(label): extended GeoPackage geometries are not supported")
        }
        guard !header.isEmpty else { throw AddedLayers.Failure(description: "\(label) has an empty geometry") }
        return Data(bytes[header.wkbOffset...])
    }
}
