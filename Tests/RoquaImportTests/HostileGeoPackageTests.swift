import Foundation
import RoquaImport
import RoquaTestSupport
import Testing

/// A GeoPackage is a SQLite file, and SQLite runs SQL the file holds whenever a view, a virtual
/// table or a computed column is read: an added layer's is never run, and what is read is capped.
@Suite struct HostileGeoPackageTests {
    /// Writes the fixture GeoPackage with `extraSQL` and converts it, as `import --add` does.
    static func convert(_ extraSQL: String = "", limits: LayerLimits = LayerLimits()) throws -> GeoJSONLayer.Converted {
        let directory = try TempDirectory()
        let file = directory.file("layer.gpkg")
        try GeoPackageFixture.write(file, extraSQL: extraSQL)
        return try GeoPackageLayer.convert(file, into: directory.path, name: "converted", limits: limits)
    }

    static func refusal(_ extraSQL: String = "", limits: LayerLimits = LayerLimits()) -> String {
        do {
            _ = try convert(extraSQL, limits: limits)
            return "converted"
        } catch {
            return "\(error)"
        }
    }

    @Test func viewsAndVirtualTablesAreNotRead() throws {
        #expect(try Self.convert().fields.keys.contains("NAME_2"), "the plain fixture is read")
        // The feature table as a view (over the real rows: read, it would convert fine).
        let view = Self.refusal("ALTER TABLE municipalities RENAME TO rows; CREATE VIEW municipalities AS SELECT * FROM rows;")
        #expect(view.contains("layer.gpkg: feature table municipalities is a view"), "\(view)")
        // A metadata table as a recursive view: it could grow without end; bounded here.
        let contents = Self.refusal(
            """
            ALTER TABLE gpkg_contents RENAME TO contents;
            CREATE VIEW gpkg_contents AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3)
              SELECT table_name, data_type, identifier, srs_id FROM contents, n WHERE i = 1;
            """)
        #expect(contents.contains("gpkg_contents is a view"), "\(contents)")
        // A virtual table runs its module's code on every read.
        let virtual = Self.refusal(
            """
            ALTER TABLE municipalities RENAME TO rows;
            CREATE VIRTUAL TABLE municipalities USING fts4(geom, GID_2, NAME_2);
            INSERT INTO municipalities SELECT geom, GID_2, NAME_2 FROM rows;
            """)
        #expect(virtual.contains("feature table municipalities is a virtual table"), "\(virtual)")
    }

    /// A column computed on every read (`GENERATED … VIRTUAL`) is not read; a stored one is.
    @Test func computedColumnsAreNotRead() throws {
        let converted = try Self.convert(
            """
            ALTER TABLE municipalities ADD COLUMN junk TEXT GENERATED ALWAYS AS (printf('%.8c', NAME_2)) VIRTUAL;
            """)
        #expect(converted.fields["junk"] == nil && converted.fields["NAME_2"] != nil, "\(converted.fields)")
    }

    @Test func featuresVerticesAndValuesAreCapped() throws {
        var limits = LayerLimits()
        limits.features = 1
        #expect(Self.refusal(limits: limits).contains("layer.gpkg: more than 1 features"))
        limits = LayerLimits()
        limits.vertices = 6
        #expect(Self.refusal(limits: limits).contains("layer.gpkg: more than 6 vertices"))
        limits = LayerLimits()
        limits.valueBytes = 4096
        let long = Self.refusal("UPDATE municipalities SET NAME_2 = printf('%.5000c', 'x') WHERE fid = 2;", limits: limits)
        #expect(long.contains("layer.gpkg: municipalities row 2 cannot be read") && long.contains("too big"), "\(long)")
        // A GeoJSON layer is held in memory the same way.
        let directory = try TempDirectory()
        let square = #"{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}}"#
        try #"{"type":"FeatureCollection","features":[\#(square),\#(square)]}"#
            .write(toFile: directory.file("layer.geojson"), atomically: true, encoding: .utf8)
        limits = LayerLimits()
        limits.features = 1
        #expect {
            _ = try GeoJSONLayer.convert(directory.file("layer.geojson"), into: directory.path, name: "converted", limits: limits)
        } throws: { "\($0)".contains("layer.geojson: more than 1 features") }
    }
}
