import Foundation
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// The cell index's own arithmetic against GEOS: the orientation sign, the side of a point
/// found by counting crossings from a reference point, and GEOS's nearest point.
@Suite struct PredicatesTests {
    /// The exact sign of (b − a) × (c − a) for small integers scaled by a power of two (exact in doubles).
    private func exactSign(_ a: (Double, Double), _ b: (Double, Double), _ c: (Double, Double)) -> Int {
        let d = (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
        return d > 0 ? 1 : (d < 0 ? -1 : 0)
    }

    @Test func orientationIsExactOrSaysItCannotTell() {
        var generator = SeededGenerator(state: 5)
        for _ in 0..<20_000 {
            // Points on a fine dyadic grid: products and differences are exact, so the true sign is known.
            func value() -> Double { Double(Int.random(in: -1000...1000, using: &generator)) / 64 }
            let a = (value(), value()), b = (value(), value())
            let t = Double(Int.random(in: -4...4, using: &generator)) / 2
            // Often exactly collinear (c on the line a-b), often not.
            let c = Bool.random(using: &generator) ? (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)) : (value(), value())
            let o = Predicates.orientation(a.0, a.1, b.0, b.1, c.0, c.1)
            #expect(o == Predicates.uncertain || o == exactSign(a, b, c), "\(a) \(b) \(c): \(o)")
        }
        // Nearly collinear in the last bits: never a wrong sign.
        let o = Predicates.orientation(0.1, 0.1, 0.3, 0.3, 0.2, 0.2 + 1e-17)
        #expect(o == Predicates.uncertain || o == 0 || o == 1)
    }

    /// Random points in and around a wiggly polygon with a hole: the side counted from an
    /// inside reference point is GEOS `covers`, or `uncertain`.
    @Test func sideMatchesGEOSCovers() throws {
        let context = GEOSContext()
        var xs: [Double] = [], ys: [Double] = []
        for i in 0..<40 {
            let angle = -2 * Double.pi * Double(i) / 40, radius = i % 2 == 0 ? 3.0 : 2.0
            xs.append(5 + radius * cos(angle))
            ys.append(5 + radius * sin(angle))
        }
        xs.append(xs[0])
        ys.append(ys[0])
        let shell = Ring(xs: xs, ys: ys)
        let hole = Shapes.square(x: 4.5, y: 4.5, size: 0.6, clockwise: false)
        let polygon = try context.polygonal([PolygonRings(shell: shell, holes: [hole])]).prepared()
        let vertices = (Array(zip(shell.xs, shell.ys)) + Array(zip(hole.xs, hole.ys))).flatMap { [$0.0, $0.1] }
        let runs: [Int32] = [0, Int32(shell.count - 1), Int32(shell.count), Int32(hole.count - 1)]
        let reference = (x: 5.0, y: 6.2)
        #expect(try polygon.covers(context.point(x: reference.x, y: reference.y)))
        var generator = SeededGenerator(state: 11)
        var points = (0..<5000).map { _ in (Double.random(in: 1...9, using: &generator), Double.random(in: 1...9, using: &generator)) }
        points += zip(shell.xs, shell.ys).map { ($0, $1) } + [(4.5, 4.8), (5.1, 4.5), (4.5, 4.5)]  // vertices and hole edges
        for (x, y) in points {
            let side = vertices.withUnsafeBufferPointer { v in
                runs.withUnsafeBufferPointer { r in
                    Predicates.side(
                        qx: x, qy: y, rx: reference.x, ry: reference.y, rInside: true,
                        vertices: v.baseAddress!, runs: r.baseAddress!, runCount: 2)
                }
            }
            guard side != .uncertain else { continue }
            #expect((side != .outside) == (try polygon.covers(context.point(x: x, y: y))), "\(x), \(y): \(side)")
        }
    }

    /// The nearest point of a polygon's rings to an outside point, found edge by edge as the
    /// resolver's fallback does, is bit for bit the one GEOS `nearestPoints` gives.
    @Test func nearestPointIsGEOSsNearestPoint() throws {
        let context = GEOSContext()
        var generator = SeededGenerator(state: 21)
        var compared = 0
        for _ in 0..<400 {
            var xs: [Double] = [], ys: [Double] = []
            for i in 0..<7 {
                let angle = -2 * Double.pi * Double(i) / 7, radius = Double.random(in: 0.5...1.5, using: &generator)
                xs.append(radius * cos(angle))
                ys.append(radius * sin(angle))
            }
            xs.append(xs[0])
            ys.append(ys[0])
            let polygon = try context.polygonal([PolygonRings(shell: Ring(xs: xs, ys: ys))])
            guard try polygon.isValid() else { continue }
            let p = (Double.random(in: -3...3, using: &generator), Double.random(in: -3...3, using: &generator))
            let point = try context.point(x: p.0, y: p.1)
            guard try !polygon.covers(point) else { continue }
            var best = Double.infinity, edge = -1
            for i in 0..<7 {
                let d = Predicates.segmentDistance(p.0, p.1, xs[i], ys[i], xs[i + 1], ys[i + 1])
                if d < best { (best, edge) = (d, i) }
            }
            let ours = Predicates.closestPoint(p.0, p.1, xs[edge], ys[edge], xs[edge + 1], ys[edge + 1])
            let geos = try polygon.nearestPoint(to: point)
            #expect(ours.x == geos.x && ours.y == geos.y, "\(p): ours \(ours), GEOS \(geos)")
            compared += 1
        }
        #expect(compared > 200)
    }
}
