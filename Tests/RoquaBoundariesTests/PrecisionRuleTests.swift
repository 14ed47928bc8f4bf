import Foundation
import GRDB
import RoquaBoundaries
import RoquaImport
import RoquaTestSupport
import Testing

/// Layer precision on hand-made boundaries: countries A (x 0…10°) and B (x 10…20°) in a
/// precise layer, and a coarse province layer whose province PA of A reaches 1° into B,
/// while B's province PB starts only at x 11°.
@Suite struct PrecisionRuleTests {
    private func fixture(precise: Int?, coarse: Int?, in directory: TempDirectory) throws -> Resolver {
        var countries = FixtureLayer(
            file: "countries.shp", level: .country,
            units: [
                FixtureUnit(code: "A", name: "Aland", rings: [Shapes.rectangle(minX: 0, minY: 0, maxX: 10, maxY: 10)]),
                FixtureUnit(code: "B", name: "Bland", rings: [Shapes.rectangle(minX: 10, minY: 0, maxX: 20, maxY: 10)]),
            ])
        countries.source = "precise countries"
        var provinces = FixtureLayer(
            file: "provinces.shp", level: .province,
            units: [
                FixtureUnit(code: "PA", name: "A province", parent: "A", rings: [Shapes.rectangle(minX: 0, minY: 0, maxX: 11, maxY: 10)]),
                FixtureUnit(code: "PB", name: "B province", parent: "B", rings: [Shapes.rectangle(minX: 11, minY: 0, maxX: 20, maxY: 10)]),
            ])
        provinces.source = "generalised provinces"
        try AdminFixture(layers: [countries, provinces]).write(in: directory.path)
        // Add the precision of each layer to the manifest the fixture wrote.
        let manifestPath = directory.file("manifest.json")
        var manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath))) as? [String: Any])
        var layers = try #require(manifest["layers"] as? [[String: Any]])
        for i in layers.indices {
            let precision = layers[i]["file"] as? String == "countries.shp" ? precise : coarse
            if let precision { layers[i]["precision"] = precision }
        }
        manifest["layers"] = layers
        try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: manifestPath))
        let output = directory.file("boundaries.sqlite")
        _ = try BoundaryImporter.run(BoundaryImportOptions(sources: [directory.path], output: output))
        return try Resolver(path: output)
    }

    @Test func theMorePreciseLayerDecidesTheCountry() throws {
        let directory = try TempDirectory()
        let r = try fixture(precise: 2, coarse: 1, in: directory)
        // In B, where only A's coarse province reaches: B, and no province of B covers or is near.
        let overlap = try r.resolve(latitude: 5, longitude: 10.5)
        #expect(overlap.country?.code == "B" && overlap.province == nil && !overlap.approximate)
        // 0.005° (≈ 555 m) from PB: B's nearest province, approximate.
        let nearPB = try r.resolve(latitude: 5, longitude: 10.995)
        #expect(nearPB.country?.code == "B" && nearPB.province?.code == "PB" && nearPB.approximate)
        #expect(abs(try #require(nearPB.distanceMeters) - 555) < 5)
        // Inside A, and inside B's own province: unchanged.
        #expect(try r.resolve(latitude: 5, longitude: 5).province?.code == "PA")
        #expect(try r.resolve(latitude: 5, longitude: 15).province?.code == "PB")
        // The GEOS path agrees on each.
        for (lat, lon) in [(5.0, 10.5), (5.0, 10.995), (5.0, 5.0), (5.0, 15.0), (5.0, 10.0), (5.0, 11.0)] {
            let c = Coordinate(latitude: lat, longitude: lon)
            #expect(try r.placement(c) == r.geometryPlacement(c), "\(lat), \(lon)")
        }
    }

    @Test func withoutPrecisionTheDeepestLevelDecides() throws {
        let directory = try TempDirectory()
        let r = try fixture(precise: nil, coarse: nil, in: directory)
        let overlap = try r.resolve(latitude: 5, longitude: 10.5)
        #expect(overlap.country?.code == "A" && overlap.province?.code == "PA")
    }

    @Test func theManifestPrecisionIsStoredPerSource() throws {
        let directory = try TempDirectory()
        let r = try fixture(precise: 5, coarse: nil, in: directory)
        let info = try r.index.database.read { db in
            try [String: Int](
                uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT file, precision FROM sources").map { ($0["file"], $0["precision"]) })
        }
        #expect(info == ["countries.shp": 5, "provinces.shp": 0])
    }
}
