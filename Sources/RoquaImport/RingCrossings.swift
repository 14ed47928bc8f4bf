import RoquaBoundaries

/// How tangled a polygon's rings are: the number of proper crossings between their edges. GEOS's
/// repair (`MakeValid`) nodes every crossing and builds every face between them, so its time and
/// memory grow with the crossings, not with the vertices: a self-intersecting star of 201
/// vertices (19,899 crossings) ran for minutes, one of 801 vertices passed 1.1 GB in a minute,
/// while a real polygon of a million vertices with a thousand bow-ties repairs in 10 s. Counting
/// them first, cheaply and with a stop, tells the two apart before GEOS is asked.
///
/// Edges are put in the cells of a grid (cells about a typical edge long; a long edge in the
/// cells it passes through) and compared within each cell. Touching and overlapping edges are
/// not crossings: they add no faces.
package enum RingCrossings {
    /// The proper crossings between edges of `polygons`, counted up to `limit + 1` (then it
    /// stops); nil when more than `work` pairs of edges would have to be compared (edges packed so
    /// densely that counting would itself take long).
    package static func count(_ polygons: [PolygonRings], limit: Int, work: Int) -> Int? {
        var edges: [(ax: Double, ay: Double, bx: Double, by: Double)] = []
        for polygon in polygons {
            for ring in [polygon.shell] + polygon.holes where ring.count >= 2 {
                for i in 0..<(ring.count - 1) where ring.xs[i] != ring.xs[i + 1] || ring.ys[i] != ring.ys[i + 1] {
                    edges.append((ring.xs[i], ring.ys[i], ring.xs[i + 1], ring.ys[i + 1]))
                }
            }
        }
        guard edges.count > 3, var cell = typicalLength(edges) else { return 0 }
        let minX = edges.lazy.map { min($0.ax, $0.bx) }.min()!, minY = edges.lazy.map { min($0.ay, $0.by) }.min()!
        let maxX = edges.lazy.map { max($0.ax, $0.bx) }.max()!, maxY = edges.lazy.map { max($0.ay, $0.by) }.max()!
        cell = max(cell, max(maxX - minX, maxY - minY) / Double(1 << 20))
        // Cells of every edge, as (cell, edge) pairs; a grid too fine for long edges is made coarser.
        let budget = 16 * edges.count + 1_000_000
        var pairs: [(cell: Int, edge: Int32)] = []
        while true {
            let columns = Int((maxX - minX) / cell) + 1
            pairs.removeAll(keepingCapacity: true)
            for (index, edge) in edges.enumerated() {
                let done = cells(of: edge, origin: (minX, minY), size: cell, columns: columns, rows: Int((maxY - minY) / cell) + 1) {
                    pairs.append(($0, Int32(index)))
                    return pairs.count <= budget
                }
                if !done { break }
            }
            if pairs.count <= budget { break }
            cell *= 4
        }
        pairs.sort { ($0.cell, $0.edge) < ($1.cell, $1.edge) }
        var found = Set<Int>()
        var compared = 0
        var start = 0
        while start < pairs.count {
            var end = start + 1
            while end < pairs.count, pairs[end].cell == pairs[start].cell { end += 1 }
            for i in start..<end {
                for j in (i + 1)..<end {
                    compared += 1
                    if compared > work { return nil }
                    let (a, b) = (Int(pairs[i].edge), Int(pairs[j].edge))
                    if cross(edges[a], edges[b]) {
                        found.insert(a * edges.count + b)
                        if found.count > limit { return found.count }
                    }
                }
            }
            start = end
        }
        return found.count
    }

    /// The median length of (a sample of) the edges; nil when they all have none.
    private static func typicalLength(_ edges: [(ax: Double, ay: Double, bx: Double, by: Double)]) -> Double? {
        let step = max(1, edges.count / 10_000)
        let lengths = stride(from: 0, to: edges.count, by: step).map { i in
            let e = edges[i]
            return max(abs(e.bx - e.ax), abs(e.by - e.ay))
        }.sorted()
        let median = lengths[lengths.count / 2]
        return median > 0 && median.isFinite ? median : lengths.last.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }

    /// Calls `visit` with each grid cell the edge lies in: every cell of its box when that is a
    /// few, else the cells along it (a grid walk); false as soon as `visit` says stop.
    private static func cells(
        of e: (ax: Double, ay: Double, bx: Double, by: Double), origin: (x: Double, y: Double), size: Double,
        columns: Int, rows: Int, visit: (Int) -> Bool
    ) -> Bool {
        func index(_ value: Double, _ count: Int) -> Int { min(max(Int(value), 0), count - 1) }
        let x0 = (e.ax - origin.x) / size, y0 = (e.ay - origin.y) / size, x1 = (e.bx - origin.x) / size, y1 = (e.by - origin.y) / size
        var (cx, cy) = (index(x0, columns), index(y0, rows))
        let (ex, ey) = (index(x1, columns), index(y1, rows))
        if abs(ex - cx) <= 2 && abs(ey - cy) <= 2 {
            for row in min(cy, ey)...max(cy, ey) {
                for column in min(cx, ex)...max(cx, ex) where !visit(row * columns + column) { return false }
            }
            return true
        }
        let (dx, dy) = (x1 - x0, y1 - y0)
        let (stepX, stepY) = (dx > 0 ? 1 : -1, dy > 0 ? 1 : -1)
        var tX = dx == 0 ? Double.infinity : ((stepX > 0 ? Double(cx + 1) : Double(cx)) - x0) / dx
        var tY = dy == 0 ? Double.infinity : ((stepY > 0 ? Double(cy + 1) : Double(cy)) - y0) / dy
        let (deltaX, deltaY) = (dx == 0 ? Double.infinity : abs(1 / dx), dy == 0 ? Double.infinity : abs(1 / dy))
        guard visit(cy * columns + cx) else { return false }
        for _ in 0..<(abs(ex - cx) + abs(ey - cy)) {
            if tX < tY {
                cx += stepX
                tX += deltaX
            } else {
                cy += stepY
                tY += deltaY
            }
            (cx, cy) = (min(max(cx, 0), columns - 1), min(max(cy, 0), rows - 1))
            guard visit(cy * columns + cx) else { return false }
        }
        return true
    }

    /// Whether two edges cross at a point inside both (not at an end, not along a common line).
    private static func cross(
        _ p: (ax: Double, ay: Double, bx: Double, by: Double),
        _ q: (ax: Double, ay: Double, bx: Double, by: Double)
    ) -> Bool {
        guard max(p.ax, p.bx) >= min(q.ax, q.bx), max(q.ax, q.bx) >= min(p.ax, p.bx),
            max(p.ay, p.by) >= min(q.ay, q.by), max(q.ay, q.by) >= min(p.ay, p.by)
        else { return false }
        let o1 = Predicates.orientation(p.ax, p.ay, p.bx, p.by, q.ax, q.ay), o2 = Predicates.orientation(p.ax, p.ay, p.bx, p.by, q.bx, q.by)
        guard o1 * o2 == -1 else { return false }
        let o3 = Predicates.orientation(q.ax, q.ay, q.bx, q.by, p.ax, p.ay), o4 = Predicates.orientation(q.ax, q.ay, q.bx, q.by, p.bx, p.by)
        return o3 * o4 == -1
    }
}
