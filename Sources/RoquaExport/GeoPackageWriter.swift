import Foundation
import GRDB
import RoquaBoundaries
import RoquaIO

/// A GeoPackage 1.3 file: the required metadata tables (spatial reference systems, contents,
/// geometry columns) and two feature tables, `boundaries` and `pieces`, whose geometry blobs
/// are GEOS's WKB behind a GeoPackage header. Built beside the target and renamed into place.
struct GeoPackageWriter {
    let catalog: ExportCatalog
    let database: BoundaryDatabase

    func write(to output: String) throws -> ExportSummary {
        guard output != "-" else { throw ExportError.needsRegularFile(format: .gpkg, path: output) }
        if let kind = FileKind(path: output), kind != .regular {
            if kind == .directory { throw OutputError(path: output, reason: "is a directory; give a file name") }
            throw ExportError.needsRegularFile(format: .gpkg, path: output)
        }
        let directory = (output as NSString).deletingLastPathComponent
        if !directory.isEmpty, FileKind(path: directory) == nil {
            throw OutputError(path: output, reason: "the directory \(directory) does not exist")
        }
        let replace = try AtomicReplace(target: output)
        do {
            let summary = try build(at: replace.temporary)
            try replace.commit()
            return summary
        } catch let error as DatabaseError {
            replace.discard()
            throw OutputError(path: output, reason: error.message ?? "SQLite error \(error.resultCode)")
        } catch {
            replace.discard()
            throw error
        }
    }

    private func build(at path: String) throws -> ExportSummary {
        let queue = try DatabaseQueue(path: path)
        let geometry = try ExportGeometry()
        var summary = ExportSummary(boundaries: 0, pieces: 0)
        try queue.write { db in
            try db.execute(sql: "PRAGMA application_id = 1196444487; PRAGMA user_version = 10300;")  // 'GPKG', 1.3.0
            try db.execute(sql: Self.metadata)
            var extent: BoundingBox?
            let insertBoundary = try db.makeStatement(
                sql: """
                    INSERT INTO boundaries (fid, geom, code, level, name, name_en, name_tr, parent_code, country, continent,
                      layer, layer_precision, answer_country, answer_province, answer_district) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
                    """)
            try catalog.forEachBoundary(in: database) { unit, wkb in
                let (bytes, bounds) = try geometry.wkbAndBounds(wkb, of: unit)
                extent = extent.map { Self.union($0, bounds) } ?? bounds
                let blob = Data(GeoPackageBinary.encode(wkb: bytes, bounds: bounds, srid: BoundaryExporter.srid))
                try insertBoundary.execute(arguments: [
                    unit.id, blob, unit.code, unit.level.rawValue, unit.name, unit.nameEn,
                    unit.nameTr, unit.parentCode, unit.country, unit.continent, unit.layer,
                    unit.precision, unit.answer[0], unit.answer[1], unit.answer[2],
                ])
                summary.boundaries += 1
            }
            let insertPiece = try db.makeStatement(sql: "INSERT INTO pieces (fid, geom, boundary_id, code) VALUES (?,?,?,?)")
            try catalog.forEachPiece(in: database) { id, unit, wkb in
                let (bytes, bounds) = try geometry.wkbAndBounds(wkb, of: unit)
                let blob = Data(GeoPackageBinary.encode(wkb: bytes, bounds: bounds, srid: BoundaryExporter.srid))
                try insertPiece.execute(arguments: [id, blob, unit.id, unit.code])
                summary.pieces += 1
            }
            let box = extent ?? BoundingBox(minX: -180, minY: -90, maxX: 180, maxY: 90)
            try db.execute(
                sql: "UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ?",
                arguments: [box.minX, box.minY, box.maxX, box.maxY])
        }
        try queue.close()
        return summary
    }

    private static func union(_ a: BoundingBox, _ b: BoundingBox) -> BoundingBox {
        BoundingBox(minX: min(a.minX, b.minX), minY: min(a.minY, b.minY), maxX: max(a.maxX, b.maxX), maxY: max(a.maxY, b.maxY))
    }

    /// The tables every GeoPackage has, WGS 84 registered, and the two feature tables.
    static let metadata = """
        CREATE TABLE gpkg_spatial_ref_sys (
          srs_name TEXT NOT NULL, srs_id INTEGER NOT NULL PRIMARY KEY, organization TEXT NOT NULL,
          organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
        INSERT INTO gpkg_spatial_ref_sys VALUES
          ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system'),
          ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system'),
          ('WGS 84 geodetic', 4326, 'EPSG', 4326, 'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]', 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid');
        CREATE TABLE gpkg_contents (
          table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE, description TEXT DEFAULT '',
          last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
          min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE,
          srs_id INTEGER REFERENCES gpkg_spatial_ref_sys(srs_id));
        CREATE TABLE gpkg_geometry_columns (
          table_name TEXT NOT NULL UNIQUE REFERENCES gpkg_contents(table_name), column_name TEXT NOT NULL,
          geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL REFERENCES gpkg_spatial_ref_sys(srs_id),
          z TINYINT NOT NULL, m TINYINT NOT NULL, PRIMARY KEY (table_name, column_name));
        CREATE TABLE boundaries (
          fid INTEGER PRIMARY KEY, geom GEOMETRY NOT NULL, code TEXT NOT NULL UNIQUE, level INTEGER NOT NULL,
          name TEXT NOT NULL, name_en TEXT NOT NULL, name_tr TEXT NOT NULL, parent_code TEXT, country TEXT NOT NULL,
          continent TEXT, layer TEXT NOT NULL, layer_precision INTEGER NOT NULL,
          answer_country TEXT, answer_province TEXT, answer_district TEXT);
        CREATE TABLE pieces (
          fid INTEGER PRIMARY KEY, geom GEOMETRY NOT NULL, boundary_id INTEGER NOT NULL REFERENCES boundaries(fid),
          code TEXT NOT NULL);
        CREATE INDEX pieces_boundary ON pieces(boundary_id);
        INSERT INTO gpkg_contents (table_name, data_type, identifier, description, srs_id) VALUES
          ('boundaries', 'features', 'Roqua boundaries', 'countries, provinces and districts with codes, names and hierarchy', 4326),
          ('pieces', 'features', 'Roqua boundary pieces', 'the boundaries cut into pieces of a few hundred vertices', 4326);
        INSERT INTO gpkg_geometry_columns VALUES ('boundaries', 'geom', 'GEOMETRY', 4326, 0, 0), ('pieces', 'geom', 'GEOMETRY', 4326, 0, 0);
        """
}
