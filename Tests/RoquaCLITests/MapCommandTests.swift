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
        let result = try CommandRunner.run(Self.roqua, ["map", "--unit", "istanbul", "--out", out, "--fog", "--png",
                                                        "--store", store, "--boundaries", Bundled.path()])
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
        let result = try CommandRunner.run(Self.roqua, ["map", "--unit", "Istanbull", "--out", out,
                                                        "--store", store, "--boundaries", Bundled.path()])
        #expect(result.status != 0)
        #expect(result.stderr.contains("no unit called 'Istanbull'") && result.stderr.contains("İstanbul (TR-34)"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func badOptionsAreRefused() throws {
        let result = try CommandRunner.run(Self.roqua, ["map", "--unit", "TR", "--out", "/tmp/x.svg", "--level", "town"])
        #expect(result.status != 0 && result.stderr.contains("unknown level 'town'"))
    }
}
