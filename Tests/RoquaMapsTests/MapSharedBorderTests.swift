import Foundation
import RoquaBoundaries
import RoquaMaps
import RoquaTestSupport
import Testing

/// Neighbours keep their common border after simplification: no gaps, no slivers.
@Suite struct MapSharedBorderTests {
    /// Kadıköy and Üsküdar share a land border. The data's common vertices, projected and snapped to
    /// the half-pixel grid, must lie on both drawn outlines, and (away from the ends of the border)
    /// be vertices of both paths. Simplifying each polygon on its own (Douglas–Peucker) keeps
    /// different vertices on each side and fails this.
    @Test func kadikoyAndUskudarShareTheirBorder() throws {
        let map = try MapFixtures.renderer().render(unit: "TR-34", regions: [])
        let document = try #require(SVGDocument.parse(map.svg))
        let drawnA = pathRings(try #require(document.unit("TUR034023")?.attributes["d"]))
        let drawnB = pathRings(try #require(document.unit("TUR034038")?.attributes["d"]))

        let context = GEOSContext()
        func vertices(_ code: String) throws -> Set<[Double]> {
            Set(
                try Bundled.geometry(code, in: context).polygonRings().flatMap { $0 }
                    .flatMap { ring in (0..<ring.count).map { [ring.xs[$0], ring.ys[$0]] } })
        }
        let common = try vertices("TUR034023").intersection(try vertices("TUR034038"))
        #expect(common.count >= 20, "the data should give Kadıköy and Üsküdar common vertices")
        let border = Set(
            common.map { v -> HalfPixel in
                let p = map.projection.point(longitude: v[0], latitude: v[1])
                return HalfPixel(p.x, p.y + map.mapTop)
            })

        let verticesA = Set(drawnA.flatMap { $0 }.map { HalfPixel($0.x, $0.y) })
        let verticesB = Set(drawnB.flatMap { $0 }.map { HalfPixel($0.x, $0.y) })
        let inBoth = border.filter { verticesA.contains($0) && verticesB.contains($0) }
        #expect(inBoth.count >= 5)
        #expect(Double(inBoth.count) >= 0.8 * Double(border.filter { verticesA.contains($0) || verticesB.contains($0) }.count))
        // Every border point is on both outlines (a vertex, or on a straight edge through it).
        for point in border {
            let p = (x: Double(point.x) / 2, y: Double(point.y) / 2)
            let onA = drawnA.map { distance(from: p, toOutline: $0) }.min() ?? .infinity
            let onB = drawnB.map { distance(from: p, toOutline: $0) }.min() ?? .infinity
            #expect(onA < 0.01 && onB < 0.01, "border point \(p) is \(onA) px from Kadıköy, \(onB) px from Üsküdar")
        }
    }

    @Test func encoderDropsDuplicatesAndCollinearPointsOnly() throws {
        let box = BoundingBox(minX: 0, minY: 0, maxX: 1, maxY: 1)
        let encoder = PathEncoder(projection: MapProjection(fitting: box, width: 110, margin: 5))
        // A square with a doubled corner, a point midway along an edge, and a spike out and back.
        let ring = Ring(xs: [0, 0.5, 1, 1, 1, 0.5, 0.5, 0.5, 0, 0], ys: [0, 0, 0, 0, 1, 1, 1.2, 1, 1, 0])
        let rings = pathRings(encoder.pathData([[ring]]))
        #expect(rings.count == 1)
        let points = rings[0].map { HalfPixel($0.x, $0.y) }
        #expect(points.count == 7)  // 4 corners + the spike's foot, tip and foot again; (0.5, 0) dropped
        #expect(!points.contains(HalfPixel(55, 105)))
        // Rings below half a square pixel vanish, as does a hole without its shell.
        let tiny = Ring(xs: [0, 0.001, 0.001, 0], ys: [0, 0, 0.001, 0])
        #expect(encoder.pathData([[tiny, ring]]).isEmpty)
    }
}
