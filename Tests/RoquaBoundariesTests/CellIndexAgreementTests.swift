import Foundation
import GRDB
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// The precomputed cell index against GEOS on the bundled data: every answer the resolver takes
/// from the cells must equal the GEOS path's (the same rules evaluated on the prepared pieces),
/// on random points, on points placed on vertices and edges, and with fallback distances inside
/// and beyond the indexed one.
@Suite struct CellIndexAgreementTests {
    struct Region: Sendable, CustomTestStringConvertible {
        var name: String
        var latitudes: ClosedRange<Double>
        var longitudes: ClosedRange<Double>
        var count: Int
        var testDescription: String { name }
    }

    static let regions = [
        Region(name: "world", latitudes: -90...90, longitudes: -180...180, count: 1500),
        Region(name: "Türkiye and neighbours", latitudes: 36...42, longitudes: 26...45, count: 1500),
        Region(name: "İstanbul and its waters", latitudes: 40.8...41.3, longitudes: 28.6...29.4, count: 1500),
        Region(name: "Europe's borders", latitudes: 45...52, longitudes: 5...20, count: 800),
        Region(name: "near the antimeridian", latitudes: -60...70, longitudes: 178.5...180, count: 300),
    ]

    private func compare(_ points: [Coordinate], fallbackMeters: Double = 1000) throws -> [String] {
        let resolver = try Resolver(index: Bundled.index(), fallbackMeters: fallbackMeters)
        let index = try Bundled.index()
        var mismatches: [String] = []
        for c in points {
            let cells = try resolver.placement(c), geos = try resolver.geometryPlacement(c)
            if cells.unit != geos.unit || cells.approximate != geos.approximate {
                mismatches.append(
                    "\(c.latitude),\(c.longitude): cells \(index.resolution(for: cells, at: c).text(language: .local)), "
                        + "GEOS \(index.resolution(for: geos, at: c).text(language: .local))")
            }
        }
        return mismatches
    }

    @Test(arguments: regions)
    func randomPointsAgreeWithGEOS(_ region: Region) throws {
        var generator = SeededGenerator(state: UInt64(region.name.utf8.reduce(7) { $0 &* 31 &+ UInt64($1) }))
        let points = (0..<region.count).map { _ in
            Coordinate(
                latitude: Double.random(in: region.latitudes, using: &generator),
                longitude: Double.random(in: region.longitudes, using: &generator))
        }
        let mismatches = try compare(points)
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(points.count): \(mismatches.prefix(5))")
    }

    /// Vertices, edge midpoints and points a hair off the edges of real borders: where the
    /// exact-sign arithmetic must either decide as GEOS does or hand the point to GEOS.
    @Test func pointsOnVerticesAndEdgesAgreeWithGEOS() throws {
        let context = GEOSContext()
        var points: [Coordinate] = []
        for code in ["TUR034023", "TUR034001", "TR-34", "TR-22", "CZ", "IL", "XN"] {
            let rings = try Bundled.geometry(code, in: context).polygonRings().flatMap { $0 }
            let ring = try #require(rings.max { $0.count < $1.count })
            let step = max(ring.count / 120, 1)
            for i in stride(from: 0, to: ring.count - 1, by: step) {
                let (ax, ay, bx, by) = (ring.xs[i], ring.ys[i], ring.xs[i + 1], ring.ys[i + 1])
                points.append(Coordinate(latitude: ay, longitude: ax))
                points.append(Coordinate(latitude: (ay + by) / 2, longitude: (ax + bx) / 2))
                points.append(Coordinate(latitude: (ay + by) / 2 + 1e-12, longitude: (ax + bx) / 2 - 1e-12))
            }
        }
        let mismatches = try compare(points)
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(points.count): \(mismatches.prefix(5))")
    }

    /// No fallback, and a fallback wider than the indexed one (answered through GEOS where the
    /// cells cannot know): still the GEOS path's answers.
    @Test(arguments: [0.0, 2500.0])
    func otherFallbackDistancesAgreeWithGEOS(_ meters: Double) throws {
        var generator = SeededGenerator(state: 99)
        let points = (0..<600).map { _ in
            Coordinate(
                latitude: Double.random(in: 40.6...41.4, using: &generator), longitude: Double.random(in: 28.4...29.6, using: &generator))
        }
        let mismatches = try compare(points, fallbackMeters: meters)
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(points.count): \(mismatches.prefix(5))")
    }

    @Test func theIndexCoversTheWorldAndIsListedInTheDatabase() throws {
        let (fallback, tiles) = try Bundled.database().read { db in
            (
                try Double.fetchOne(db, sql: "SELECT fallback_meters FROM cell_index"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM cell_tiles")
            )
        }
        #expect(fallback == 1000)
        #expect(try Bundled.index().indexedFallbackMeters == 1000)
        // Every 1° tile with a border or a coast in it has its own quadtree; open sea and the
        // inside of big units are answered by the grid alone.
        #expect(try #require(tiles) > 5000 && tiles! < 64_800)
    }
}
