import Foundation

/// The point-in-polygon and distance arithmetic of the cell index, written to give GEOS's
/// answers: the orientation sign comes from the same floating-point filter GEOS uses before it
/// switches to extended precision, so a sign it returns is exact; where the filter cannot
/// decide, the caller asks GEOS itself. Distances repeat GEOS's `DistanceOp` formulas so the
/// nearest point found is the one GEOS finds.
package enum Predicates {
    /// The sign of the turn a → b → c: 1 counter-clockwise, -1 clockwise, 0 collinear, or
    /// `uncertain` when the rounding error bound does not separate the determinant from zero.
    package static let uncertain = 2

    @inline(__always)
    package static func orientation(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
        _ cx: Double, _ cy: Double
    ) -> Int {
        let left = (ax - cx) * (by - cy)
        let right = (ay - cy) * (bx - cx)
        let det = left - right
        let sum: Double
        if left > 0 {
            if right <= 0 { return sign(det) }
            sum = left + right
        } else if left < 0 {
            if right >= 0 { return sign(det) }
            sum = -left - right
        } else {
            // One factor is exactly zero (equal coordinates), so `det` is a single rounded
            // product whose sign is exact.
            return sign(det)
        }
        // The bound GEOS uses (DP_SAFE_EPSILON · |left| + |right|).
        let bound = 1e-15 * sum
        if det >= bound || -det >= bound { return sign(det) }
        return uncertain
    }

    @inline(__always)
    private static func sign(_ value: Double) -> Int { value > 0 ? 1 : (value < 0 ? -1 : 0) }

    /// Where the point lies against a ring set, found from a reference point of known side.
    package enum Side: Equatable { case inside, outside, boundary, uncertain }

    /// Walks the segment q → r across the edges given as runs of consecutive vertices
    /// (`vertices` holds x, y pairs; a run of n edges uses n + 1 vertices) and flips the known
    /// side of r once per crossing. Vertices exactly on the line q–r count as lying on its left,
    /// so a boundary passing through a vertex is counted once and one touching it not at all.
    /// q on an edge is `boundary` (polygons cover their boundary, as GEOS `covers`). Every edge
    /// the segment can meet must be listed (all edges touching the cell that holds q and r).
    @inline(__always)
    package static func side(
        qx: Double, qy: Double, rx: Double, ry: Double, rInside: Bool,
        vertices: UnsafePointer<Double>, runs: UnsafePointer<Int32>, runCount: Int
    ) -> Side {
        var inside = rInside
        let minX = min(qx, rx), maxX = max(qx, rx), minY = min(qy, ry), maxY = max(qy, ry)
        for k in 0..<runCount {
            let start = Int(runs[2 * k]), count = Int(runs[2 * k + 1])
            var p = vertices + 2 * start
            var bx = p[0], by = p[1]
            for _ in 0..<count {
                p += 2
                let ax = bx, ay = by
                bx = p[0]
                by = p[1]
                if (ax < minX && bx < minX) || (ax > maxX && bx > maxX) || (ay < minY && by < minY) || (ay > maxY && by > maxY) {
                    continue
                }
                let o1 = orientation(ax, ay, bx, by, qx, qy)
                if o1 == uncertain { return .uncertain }
                if o1 == 0 {
                    if qx >= min(ax, bx), qx <= max(ax, bx), qy >= min(ay, by), qy <= max(ay, by) { return .boundary }
                    continue
                }
                let o2 = orientation(ax, ay, bx, by, rx, ry)
                if o2 == uncertain || o2 == 0 { return .uncertain }
                if o1 == o2 { continue }
                let o3 = orientation(qx, qy, rx, ry, ax, ay)
                let o4 = orientation(qx, qy, rx, ry, bx, by)
                if o3 == uncertain || o4 == uncertain { return .uncertain }
                if (o3 >= 0) != (o4 >= 0) { inside.toggle() }
            }
        }
        return inside ? .inside : .outside
    }

    /// GEOS `Distance::pointToSegment`: the planar distance in degrees from p to segment a–b.
    @inline(__always)
    package static func segmentDistance(
        _ px: Double, _ py: Double, _ ax: Double, _ ay: Double,
        _ bx: Double, _ by: Double
    ) -> Double {
        if ax == bx, ay == by { return ((px - ax) * (px - ax) + (py - ay) * (py - ay)).squareRoot() }
        let len2 = (bx - ax) * (bx - ax) + (by - ay) * (by - ay)
        let r = ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / len2
        if r <= 0 { return ((px - ax) * (px - ax) + (py - ay) * (py - ay)).squareRoot() }
        if r >= 1 { return ((px - bx) * (px - bx) + (py - by) * (py - by)).squareRoot() }
        let s = ((ay - py) * (bx - ax) - (ax - px) * (by - ay)) / len2
        return abs(s) * len2.squareRoot()
    }

    /// GEOS `LineSegment::closestPoint`: the point of segment a–b nearest to p.
    @inline(__always)
    package static func closestPoint(
        _ px: Double, _ py: Double, _ ax: Double, _ ay: Double,
        _ bx: Double, _ by: Double
    ) -> (x: Double, y: Double) {
        var factor = Double.nan
        if px == ax, py == ay {
            factor = 0
        } else if px == bx, py == by {
            factor = 1
        } else {
            let dx = bx - ax, dy = by - ay
            let len2 = dx * dx + dy * dy
            if len2 > 0 { factor = ((px - ax) * dx + (py - ay) * dy) / len2 }
        }
        if factor > 0, factor < 1 { return (ax + factor * (bx - ax), ay + factor * (by - ay)) }
        let d0 = ((px - ax) * (px - ax) + (py - ay) * (py - ay)).squareRoot()
        let d1 = ((px - bx) * (px - bx) + (py - by) * (py - by)).squareRoot()
        return d0 < d1 ? (ax, ay) : (bx, by)
    }
}
