import Foundation
import RoquaTestSupport
import Testing

/// `roqua export-boundaries` end to end on the small fixture DB: output to stdout and to a file,
/// and bad input refused with a clear message and nothing written.
@Suite struct ExportBoundariesCLITests {
    let roqua = ProductsDirectory.product("roqua")

    @Test("GeoJSON to standard output; PostGIS to a file, with a summary on stderr")
    func writes() throws {
        let fixture = try ExistingDatabase()
        let result = try CommandRunner.run(roqua, ["export-boundaries", "--format", "geojson", "--boundaries", fixture.path])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect((json["features"] as? [Any])?.count == 6)
        #expect(result.stderr.contains("exported 6 boundaries as geojson to standard output"))
        let output = try TempDirectory("roqua-export-cli")
        let sql = output.file("b.sql")
        let file = try CommandRunner.run(
            roqua, ["export-boundaries", "--format", "postgis", "--output", sql, "--boundaries", fixture.path])
        #expect(file.status == 0 && file.stdout.isEmpty, "\(file.stderr)")
        #expect(try String(contentsOfFile: sql, encoding: .utf8).contains("CREATE FUNCTION roqua_resolve("))
        #expect(try output.contents() == ["b.sql"])
    }

    @Test("an unknown format, a GeoPackage to stdout, an unwritable output, a missing DB: exit 1, a message, nothing written")
    func refusesBadInput() throws {
        let fixture = try ExistingDatabase()
        let output = try TempDirectory("roqua-export-cli")
        let cases: [([String], [String])] = [
            (["--format", "shapefile"], ["shapefile", "postgis", "gpkg", "geojson"]),
            (["--format", "gpkg"], ["standard output", "--output FILE"]),
            (["--format", "gpkg", "--output", "/dev/null"], ["/dev/null", "--output FILE"]),
            (["--format", "postgis", "--output", output.path], [output.path, "is a directory"]),
            (["--format", "geojson", "--output", output.file("no/such/dir.json")], ["no/such", "does not exist"]),
        ]
        for (arguments, needles) in cases {
            let result = try CommandRunner.run(roqua, ["export-boundaries"] + arguments + ["--boundaries", fixture.path])
            #expect(result.status != 0 && result.stdout.isEmpty, "\(arguments)")
            for needle in needles { #expect(result.stderr.contains(needle), "\(arguments): \(result.stderr)") }
        }
        let missing = try CommandRunner.run(
            roqua,
            [
                "export-boundaries", "--format", "postgis", "--output", output.file("b.sql"),
                "--boundaries", output.file("none.sqlite"),
            ])
        #expect(missing.status != 0 && missing.stderr.contains("roqua import"))
        #expect(try output.contents() == [])
    }
}
