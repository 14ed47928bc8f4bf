import Foundation
import GRDB
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// A layer's CRS as `import --add` keeps it: resolved to text once, when the layer is added, and
/// never a file the layer's own files name (a `.prj`, a GeoJSON's `crs`, a GeoPackage's SRS).
@Suite struct HostileCRSCLITests {
    typealias Setup = AddLayerCLITests.Setup

    /// The Web Mercator wards of `Setup` as a GeoJSON whose `crs` member is `name`.
    static func mercatorGeoJSON(_ s: Setup, crs name: String) throws -> String {
        let ring = AddLayerCLITests.mercator(Shapes.square(x: 1, y: 1, size: 3))
        let coordinates = "[" + zip(ring.xs, ring.ys).map { "[\($0),\($1)]" }.joined(separator: ",") + "]"
        let path = s.directory.file("user/kare.geojson")
        try """
        {"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"\(name)"}},"features":[
         {"type":"Feature","properties":{"KOD":"K1","AD":"Kare"},"geometry":{"type":"Polygon","coordinates":[\(coordinates)]}}]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The manifest `import --add` wrote for the layer `name`.
    static func manifestCRS(_ s: Setup, _ name: String) throws -> String? {
        let data = try Data(contentsOf: URL(fileURLWithPath: s.directory.file("xdg/roqua/layers/\(name)/manifest.json")))
        let manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return ((manifest?["layers"] as? [[String: Any]])?.first?["crs"]) as? String
    }

    /// `--crs FILE`: read when the layer is added; the layer keeps the text, so removing the file
    /// breaks nothing (Roqua once kept only the path, and every later import failed).
    @Test func aCRSFileGivenOnTheCommandLineIsReadOnceAndKeptAsText() throws {
        let s = try Setup()
        let wkt = s.directory.file("user/crs2.wkt")
        try WebMercator.esriWKT.write(toFile: wkt, atomically: true, encoding: .utf8)
        let added = try s.run(["--add", s.wards, "--level", "district", "--code", "JCODE", "--name", "WARD_JA", "--crs", wkt])
        #expect(added.status == 0, "\(added.stderr)")
        let kept = try #require(try Self.manifestCRS(s, "wards"))
        #expect(kept.hasPrefix("{") && kept.contains("Pseudo-Mercator") && !kept.contains(wkt), "\(kept)")
        try FileManager.default.removeItem(atPath: wkt)
        let later = try s.run([])
        #expect(later.status == 0, "\(later.stderr)")
        #expect(try s.units()["13104"] == ["新宿区", "P1"])
    }

    /// What a layer's own files name is text or nothing: a GeoJSON `crs` naming a file, a `.prj`
    /// and a GeoPackage SRS pointing PROJ at an init file are refused, and nothing is kept.
    @Test func filesALayerNamesAreNeverRead() throws {
        let s = try Setup()
        #expect(try s.run([]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: s.out))
        let wkt = s.directory.file("user/crs2.wkt")
        try WebMercator.esriWKT.write(toFile: wkt, atomically: true, encoding: .utf8)
        let initFile = s.directory.file("user/myinit")
        try "<merc> +proj=webmerc +datum=WGS84 +type=crs <>\n".write(toFile: initFile, atomically: true, encoding: .utf8)

        let geojson = try Self.mercatorGeoJSON(s, crs: wkt)
        let named = try s.run(["--add", geojson, "--level", "district", "--code", "KOD", "--name", "AD"])
        #expect(
            named.status != 0 && named.stderr.contains("kare.geojson") && named.stderr.contains("a file's path is not read"),
            "\(named.stderr)")

        try "+init=\(initFile):merc".write(toFile: String(s.wards.dropLast(3)) + "prj", atomically: true, encoding: .utf8)
        let prj = try s.run(["--add", s.wards, "--level", "district", "--code", "JCODE", "--name", "WARD_JA"])
        #expect(prj.status != 0 && prj.stderr.contains("wards.prj") && prj.stderr.contains("+init="), "\(prj.stderr)")

        let gpkg = s.directory.file("user/municipalities.gpkg")
        try GeoPackageFixture.write(gpkg, srs: .init(organization: nil, code: 999_001, definition: "+init=\(initFile):merc"))
        let srs = try s.run(["--add", gpkg, "--level", "district"])
        #expect(srs.status != 0 && srs.stderr.contains("municipalities.gpkg") && srs.stderr.contains("+init="), "\(srs.stderr)")

        #expect(try Data(contentsOf: URL(fileURLWithPath: s.out)) == before)
        let layers = (try? FileManager.default.contentsOfDirectory(atPath: s.directory.file("xdg/roqua/layers"))) ?? []
        #expect(layers.isEmpty, "\(layers)")
    }

    /// A layer added by an older Roqua with a path for its CRS: the import that fails names the layer.
    @Test func aKeptPathNamesItsLayer() throws {
        let s = try Setup()
        #expect(
            try s.run(["--add", s.wards, "--level", "district", "--code", "JCODE", "--name", "WARD_JA", "--crs", "EPSG:3857"]).status == 0)
        let manifest = s.directory.file("xdg/roqua/layers/wards/manifest.json")
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as? [String: Any])
        var layers = try #require(object["layers"] as? [[String: Any]])
        layers[0]["crs"] = "/tmp/gone/crs2.wkt"
        object["layers"] = layers
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: manifest))
        let later = try s.run([])
        #expect(
            later.status != 0 && later.stderr.contains("layers/wards/wards.shp") && later.stderr.contains("/tmp/gone/crs2.wkt"),
            "\(later.stderr)")
    }
}
