import Foundation
import GRDB
import RoquaBoundaries
import RoquaExport
import RoquaIO
import RoquaTestSupport
import Testing

/// Each format written from the small fixture DB (Testland XX, provinces P1/P2, districts
/// D1–D3) and read back with a reader that is not the writer.
@Suite struct ExportFormatsTests {
    let fixture: ExistingDatabase
    let output: TempDirectory

    init() throws {
        fixture = try ExistingDatabase()
        output = try TempDirectory("roqua-export")
    }

    func export(_ format: ExportFormat, to name: String) throws -> (String, ExportSummary) {
        let path = output.file(name)
        let summary = try BoundaryExporter.export(database: BoundaryDatabase(path: fixture.path), format: format, output: path)
        return (path, summary)
    }

    @Test("GeoJSON: one feature per boundary with codes, names, parent, precision, answer and GEOS's geometry")
    func geoJSON() throws {
        let (path, summary) = try export(.geojson, to: "b.geojson")
        #expect(summary.boundaries == 6 && summary.pieces == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(json["type"] as? String == "FeatureCollection")
        let features = try #require(json["features"] as? [[String: Any]])
        #expect(features.count == 6)
        let d1 = try #require(features.first { $0["id"] as? String == "D1" })
        let properties = try #require(d1["properties"] as? [String: Any])
        #expect(properties["name"] as? String == "Alpha" && properties["level"] as? String == "district")
        #expect(properties["parent"] as? String == "P1" && properties["country"] as? String == "XX")
        #expect(
            properties["answer_country"] as? String == "XX" && properties["answer_province"] as? String == "P1"
                && properties["answer_district"] as? String == "D1")
        #expect(properties["layer"] as? String == "districts" && properties["layer_precision"] is Int)
        let testland = try #require(features.first { $0["id"] as? String == "XX" }?["properties"] as? [String: Any])
        #expect(testland["name_tr"] as? String == "Test Ülkesi" && testland["parent"] is NSNull)
        let geometry = try #require(d1["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Polygon")
        let ring = try #require((geometry["coordinates"] as? [[[Double]]])?.first)
        #expect(Set(ring.map { "\($0[0]),\($0[1])" }) == ["1.0,1.0", "4.0,1.0", "4.0,4.0", "1.0,4.0"])
    }

    @Test("GeoPackage: the required tables, WGS 84, and blobs whose header and WKB read back")
    func geoPackage() throws {
        let (path, summary) = try export(.gpkg, to: "b.gpkg")
        #expect(summary.boundaries == 6 && summary.pieces >= 6)
        let queue = try DatabaseQueue(path: path)
        try queue.read { db in
            #expect(try Int.fetchOne(db, sql: "PRAGMA application_id") == 0x4750_4B47)
            #expect(try String.fetchAll(db, sql: "SELECT table_name FROM gpkg_contents ORDER BY 1") == ["boundaries", "pieces"])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM gpkg_geometry_columns WHERE srs_id = 4326") == 2)
            #expect(try String.fetchOne(db, sql: "SELECT organization FROM gpkg_spatial_ref_sys WHERE srs_id = 4326") == "EPSG")
            let row = try #require(try Row.fetchOne(db, sql: "SELECT geom, parent_code, answer_district FROM boundaries WHERE code = 'D3'"))
            #expect(row["parent_code"] as String? == "P2" && row["answer_district"] as String? == "D3")
            let blob = [UInt8](row["geom"] as Data)
            let header = try GeoPackageBinary.header(blob)
            #expect(header.srid == 4326 && header.envelope == [6, 9, 1, 4] && !header.isEmpty)
            let context = GEOSContext()
            let shape = try context.geometry(wkb: Data(blob[header.wkbOffset...]))
            #expect(try shape.area() == 9)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pieces p JOIN boundaries b ON b.fid = p.boundary_id") == summary.pieces)
        }
    }

    @Test("PostGIS: schema, two COPY blocks with hex EWKB (SRID 4326), indexes, roqua_resolve, ANALYZE")
    func postGIS() throws {
        let (path, summary) = try export(.postgis, to: "b.sql")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(summary.boundaries == 6)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let d1 = try #require(lines.first { $0.hasPrefix("\(try id(of: "D1"))\tD1\t") }).split(separator: "\t")
        #expect(Array(d1[1...13]) == ["D1", "2", "Alpha", "Alpha", "Alpha", "P1", "XX", d1[8], "districts", d1[10], "XX", "P1", "D1"])
        // 01 = little-endian, 03000020 = polygon with SRID, E6100000 = 4326.
        #expect(d1[14].hasPrefix("0103000020E6100000"))
        #expect(lines.filter { $0 == "\\." }.count == 2)
        for needle in [
            "CREATE INDEX roqua_pieces_geom ON roqua_pieces USING gist (geom);", "CREATE FUNCTION roqua_resolve(",
            "ANALYZE roqua_pieces;", "COMMIT;",
        ] {
            #expect(text.contains(needle), "\(needle)")
        }
    }

    private func id(of code: String) throws -> Int64 {
        try BoundaryDatabase(path: fixture.path).read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM boundaries WHERE code = ?", arguments: [code]) ?? -1
        }
    }

    @Test("bad output: a GeoPackage to stdout, a directory, a missing directory; a failed export leaves the old file")
    func badOutput() throws {
        let database = try BoundaryDatabase(path: fixture.path)
        #expect(throws: ExportError.self) { try BoundaryExporter.export(database: database, format: .gpkg, output: "-") }
        for format in ExportFormat.allCases {
            #expect(throws: OutputError.self) { try BoundaryExporter.export(database: database, format: format, output: output.path) }
            #expect(throws: OutputError.self) {
                try BoundaryExporter.export(database: database, format: format, output: output.file("missing/b.out"))
            }
        }
        // A unit whose geometry GEOS cannot read: the error names it, the existing file stays whole.
        let broken = output.file("broken.sqlite")
        try FileManager.default.copyItem(atPath: fixture.path, toPath: broken)
        try DatabaseQueue(path: broken).write { db in try db.execute(sql: "UPDATE boundaries SET geometry = x'0103' WHERE code = 'D2'") }
        let target = output.file("old.out")
        for format in ExportFormat.allCases {
            try Data("old".utf8).write(to: URL(fileURLWithPath: target))
            do {
                _ = try BoundaryExporter.export(database: BoundaryDatabase(path: broken), format: format, output: target)
                Issue.record("\(format): a broken geometry must fail the export")
            } catch let error as ExportError {
                #expect(error.description.contains("D2"), "\(error)")
            }
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "old")
            #expect(try output.contents() == ["broken.sqlite", "old.out"])
        }
    }
}
