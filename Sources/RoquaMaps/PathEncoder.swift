import Foundation
import RoquaBoundaries

/// Display-level simplification that keeps shared borders shared: every vertex is projected and
/// snapped to a grid of `quantum` pixels, then consecutive duplicates and points lying strictly
/// between their two neighbours on a straight line are dropped. Each decision depends only on a
/// vertex and its neighbours, so a border two units share (the same vertices in the data) comes
/// out the same on both sides: no gaps, no slivers. (Douglas–Peucker per polygon would keep
/// different vertices on each side and open gaps.)
package struct PathEncoder: Sendable {
    package let projection: MapProjection
    /// Grid step in pixels.
    package let quantum: Double
    /// Rings enclosing less than this many square pixels are dropped (islets, slivers).
    package let minimumArea: Double
    /// Offset added to every y (room for a title above the map).
    package let offsetY: Double

    package init(projection: MapProjection, quantum: Double = 0.5, minimumArea: Double = 0.5, offsetY: Double = 0) {
        self.projection = projection
        self.quantum = quantum
        self.minimumArea = minimumArea
        self.offsetY = offsetY
    }

    /// A grid point, in quanta.
    package struct GridPoint: Equatable, Sendable {
        package var x: Int
        package var y: Int

        package init(x: Int, y: Int) {
            self.x = x
            self.y = y
        }
    }

    /// The ring snapped to the grid and thinned, or nil when nothing of it would show.
    func gridRing(_ ring: Ring) -> [GridPoint]? {
        var points: [GridPoint] = []
        points.reserveCapacity(ring.count)
        for i in 0..<ring.count {
            let p = projection.point(longitude: ring.xs[i], latitude: ring.ys[i])
            let g = GridPoint(x: Int((p.x / quantum).rounded()), y: Int(((p.y + offsetY) / quantum).rounded()))
            if points.last != g { points.append(g) }
        }
        guard let kept = Self.thinned(points) else { return nil }
        var twiceArea = 0
        for i in 0..<kept.count {
            let a = kept[i], b = kept[(i + 1) % kept.count]
            twiceArea += a.x * b.y - b.x * a.y
        }
        guard Double(abs(twiceArea)) / 2 * quantum * quantum >= minimumArea else { return nil }
        return kept
    }

    /// A closed ring of grid points (consecutive duplicates already dropped) without its repeated
    /// last point and without points lying strictly between their two neighbours on a straight
    /// line; nil when less than a triangle is left. Thinned against the original neighbours (not
    /// the last kept point): the same vertex with the same neighbours is kept or dropped alike in
    /// every unit that has it, so shared borders stay shared.
    package static func thinned(_ ring: [GridPoint]) -> [GridPoint]? {
        var points = ring
        while points.count > 1, points.first == points.last { points.removeLast() }
        guard points.count >= 3 else { return nil }
        let n = points.count
        var kept: [GridPoint] = []
        kept.reserveCapacity(n)
        for i in 0..<n {
            let a = points[(i + n - 1) % n], b = points[i], c = points[(i + 1) % n]
            let cross = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
            let dot = (a.x - b.x) * (c.x - b.x) + (a.y - b.y) * (c.y - b.y)
            if cross == 0 && dot < 0 { continue }
            kept.append(b)
        }
        return kept.count >= 3 ? kept : nil
    }

    /// SVG path data for the polygons: `M x y l dx dy … z` per ring, with relative steps (exact
    /// multiples of the quantum, so absolute positions add up to the same grid points on both sides).
    /// Empty when every ring is too small to show.
    package func pathData(_ polygons: [[Ring]]) -> String {
        var d = ""
        for polygon in polygons {
            // A hole is only drawn when its shell is.
            guard let shell = polygon.first, let shellPoints = gridRing(shell) else { continue }
            append(shellPoints, to: &d)
            for hole in polygon.dropFirst() {
                if let points = gridRing(hole) { append(points, to: &d) }
            }
        }
        return d
    }

    private func append(_ ring: [GridPoint], to d: inout String) {
        d += "M" + number(ring[0].x) + " " + number(ring[0].y) + "l"
        var previous = ring[0]
        for (i, point) in ring.dropFirst().enumerated() {
            let dx = number(point.x - previous.x), dy = number(point.y - previous.y)
            if i > 0 && !dx.hasPrefix("-") { d += " " }
            d += dx
            if !dy.hasPrefix("-") { d += " " }
            d += dy
            previous = point
        }
        d += "z"
    }

    /// A grid coordinate in pixels, to a tenth, without a trailing `.0` or a leading `0`.
    func number(_ quanta: Int) -> String {
        SVGNumber.format(Double(quanta) * quantum, compact: true)
    }
}

enum SVGNumber {
    /// `value` rounded to a tenth: `12`, `-3.5`, and with `compact` `.5` / `-.5` for ±0.5.
    static func format(_ value: Double, compact: Bool = false) -> String {
        let tenths = Int((value * 10).rounded())
        let whole = abs(tenths) / 10, fraction = abs(tenths) % 10
        let sign = tenths < 0 ? "-" : ""
        if fraction == 0 { return sign + String(whole) }
        if compact && whole == 0 { return sign + "." + String(fraction) }
        return sign + String(whole) + "." + String(fraction)
    }
}
