import Foundation
import GRDB
import RoquaBoundaries

/// Small GeoPackages written by hand after the OGC encoding: one feature table of Web Mercator
/// squares, and whatever SQL a test adds to make it hostile.
package enum GeoPackageFixture {
    /// A polygon as little-endian WKB in a GeoPackage geometry blob (`GP`, version 0, flags: little
    /// endian, no envelope; SRS id).
    package static func blob(_ rings: [Ring], srs: Int32) -> Data {
        var bytes: [UInt8] = [0x47, 0x50, 0, 0b0000_0001]
        withUnsafeBytes(of: srs.littleEndian) { bytes += $0 }
        bytes += [1]
        withUnsafeBytes(of: UInt32(3).littleEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt32(rings.count).littleEndian) { bytes += $0 }
        for ring in rings {
            withUnsafeBytes(of: UInt32(ring.count).littleEndian) { bytes += $0 }
            for (x, y) in zip(ring.xs, ring.ys) {
                withUnsafeBytes(of: x.bitPattern.littleEndian) { bytes += $0 }
                withUnsafeBytes(of: y.bitPattern.littleEndian) { bytes += $0 }
            }
        }
        return Data(bytes)
    }

    /// The SRS row of the feature table: EPSG:3857 by default.
    package struct SRS: Sendable {
        package var organization: String?
        package var code: Int
        package var definition: String

        package init(organization: String? = "EPSG", code: Int = 3857, definition: String = "undefined") {
            (self.organization, self.code, self.definition) = (organization, code, definition)
        }
    }

    /// Writes `path`: feature table `municipalities` (GADM-like columns `GID_2`, `NAME_2`) with two
    /// 3° squares in Web Mercator at (1, 1) and (6, 1) degrees, then runs `extraSQL`.
    package static func write(_ path: String, srs: SRS = SRS(), extraSQL: String = "") throws {
        try DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT, srs_id INTEGER PRIMARY KEY, organization TEXT,
                        organization_coordsys_id INTEGER, definition TEXT, description TEXT);
                    CREATE TABLE gpkg_contents (table_name TEXT PRIMARY KEY, data_type TEXT, identifier TEXT, srs_id INTEGER);
                    CREATE TABLE gpkg_geometry_columns (table_name TEXT, column_name TEXT, geometry_type_name TEXT, srs_id INTEGER, z INTEGER, m INTEGER);
                    CREATE TABLE municipalities (fid INTEGER PRIMARY KEY, geom BLOB, GID_2 TEXT, NAME_2 TEXT, population INTEGER);
                    """)
            try db.execute(
                sql: "INSERT INTO gpkg_spatial_ref_sys VALUES ('layer SRS', ?, ?, ?, ?, NULL)",
                arguments: [srs.code, srs.organization, srs.code, srs.definition])
            try db.execute(
                sql: "INSERT INTO gpkg_contents VALUES ('municipalities', 'features', 'municipalities', ?)", arguments: [srs.code])
            try db.execute(
                sql: "INSERT INTO gpkg_geometry_columns VALUES ('municipalities', 'geom', 'POLYGON', ?, 0, 0)", arguments: [srs.code])
            for (code, name, x, y) in [("JPN.1.1_1", "Shinjuku", 1.0, 1.0), ("JPN.1.2_1", "Chiyoda", 6.0, 1.0)] {
                let shell = WebMercator.project(Shapes.square(x: x, y: y, size: 3))
                try db.execute(
                    sql: "INSERT INTO municipalities (geom, GID_2, NAME_2, population) VALUES (?, ?, ?, 1000)",
                    arguments: [blob([shell], srs: Int32(srs.code)), code, name])
            }
            if !extraSQL.isEmpty { try db.execute(sql: extraSQL) }
        }
    }
}

/// EPSG:3857 (spherical Web Mercator), computed independently of PROJ, and as an ESRI `.prj` says it.
package enum WebMercator {
    package static func project(_ ring: Ring) -> Ring {
        let radius = 6_378_137.0
        return Ring(xs: ring.xs.map { $0 * .pi / 180 * radius }, ys: ring.ys.map { radius * log(tan(.pi / 4 + $0 * .pi / 360)) })
    }

    package static let esriWKT =
        #"PROJCS["WGS_1984_Web_Mercator_Auxiliary_Sphere",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Mercator_Auxiliary_Sphere"],PARAMETER["False_Easting",0.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",0.0],PARAMETER["Standard_Parallel_1",0.0],PARAMETER["Auxiliary_Sphere_Type",0.0],UNIT["Meter",1.0]]"#
}
