import Foundation
import RoquaBoundaries
import RoquaImport
import RoquaTestSupport
import Testing

/// Resolver rules on hand-made boundaries whose answers are known exactly.
@Suite struct ResolverRuleTests {
    /// Imports `fixture` and returns a resolver over it (the directory lives as long as the resolver's files are used).
    private func resolver(_ fixture: AdminFixture, in directory: TempDirectory) throws -> Resolver {
        try fixture.write(in: directory.path)
        let output = directory.file("boundaries.sqlite")
        _ = try BoundaryImporter.run(BoundaryImportOptions(sources: [directory.path], output: output))
        return try Resolver(path: output)
    }

    @Test func sharedBordersGoToTheSmallerCode() throws {
        let directory = try TempDirectory()
        let r = try resolver(.standard(), in: directory)
        // P1 (x 0…5) and P2 (x 5…10) share x = 5.
        #expect(try r.resolve(latitude: 8, longitude: 5).province?.code == "P1")
        #expect(try r.resolve(latitude: 8, longitude: 5.000001).province?.code == "P2")
        #expect(try r.resolve(latitude: 8, longitude: 4.999999).province?.code == "P1")
        // On a district's own edge the district holds the point (boundaries count as inside).
        let edge = try r.resolve(latitude: 2, longitude: 1)
        #expect(edge.district?.code == "D1")
        #expect(edge.province?.code == "P1" && edge.country?.code == "XX")
    }

    @Test func holesAreRespected() throws {
        let directory = try TempDirectory()
        let outer = Shapes.square(x: 0, y: 0, size: 10)
        let hole = Shapes.square(x: 4, y: 4, size: 2, clockwise: false)
        var countries = FixtureLayer(
            file: "countries.shp", level: .country,
            units: [
                FixtureUnit(code: "XX", name: "Ring", rings: [outer, hole]),
                FixtureUnit(code: "YY", name: "Enclave", rings: [Shapes.square(x: 4, y: 4, size: 2)]),
                FixtureUnit(
                    code: "ZZ", name: "Lake",
                    rings: [
                        Shapes.square(x: 20, y: 0, size: 10),
                        Shapes.square(x: 24, y: 4, size: 2, clockwise: false),
                    ]),
            ])
        countries.source = "rules fixture"
        let r = try resolver(AdminFixture(layers: [countries]), in: directory)
        #expect(try r.resolve(latitude: 5, longitude: 5).country?.code == "YY")
        #expect(try r.resolve(latitude: 2, longitude: 2).country?.code == "XX")
        #expect(try r.resolve(latitude: 5, longitude: 4).country?.code == "XX")  // on both: smaller code
        // In the lake hole, more than 1 km from its shore: nothing; near the shore: approximate.
        let lake = try r.resolve(latitude: 5, longitude: 25)
        #expect(lake.country == nil)
        let shore = try r.resolve(latitude: 5, longitude: 24.005)
        #expect(shore.country?.code == "ZZ" && shore.approximate)
        #expect(abs(try #require(shore.distanceMeters) - 556) < 5)
    }

    @Test func fallbackDistanceIsConfigurable() throws {
        let directory = try TempDirectory()
        let index = try ResolverIndex(
            path: {
                _ = try resolver(.standard(), in: directory)
                return directory.file("boundaries.sqlite")
            }())
        // 0.02° east of the country's edge at the equator ≈ 2.2 km.
        let near = Coordinate(latitude: 5, longitude: 10.02)
        #expect(try Resolver(index: index).resolve(near).country == nil)
        let wide = try Resolver(index: index, fallbackMeters: 3000).resolve(near)
        #expect(wide.country?.code == "XX" && wide.province?.code == "P2" && wide.approximate)
    }
}
