import Foundation
import RoquaTestSupport
import Testing

enum RoquaMap {
    static let executable = ProductsDirectory.product("roqua")
}

/// `roqua map` end to end.
@Suite
struct MapCommandTests {
    static let roqua = RoquaMap.executable

    @Test func drawsIstanbulWithFogAndPNG() throws {
        let directory = try TempDirectory("roqua-map")
        let store = try MapFixtures.store(in: directory)
        let out = directory.file("istanbul.svg")
        let result = try CommandRunner.run(
            Self.roqua,
            [
                "map", "--unit", "istanbul", "--out", out, "--fog", "--png",
                "--store", store, "--boundaries", Bundled.path(),
            ])
        let rsvg = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].contains { FileManager.default.isExecutableFile(atPath: $0) }
        if rsvg {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(FileManager.default.fileExists(atPath: directory.file("istanbul.png")))
        } else {
            #expect(result.status != 0 && result.stderr.contains("librsvg2-bin"))
        }
        #expect(result.stdout.contains("İstanbul, 8/39 districts visited, 9 regions lit"))
        let svg = try String(contentsOfFile: out, encoding: .utf8)  // written even when the PNG is not
        let document = try #require(SVGDocument.parse(svg))
        #expect(document.units.count == 39 && document.fogCircles.count == 9)
    }

    @Test func unknownUnitFailsWithSuggestions() throws {
        let directory = try TempDirectory("roqua-map")
        let store = try MapFixtures.store(in: directory)
        let out = directory.file("x.svg")
        let result = try CommandRunner.run(
            Self.roqua,
            [
                "map", "--unit", "Istanbull", "--out", out,
                "--store", store, "--boundaries", Bundled.path(),
            ])
        #expect(result.status != 0)
        #expect(result.stderr.contains("no unit called 'Istanbull'") && result.stderr.contains("İstanbul (TR-34)"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func badOptionsAreRefused() throws {
        let result = try CommandRunner.run(Self.roqua, ["map", "--unit", "TR", "--out", "/tmp/x.svg", "--level", "town"])
        #expect(result.status != 0 && result.stderr.contains("unknown level 'town'"))
    }

    /// `--tiles`: a walk over a 3×3 block of zoom-14 tiles and one tile apart; the SVG holds each
    /// visited tile, the cluster tile darker and the max square outlined.
    @Test func drawsTheExplorerTiles() throws {
        let directory = try TempDirectory("roqua-map")
        let store = directory.file("regions.sqlite")
        var csv = "lat,lon,time\n", time = 1_714_550_400
        // Zoom-14 tiles near Fatih are ~0.022° wide and ~0.0166° high: rows 0.004° apart, a fix every 0.004°.
        for row in 0..<13 {
            for column in 0..<17 {
                csv += "\(41.000 + Double(row) * 0.004),\(28.900 + Double(row % 2 == 0 ? column : 16 - column) * 0.004),\(time)\n"
                time += 120
            }
        }
        csv += "41.2,29.3,\(time + 86_400)\n"
        try csv.write(toFile: directory.file("walk.csv"), atomically: true, encoding: .utf8)
        let common = ["--store", store, "--boundaries", try Bundled.path()]
        #expect(try CommandRunner.run(Self.roqua, ["track", "import", directory.file("walk.csv")] + common).status == 0)
        let figures = try CommandRunner.run(Self.roqua, ["stats", "tiles", "--json", "--store", store])
        let stats = try #require(try JSONSerialization.jsonObject(with: Data(figures.stdout.utf8)) as? [String: Any])
        let tiles = try #require(stats["tiles"] as? Int), cluster = try #require(stats["max_cluster"] as? Int)
        #expect(tiles >= 10 && (stats["max_square"] as? Int ?? 0) >= 2, "\(stats)")
        let out = directory.file("tiles.svg")
        let result = try CommandRunner.run(Self.roqua, ["map", "--unit", "istanbul", "--tiles", "--out", out] + common)
        #expect(result.status == 0 && result.stdout.contains(", \(tiles) tiles ("), "\(result.stdout) \(result.stderr)")
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        #expect(svg.components(separatedBy: "<rect class=\"tile").count - 1 == tiles)
        #expect(svg.components(separatedBy: "<rect class=\"tile cluster\"").count - 1 == cluster)
        #expect(svg.contains("<rect class=\"square\" x=") && svg.contains("max cluster \(cluster)"))
        let refused = try CommandRunner.run(
            Self.roqua, ["map", "--unit", "istanbul", "--tiles", "--tile-zoom", "15", "--out", out] + common)
        #expect(refused.status != 0 && refused.stderr.contains("--tile-zoom must be 14 or 17"))
    }
}
