import Foundation
import RoquaBoundaries
import RoquaIO
import RoquaImport

/// Rings for fixtures. Shapefile convention: clockwise rings are shells, counter-clockwise holes.
package enum Shapes {
    /// A closed axis-aligned rectangle; clockwise (a shell) unless `clockwise` is false.
    package static func rectangle(
        minX: Double, minY: Double, maxX: Double, maxY: Double,
        clockwise: Bool = true
    ) -> Ring {
        let ring = Ring(xs: [minX, minX, maxX, maxX, minX], ys: [minY, maxY, maxY, minY, minY])
        return clockwise ? ring : reversed(ring)
    }

    /// A closed square with its lower-left corner at (x, y).
    package static func square(x: Double, y: Double, size: Double, clockwise: Bool = true) -> Ring {
        rectangle(minX: x, minY: y, maxX: x + size, maxY: y + size, clockwise: clockwise)
    }

    /// A closed regular polygon with `vertices` distinct corners on a circle (area
    /// `vertices / 2 · r² · sin(2π / vertices)`).
    package static func circle(
        centerX: Double, centerY: Double, radius: Double, vertices: Int,
        clockwise: Bool = true
    ) -> Ring {
        var xs: [Double] = [], ys: [Double] = []
        for i in 0..<vertices {
            // Clockwise: the angle decreases.
            let angle = (clockwise ? -1.0 : 1.0) * 2 * Double.pi * Double(i) / Double(vertices)
            xs.append(centerX + radius * cos(angle))
            ys.append(centerY + radius * sin(angle))
        }
        xs.append(xs[0])
        ys.append(ys[0])
        return Ring(xs: xs, ys: ys)
    }

    package static func circleArea(radius: Double, vertices: Int) -> Double {
        Double(vertices) / 2 * radius * radius * sin(2 * Double.pi / Double(vertices))
    }

    /// A self-intersecting "bow-tie" inside the box (x, y)–(x + size, y + size) whose two lobes
    /// differ in size, so its signed area is not zero (it reads as a clockwise shell).
    package static func bowTie(x: Double, y: Double, size: Double) -> Ring {
        Ring(xs: [x, x + size, x + size, x, x], ys: [y, y + size, y, y + size / 4, y])
    }

    /// A ring from (x, y) pairs, written as given (closed only if the last pair repeats the first).
    package static func ring(_ points: [(Double, Double)]) -> Ring {
        Ring(xs: points.map(\.0), ys: points.map(\.1))
    }

    package static func reversed(_ ring: Ring) -> Ring {
        Ring(xs: ring.xs.reversed(), ys: ring.ys.reversed())
    }
}

/// Shapes made to hurt a geometry library.
package enum HostileGeometry {
    /// The star polygon {n/((n−1)/2)}: every edge crosses nearly every other, n(n−3)/2 crossings
    /// for an odd n (a 201-vertex one is 3.4 KB as a shapefile).
    package static func star(_ n: Int, centerX: Double, centerY: Double, radius: Double) -> Ring {
        let step = (n - 1) / 2
        let points = (0...n).map { i in 2 * Double.pi * Double(i * step % n) / Double(n) }
        return Ring(xs: points.map { centerX + radius * cos($0) }, ys: points.map { centerY + radius * sin($0) })
    }
}
